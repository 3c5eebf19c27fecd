/*
 * trigger.c: triggers (LTTng's trigger actions; uftrace's triggers; MPS
 * .sol.traceback). One trigger, in the syntax of README "Conditions and
 * triggers":
 *
 *   FUNCTION:EVENT [if CONDITION] -> ACTION [ARGUMENT] [once | every DURATION]
 *   parse:throw -> snapshot                    *.handle:exit if time > 10ms -> report /tmp/r.txt
 *
 * FUNCTION is a glob on "<tu>.<name>" (on the name alone when it has no '.').
 * Triggers are watchers the registry puts into the holders of the groups of
 * the functions they name (tf__registry_watch), after the registered
 * monitors. Each change of the triggers makes a new watcher factory holding
 * an immutable set of the live ones (its watchers' bits index that set), so
 * hooks read triggers without a lock, and a removed trigger frees its place
 * at once. A removed trigger itself stays allocated (marked, never firing):
 * a call in progress keeps the watcher it entered with, and the registry
 * keeps replaced monitors for the same reason (registry.c, "Reclamation").
 * Actions run on the thread that fired, guarded like a monitor (nothing they
 * call is traced).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../config.h"
#include "control.h"

/* Live triggers at once: a frame's flags hold a pass bit for each, and
 * THROWN. Checked when one is added; the message says how to make room. */
#define MAX_TRIGGERS 31
#define THROWN (1u << 31)

enum { EV_ENTER, EV_EXIT, EV_THROW };
enum { A_REGISTER, A_CLEAR, A_SNAPSHOT, A_REPORT };

struct trigger {
    char func[128];
    int event;
    tf_cond cond;
    int action;
    char group[128];      /* register, clear */
    tf_factory *factory;  /* register */
    char path[256];       /* snapshot, report: "" for the default */
    int once;
    uint64_t every_ns;
    char text[256];       /* as the user wrote it, for listing */
    tf_pending *seen;     /* TF_TRIGGERS: its function glob, checked at exit */
    tf_cond_seen args;    /* the argument names its condition met (.silent.args) */
    int item;             /* TF_TRIGGERS: its place there */
    unsigned long fired, suppressed;
    uint64_t last_ns;
    int number;           /* what tf-ctl shows; never given twice */
    int removed;
};

/* The live triggers, oldest first, as one watcher factory sees them. */
struct trigger_set {
    int n;
    struct trigger *t[MAX_TRIGGERS];
};

struct watch_factory {
    tf_factory base;
    struct trigger_set set;
    /* the factory it replaced: never freed (watchers it made may still be
     * in calls), kept reachable so that a leak checker sees it kept */
    const struct watch_factory *older;
};

static struct trigger_set triggers; /* under add_lock */
static int next_number = 1;
static struct watch_factory *latest; /* the newest watcher factory, under add_lock */
static pthread_mutex_t add_lock = PTHREAD_MUTEX_INITIALIZER;

static int live(const struct trigger *t)
{
    return !__atomic_load_n(&t->removed, __ATOMIC_RELAXED);
}

static int matches(const struct trigger *t, const tf_tu *tu, uint32_t id)
{
    const tf_name *n = &tu->names[id];
    if (!(n->flags & TF_NAME_MONITOR))
        return 0;
    return tf__function_matches(t->func, tu, n->name);
}

static uint32_t mask_of(const struct trigger_set *set, const tf_tu *tu, uint32_t id)
{
    uint32_t mask = 0;
    for (int k = 0; k < set->n; k++)
        if (matches(set->t[k], tu, id))
            mask |= 1u << k;
    return mask;
}

static int wants(tf_factory *f, const tf_tu *tu, uint32_t group)
{
    const struct trigger_set *set = &((struct watch_factory *)f)->set;
    for (uint32_t id = 0; id < tu->nnames; id++)
        if (tu->names[id].group == (int32_t)group && mask_of(set, tu, id))
            return 1;
    return 0;
}

/* ---- firing --------------------------------------------------------------- */

static int allowed(struct trigger *t)
{
    if (t->once)
        return !__atomic_exchange_n(&t->last_ns, 1, __ATOMIC_RELAXED);
    if (!t->every_ns)
        return 1;
    uint64_t now = tf__now_ns(), last = __atomic_load_n(&t->last_ns, __ATOMIC_RELAXED);
    if (last && now - last < t->every_ns)
        return 0;
    return __atomic_compare_exchange_n(&t->last_ns, &last, now, 0, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED);
}

static void act(const struct trigger *t)
{
    char err[TF_FILES_WHY + 320] = "";
    int rc = 0;
    switch (t->action) {
    case A_REGISTER:
        rc = tf__register_external(t->group, t->factory, "trigger");
        break;
    case A_CLEAR:
        rc = tf_clear(t->group);
        break;
    case A_SNAPSHOT:
        rc = tf__action_snapshot(t->path[0] ? t->path : NULL, err, sizeof err);
        break;
    case A_REPORT:
        rc = tf__action_report(t->path[0] ? t->path : "-", NULL, err, sizeof err);
        break;
    }
    if (rc && err[0]) { /* the text is escaped already; err may quote a path */
        fprintf(stderr, "tf: trigger '%s': ", t->text);
        tf__config_escaped(stderr, err);
        fputc('\n', stderr);
    }
}

static void fire(struct trigger *t)
{
    if (!live(t))
        return;
    if (!allowed(t)) {
        __atomic_fetch_add(&t->suppressed, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_fetch_add(&t->fired, 1, __ATOMIC_RELAXED);
    int saved = errno;
    tf__in_monitor = 1;
    act(t);
    tf__in_monitor = 0;
    errno = saved;
}

/* ---- the watcher monitor ---------------------------------------------------- */

struct watch {
    tf_monitor base;
    const struct trigger_set *set; /* its factory's */
    uint32_t masks[];              /* per id: the triggers of set naming it */
};

static void fire_all(const struct watch *w, uint32_t mask, int event, const tf_cframe *f, uint64_t ns)
{
    for (int k = 0; mask; k++, mask >>= 1) {
        struct trigger *t = w->set->t[k];
        if ((mask & 1) && t->event == event && (f->flags & (1u << k)) &&
            tf__cond_time_ok(&t->cond, ns))
            fire(t);
    }
}

static void w_enter(tf_monitor *self, int id, const tf_args *args)
{
    struct watch *w = (void *)self;
    uint32_t mask = w->masks[id];
    if (!mask || tf__in_monitor)
        return;
    tf_cframe *f = tf__cframe_push(w, TF_CALLER_SP(), id);
    if (!f)
        return;
    f->t0 = tf__now_ns();
    for (int k = 0; k < w->set->n; k++) {
        if (!(mask >> k & 1))
            continue;
        struct trigger *t = w->set->t[k];
        tf__cond_note(&t->cond, &t->args, args);
        if (tf__cond_enter_ok(&t->cond, f->depth, args))
            f->flags |= 1u << k;
    }
    fire_all(w, mask, EV_ENTER, f, 0);
}

static void w_exit(tf_monitor *self, int id, const tf_value *result)
{
    struct watch *w = (void *)self;
    if (!w->masks[id] || tf__in_monitor)
        return;
    tf_cframe *f = tf__cframe_find(w, TF_CALLER_SP(), id);
    if (!f)
        return;
    fire_all(w, w->masks[id], EV_EXIT, f, tf__now_ns() - f->t0);
    tf__cframe_pop(f);
}

static void w_exception(tf_monitor *self, int id, const tf_exception *exc)
{
    struct watch *w = (void *)self;
    if (!w->masks[id] || tf__in_monitor)
        return;
    tf_cframe *f = tf__cframe_find(w, TF_CALLER_SP(), id);
    if (f && !(f->flags & THROWN)) { /* a throw then its unwind: one exception */
        f->flags |= THROWN;
        fire_all(w, w->masks[id], EV_THROW, f, tf__now_ns() - f->t0);
    }
}

static void w_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp)
{
}

static void w_destroy(tf_monitor *self)
{
    free(self);
}

static const tf_monitor_ops watch_ops = {
    .enter = w_enter, .info = w_info, .exit = w_exit, .exception = w_exception,
    .destroy = w_destroy
};

static tf_monitor *watch_create(tf_factory *self, const tf_tu *tu)
{
    struct watch *w = calloc(1, sizeof *w + (tu->nnames ? tu->nnames : 1) * sizeof w->masks[0]);
    if (!w)
        return NULL;
    w->base = (tf_monitor){&watch_ops, tu, self};
    w->set = &((struct watch_factory *)self)->set;
    for (uint32_t id = 0; id < tu->nnames; id++)
        w->masks[id] = mask_of(w->set, tu, id);
    return &w->base;
}

/* Add_lock held: the triggers become set, with a new factory for them (the
 * registry caches monitors by factory, and a watcher's masks are computed
 * when it is created). 0, or -1 out of memory and nothing changed. */
static int change_to(const struct trigger_set *set)
{
    struct watch_factory *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    f->base = (tf_factory){"trigger", watch_create, TF_FACTORY_NO_GUARD};
    f->set = *set;
    f->older = latest;
    triggers = *set;
    latest = f;
    return 0;
}

/* Hands the newest watcher factory to the registry, outside add_lock (the
 * registry makes monitors: foreign code). Two changes at once may hand
 * theirs in either order, so each tries again until the newest is in. */
static void rewatch(void)
{
    for (;;) {
        pthread_mutex_lock(&add_lock);
        struct watch_factory *f = latest;
        pthread_mutex_unlock(&add_lock);
        tf__registry_watch(&f->base, wants);
        pthread_mutex_lock(&add_lock);
        int newest = f == latest;
        pthread_mutex_unlock(&add_lock);
        if (newest)
            return;
    }
}

/* ---- parsing ------------------------------------------------------------------ */

static int parse_event(tf_cursor *c, struct trigger *t)
{
    static const char *const events[] = {"enter", "exit", "throw"};
    for (int e = 0; e < 3; e++)
        if (tf__cur_keyword(c, events[e])) {
            t->event = e;
            return 0;
        }
    return tf__cur_fail_word(c, events, 3, "expected an event: enter, exit or throw");
}

static int is_mode_word(tf_cursor *c)
{
    size_t at = c->i;
    int yes = tf__cur_keyword(c, "once") || tf__cur_keyword(c, "every");
    c->i = at;
    return yes;
}

static int parse_action(tf_cursor *c, struct trigger *t, int from_socket)
{
    static const char *const actions[] = {"register", "clear", "snapshot", "report"};
    int a = 0;
    while (a < 4 && !tf__cur_keyword(c, actions[a]))
        a++;
    if (a == 4)
        return tf__cur_fail_word(c, actions, 4, "expected an action: register, clear, snapshot or report");
    t->action = a;
    if (a == A_REGISTER) {
        t->factory = tf__parse_registration(c, t->group, sizeof t->group, "a trigger's register action");
        return t->factory ? 0 : -1;
    }
    tf__cur_ws(c);
    if (a == A_CLEAR && !tf__cur_token(c, t->group, sizeof t->group, ""))
        return tf__cur_fail(c, "clear needs a group");
    size_t at = c->i;
    if (a != A_CLEAR && c->s[c->i] && !is_mode_word(c) &&
        tf__cur_token(c, t->path, sizeof t->path, "") >= sizeof t->path)
        return tf__cur_fail(c, "path longer than %zu bytes", sizeof t->path - 1);
    size_t end = c->i;
    c->i = at; /* a path refused is shown where it starts */
    if (t->path[0] && from_socket && tf__control_path_allowed(c, t->path) != 0)
        return -1;
    c->i = end;
    return 0;
}

static int parse_mode(tf_cursor *c, struct trigger *t)
{
    if (tf__cur_keyword(c, "once"))
        t->once = 1;
    else if (tf__cur_keyword(c, "every") && tf__cur_duration(c, &t->every_ns) < 0)
        return -1;
    tf__cur_ws(c);
    static const char *const modes[] = {"once", "every"};
    if (c->s[c->i])
        return tf__cur_fail_word(c, modes, 2, "expected 'once', 'every DURATION' or the end");
    return 0;
}

static int parse(tf_cursor *c, struct trigger *t, int from_socket)
{
    tf__cur_ws(c);
    size_t n = tf__cur_token(c, t->func, sizeof t->func, ":");
    if (!n)
        return tf__cur_fail(c, "expected a function (a glob on <tu>.<name>)");
    if (n >= sizeof t->func)
        return tf__cur_fail(c, "function glob too long");
    tf__cur_ws(c);
    if (c->s[c->i] != ':')
        return tf__cur_fail(c, "expected ':' and an event after the function");
    c->i++;
    if (parse_event(c, t) < 0)
        return -1;
    if (tf__cur_keyword(c, "if") && tf__cond_parse(c, &t->cond) < 0)
        return -1;
    tf__cur_ws(c);
    if (strncmp(c->s + c->i, "->", 2) != 0)
        return tf__cur_fail(c, "expected 'if' or '->' and an action");
    c->i += 2;
    if (parse_action(c, t, from_socket) < 0)
        return -1;
    return parse_mode(c, t);
}

static void check_at_exit(void);
static void check_later(void)
{
    tf__at_exit(check_at_exit);
}

/* A trigger from tf-ctl is for the code loaded now: one that could never
 * fire is refused, saying why (docs/design.md .silent.nearest). */
static int fires_never(tf_cursor *c, const struct trigger *t, size_t start)
{
    tf_pending *seen = tf__pending_function(t->func);
    if (!seen)
        return tf__cur_fail(c, "out of memory");
    int rc = 0;
    char shown[96];
    tf__escape(shown, sizeof shown, t->func);
    c->i = start;
    if (tf__pending_info_only(seen)) {
        rc = tf__cur_fail(c, "'%s' names only info functions, which have no enter, exit or throw "
                             "of their own: trigger on the monitored function that calls them; "
                             "nothing added", shown);
    } else if (!tf__pending_matched(seen)) {
        char hint[256];
        tf__pending_hint(seen, hint, sizeof hint);
        rc = tf__cur_fail(c, "no monitored function of the code loaded matches '%s'; nothing added%s%s",
                          shown, *hint ? "; " : "", hint);
    }
    tf__pending_free(seen);
    if (rc == 0 && (t->action == A_REGISTER || t->action == A_CLEAR)) {
        const char *arrow = strstr(c->s, "->"), *g = arrow ? strstr(arrow, t->group) : NULL;
        rc = tf__group_unknown(c, t->group, g ? (size_t)(g - c->s) : 0, "nothing added");
    }
    return rc;
}

int tf__trigger_add(tf_cursor *c, const char *who, int from_socket, int item)
{
    struct trigger *t = calloc(1, sizeof *t);
    if (!t)
        return tf__cur_fail(c, "out of memory");
    tf__cur_ws(c);
    size_t start = c->i;
    tf__escape(t->text, sizeof t->text, c->s + c->i);
    if (parse(c, t, from_socket) < 0 || (!item && fires_never(c, t, start) < 0)) {
        free(t);
        return -1;
    }
    t->item = item;
    if (item) /* TF_TRIGGERS: checked at exit against what loaded meanwhile */
        t->seen = tf__pending_function(t->func);
    pthread_mutex_lock(&add_lock);
    int full = triggers.n == MAX_TRIGGERS, number = 0;
    struct trigger_set more = triggers;
    if (!full) {
        more.t[more.n++] = t;
        if (change_to(&more) == 0)
            number = t->number = next_number++;
    }
    pthread_mutex_unlock(&add_lock);
    if (full || !number) {
        free(t);
        c->i = start;
        return full ? tf__cur_fail(c, "already %d triggers, the most there can be at once; remove "
                                      "one first (untrigger N)", MAX_TRIGGERS)
                    : tf__cur_fail(c, "out of memory");
    }
    rewatch();
    static pthread_once_t checked = PTHREAD_ONCE_INIT;
    pthread_once(&checked, check_later);
    return number;
}

int tf__trigger_remove(int number)
{
    pthread_mutex_lock(&add_lock);
    struct trigger_set fewer = {0, {0}};
    struct trigger *gone = NULL;
    for (int k = 0; k < triggers.n; k++) {
        if (triggers.t[k]->number == number)
            gone = triggers.t[k];
        else
            fewer.t[fewer.n++] = triggers.t[k];
    }
    int rc = !gone ? TF_ENOENT : change_to(&fewer) != 0 ? TF_ENOMEM : TF_OK;
    if (rc == TF_OK) /* older watchers, still in calls begun before, skip it */
        __atomic_store_n(&gone->removed, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&add_lock);
    if (rc == TF_OK)
        rewatch();
    return rc;
}

void tf__trigger_list(FILE *out)
{
    pthread_mutex_lock(&add_lock);
    for (int k = 0; k < triggers.n; k++) {
        const struct trigger *t = triggers.t[k];
        fprintf(out, "%d: %s  (fired %lu, suppressed %lu)\n", t->number, t->text,
                __atomic_load_n(&t->fired, __ATOMIC_RELAXED),
                __atomic_load_n(&t->suppressed, __ATOMIC_RELAXED));
    }
    pthread_mutex_unlock(&add_lock);
}

/* At exit, one live trigger: a TF_TRIGGERS item whose function glob matched
 * no monitored function of the code that was loaded (it could not fire), a
 * condition on an argument no call had, an action on a group nothing
 * declares; each with why. */
static void check_one(struct trigger *t)
{
    char hint[256] = "", shown[96], why[1024];
    if (t->seen && !tf__pending_matched(t->seen)) {
        tf__escape(shown, sizeof shown, t->func);
        if (tf__pending_info_only(t->seen))
            snprintf(hint, sizeof hint, "'%s' names only info functions, which have no enter, exit "
                                        "or throw of their own: trigger on the monitored function "
                                        "that calls them", shown);
        else
            tf__pending_hint(t->seen, hint, sizeof hint);
        fprintf(stderr, "tf: TF_TRIGGERS: item %d '%s' matched no monitored function of the code "
                        "loaded: it never fired%s%s\n", t->item, t->text, *hint ? "; " : "", hint);
    }
    if (tf__cond_unmet(&t->cond, &t->args, why, sizeof why))
        fprintf(stderr, "tf: %s %d: %s\n", t->item ? "TF_TRIGGERS: item" : "tf-ctl trigger",
                t->item ? t->item : t->number, why);
    if (t->seen && (t->action == A_REGISTER || t->action == A_CLEAR) && !tf_group_known(t->group)) {
        tf__hint_group(t->group, hint, sizeof hint);
        tf__escape(shown, sizeof shown, t->group);
        fprintf(stderr, "tf: TF_TRIGGERS: item %d '%s': no loaded code declares group '%s': "
                        "its action did nothing%s%s\n", t->item, t->text, shown,
                *hint ? "; " : "", hint);
    }
}

static void check_at_exit(void)
{
    pthread_mutex_lock(&add_lock);
    struct trigger_set live_ones = triggers;
    pthread_mutex_unlock(&add_lock);
    for (int k = 0; k < live_ones.n; k++)
        check_one(live_ones.t[k]);
}

int tf__trigger_env(const char *value, FILE *err)
{
    char *copy = strdup(value);
    if (!copy)
        return 1;
    int nbad = 0, index = 0;
    for (char *item = copy, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        index++;
        item += strspn(item, " \t\r\n"); /* columns count from the item's first word */
        tf_cursor c = {.s = item};
        if (!*item || tf__trigger_add(&c, "environment", 0, index) > 0)
            continue;
        char where[80];
        fprintf(err, "tf: TF_TRIGGERS: item %d, column %zu: %s (%s)\n", index, c.errcol, c.err,
                tf__cur_where(&c, where, sizeof where));
        nbad++;
    }
    free(copy);
    return nbad;
}

void tf__trigger_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&add_lock);
    else
        pthread_mutex_unlock(&add_lock);
}

int tf__trigger_count(void)
{
    pthread_mutex_lock(&add_lock);
    int n = triggers.n;
    pthread_mutex_unlock(&add_lock);
    return n;
}
