/*
 * env.c: activation from the environment (docs/design.md .use.env; the
 * MPS_TELEMETRY_CONTROL idea). The variables themselves are read in config.c;
 * this file applies them:
 *
 *   TF_MONITORS='io=dprint,io_read=timing+tracer'   group=factory[+factory...]
 *   TF_MONITORS='io=dprint if time > 10ms'          ... [if CONDITION] (runtime/control)
 *   TF_OUTPUT=FILE   where dprint writes (default stderr)
 *
 * A bad item is reported once on stderr, naming it; the other items still
 * apply. An item naming a factory nobody registered (nor libtf-NAME.so
 * provides) waits: a library the program links registers its factories in
 * its constructor, after libtf's has run. What still waits at exit is
 * reported then, as is a group that no loaded code declares, so a typo never
 * silently traces nothing.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "config.h"

#define OUTPUT_BUFFER (1 << 16)

static FILE *output;
/* Groups TF_MONITORS named, in order (checked at exit), and a hash index
 * of them (open addressing, at most half full): 100,000 groups start fast. */
static char **asked;
static size_t nasked, asked_cap;
static char **asked_index;
static size_t index_cap;

/* Items are applied in order by one thread at a time (start-up, and each
 * new factory that an item waits for), without the lock (docs/design.md
 * .lock.foreign): looking a factory up may load its library, and making and
 * registering it runs foreign code, any of which may fork or add factories.
 * A thread that finds items being applied (by another thread, or by itself
 * further up its stack, when a library's constructor adds a factory) notes
 * that they should be tried again and leaves it to the applier. The lock
 * keeps the lists here, the applier and TF_OUTPUT's stream. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t applier; /* the thread applying items, or 0 */
static int again;     /* try the waiting items once more */
static int last_try;  /* exit: what still waits is reported */
struct waiting {
    char *item;
    int index;
    struct waiting *next;
};
static struct waiting *waiting, **waiting_end = &waiting;

static FILE *open_output(void)
{
    const char *path = tf__config_get("TF_OUTPUT");
    if (!path || strcmp(path, "-") == 0)
        return output = stderr;
    output = tf__create_file("TF_OUTPUT", path, TF_FILE_DPRINT, tf__env_file_flags() | TF_FILES_SHARED, NULL);
    if (!output) {
        fprintf(stderr, "tf: TF_OUTPUT: dprint writes to stderr instead\n");
        return output = stderr;
    }
    /* Fully buffered unless asked otherwise: a line per write(2) made dprint to
     * a file 9x slower. dprint flushes it at least every 100 ms of tracing, at
     * fork and on a fatal signal (dprint.c); exit flushes all stdio. */
    int line = strcmp(tf__config_get("TF_OUTPUT_BUFFER"), "line") == 0;
    /* glibc ignores the size unless given the buffer; dprint must know it
     * to end every write at a line's end. Given line by line too: stdio
     * would malloc it at the first line, maybe in a signal handler that
     * interrupted malloc. Kept for the process. */
    char *buffer = malloc(OUTPUT_BUFFER);
    setvbuf(output, buffer, buffer && !line ? _IOFBF : _IOLBF, buffer ? OUTPUT_BUFFER : 0);
    tf__dprint_buffered(output, buffer && !line ? OUTPUT_BUFFER : 0);
    return output;
}

FILE *tf__env_output(void)
{
    pthread_mutex_lock(&lock);
    FILE *out = output ? output : open_output();
    pthread_mutex_unlock(&lock);
    return out;
}

unsigned tf__env_file_flags(void)
{
    return TF_FILES_APPEND | (strcmp(tf__config_get("TF_OVERWRITE"), "1") == 0 ? TF_FILES_OVERWRITE : 0);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = 0;
    return s;
}

static int identifier(const char *s)
{
    if (!*s || isdigit((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* "tf: VAR: item N 'ITEM': WHY 'WHAT'[; MORE]", escaped. */
static int bad_item(const char *var, int index, const char *item, const char *why, const char *what,
                    const char *more)
{
    fprintf(stderr, "tf: %s: item %d '", var, index);
    tf__config_escaped(stderr, item);
    fprintf(stderr, "': %s", why);
    if (what) {
        fprintf(stderr, " '");
        tf__config_escaped(stderr, what);
        fprintf(stderr, "'");
    }
    if (more && *more) {
        fprintf(stderr, "; ");
        tf__config_escaped(stderr, more);
    }
    fprintf(stderr, "\n");
    return 1;
}

static int bad(int index, const char *item, const char *why, const char *what, const char *more)
{
    return bad_item("TF_MONITORS", index, item, why, what, more);
}

static int unknown_factory(int index, const char *item, const char *name, const char *more)
{
    char *known = tf__factories_known(), *why = NULL, hint[256], both[1024];
    if (!known || asprintf(&why, "unknown factory (known: %s)", known) < 0)
        why = NULL;
    tf__hint_factory(name, hint, sizeof hint);
    snprintf(both, sizeof both, "%s%s%s", more, *more && *hint ? "; " : "", hint);
    int rc = bad(index, item, why ? why : "unknown factory", name, both);
    free(why);
    free(known);
    return rc;
}

/* A name no factory can have (tf_env_add_factory refuses it) waits for
 * nothing: said at once. "app=dprint;stats=timing" is two items. */
static int bad_factory_name(int index, const char *item, const char *name)
{
    int separator = strpbrk(name, ";:=|& \t") != NULL;
    return bad(index, item, "bad factory name", name,
               separator ? "items are separated by ','"
                         : "a factory name is letters, digits, '_' and '-'");
}

/* The slot of group in asked_index: where it is, or the empty one to put it. */
static char **index_slot(char **table, size_t cap, const char *group)
{
    size_t h = 14695981039346656037u; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)group; *c; c++)
        h = (h ^ *c) * 1099511628211u;
    for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!table[i] || strcmp(table[i], group) == 0)
            return &table[i];
}

/* Lock held. */
static int asked_for(const char *group)
{
    return asked_index && *index_slot(asked_index, index_cap, group);
}

/* Both arrays have room for one more group; 0 when out of memory. */
static int asked_room(void)
{
    if (nasked == asked_cap) {
        size_t cap = asked_cap ? 2 * asked_cap : 16;
        char **v = realloc(asked, cap * sizeof *v);
        if (!v)
            return 0;
        asked = v;
        asked_cap = cap;
    }
    if (2 * (nasked + 1) <= index_cap)
        return 1;
    size_t cap = index_cap ? 2 * index_cap : 32;
    char **table = calloc(cap, sizeof *table);
    if (!table)
        return 0;
    for (size_t i = 0; i < nasked; i++)
        *index_slot(table, cap, asked[i]) = asked[i];
    free(asked_index);
    asked_index = table;
    index_cap = cap;
    return 1;
}

static void remember(const char *group)
{
    if (asked_for(group))
        return;
    if (!asked_room() || !(asked[nasked] = strdup(group))) {
        fprintf(stderr, "tf: TF_MONITORS: out of memory: a later item on group '%s' replaces "
                        "this one instead of adding to it\n", group);
        return;
    }
    *index_slot(asked_index, index_cap, group) = asked[nasked];
    nasked++;
}

/* Registers group = compose(what an earlier item gave it, fs), so that
 * io=dprint,io=tracer keeps both. fs has room for one more in front. */
static void apply(const char *group, tf_factory **fs, size_t n)
{
    pthread_mutex_lock(&lock);
    int earlier_item = asked_for(group);
    pthread_mutex_unlock(&lock);
    tf_factory *earlier = earlier_item ? tf_registered_factory(group) : NULL;
    if (earlier) {
        memmove(fs + 1, fs, n * sizeof *fs);
        fs[0] = earlier;
        n++;
    }
    tf_factory *f = n == 1 ? fs[0] : tf_compose(fs, n);
    if (!f || tf__register_trusted(group, f) != TF_OK)
        fprintf(stderr, "tf: TF_MONITORS: out of memory: nothing registered on group '%s'\n", group);
    pthread_mutex_lock(&lock);
    remember(group);
    pthread_mutex_unlock(&lock);
}

enum { APPLIED, REPORTED, WAITS };

/* Resolves "f1+f2" into fs (room for one per name, plus one); reports the
 * item if a name is bad, returns WAITS if one is merely unknown. */
static int resolve(char *list, tf_factory **fs, size_t *n, int index, const char *shown, int last)
{
    *n = 0;
    for (char *name = list, *next; name; name = next) {
        next = strchr(name, '+');
        if (next)
            *next++ = 0;
        name = trim(name);
        if (!*name) {
            bad(index, shown, "empty factory name", NULL, NULL);
            return REPORTED;
        }
        if (!tf__factory_name_valid(name)) {
            bad_factory_name(index, shown, name);
            return REPORTED;
        }
        char why[512];
        int unknown;
        tf_factory *f = tf__factory_named(name, &unknown, why, sizeof why);
        if (unknown && !why[0] && !last)
            return WAITS;
        if (unknown) {
            unknown_factory(index, shown, name, why);
            return REPORTED;
        }
        if (!f) {
            bad(index, shown, "factory could not be created", name, why);
            return REPORTED;
        }
        fs[(*n)++] = f;
    }
    return APPLIED;
}

/* Registers fs on group, wrapped in the condition cond (at column col of
 * the item) if there is one. */
static int apply_cond(const char *group, tf_factory **fs, size_t n, const char *cond, size_t col,
                      int index)
{
    if (cond) {
        tf_factory *f = tf__cond_wrap(cond, col, fs, n, index);
        if (!f)
            return REPORTED;
        fs[0] = f;
        n = 1;
    }
    apply(group, fs, n);
    return APPLIED;
}

/* last: no more factories can come (exit), so an unknown one is reported. */
static int apply_item(const char *text, int index, int last)
{
    char *item = strdup(text);
    tf_factory **fs = item ? calloc(strlen(item) / 2 + 3, sizeof *fs) : NULL;
    if (!fs) {
        free(item);
        bad(index, text, "out of memory", NULL, NULL);
        return REPORTED;
    }
    int rc = REPORTED;
    char *eq = strchr(item, '=');
    char *group = NULL, *list = NULL;
    if (eq) {
        *eq = 0;
        group = trim(item);
        list = trim(eq + 1);
    }
    char *cond = eq ? strstr(list, " if ") : NULL;
    if (cond)
        *cond = 0; /* "group=f1+f2 if CONDITION" (runtime/control) */
    size_t n;
    if (!eq)
        bad(index, text, "expected group=factory[+factory...]", NULL, NULL);
    else if (!identifier(group))
        bad(index, text, *group ? "bad group name" : "empty group name", *group ? group : NULL, NULL);
    else if ((rc = resolve(list, fs, &n, index, text, last)) == APPLIED)
        rc = apply_cond(group, fs, n, cond ? cond + 4 : NULL, cond ? (size_t)(cond + 4 - item) : 0, index);
    free(fs);
    free(item);
    return rc;
}

/* Lock held. Queues item (number index of TF_MONITORS) to be applied. */
static void queue_item(const char *item, int index)
{
    struct waiting *w = calloc(1, sizeof *w);
    if (!w || !(w->item = strdup(item))) {
        free(w);
        bad(index, item, "out of memory", NULL, NULL);
        return;
    }
    w->index = index;
    *waiting_end = w;
    waiting_end = &w->next;
}

/* Lock held. Puts the items of keep, which still wait, back in front of
 * those queued meanwhile. */
static void requeue(struct waiting *keep, struct waiting **keep_end)
{
    if (!keep)
        return;
    *keep_end = waiting;
    if (!waiting)
        waiting_end = keep_end;
    waiting = keep;
}

/* Applies the queued items, in order, as far as they can be now; last: no
 * factory can come any more, so an unknown one is reported. */
static void apply_waiting(int last)
{
    pid_t self = gettid();
    pthread_mutex_lock(&lock);
    again = 1;
    last_try |= last;
    if (applier) { /* it goes round again before it stops */
        pthread_mutex_unlock(&lock);
        return;
    }
    applier = self;
    while (again) {
        again = 0;
        int final = last_try;
        struct waiting *w = waiting, *keep = NULL, **keep_end = &keep;
        waiting = NULL;
        waiting_end = &waiting;
        pthread_mutex_unlock(&lock);
        for (struct waiting *next; w; w = next) {
            next = w->next;
            w->next = NULL;
            if (apply_item(w->item, w->index, final) == WAITS) {
                *keep_end = w;
                keep_end = &w->next;
            } else {
                free(w->item);
                free(w);
            }
        }
        pthread_mutex_lock(&lock);
        requeue(keep, keep_end);
    }
    applier = 0;
    pthread_mutex_unlock(&lock);
}

static void factory_added(void)
{
    apply_waiting(0);
}

tf_factory *tf__env_factory(const char *name, int *unknown, char *why, size_t len)
{
    tf_factory *f = tf__factory_named(name, unknown, why, len);
    apply_waiting(0); /* making f may have published what an item waits for */
    return f;
}

static void queue_all(const char *value)
{
    char *copy = strdup(value);
    int index = 0;
    if (!copy)
        fprintf(stderr, "tf: TF_MONITORS: out of memory; ignored\n");
    pthread_mutex_lock(&lock);
    /* strtok would merge empty items: walk the commas by hand. */
    for (char *item = copy, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        index++;
        char *t = trim(item);
        if (*t)
            queue_item(t, index);
    }
    pthread_mutex_unlock(&lock);
    free(copy);
}

static void check_at_exit(void)
{
    apply_waiting(1);
    pthread_mutex_lock(&lock);
    tf_names declared = {NULL, 0, 0};
    int taken = 0;
    for (size_t i = 0; i < nasked; i++) {
        if (tf_group_known(asked[i]))
            continue;
        char hint[256];
        if (!taken++)
            declared = tf__declared_groups();
        tf__names_hint(&declared, asked[i], hint, sizeof hint);
        fprintf(stderr, "tf: TF_MONITORS: no loaded code declares group '%s': "
                        "nothing was traced for it%s%s\n", asked[i], *hint ? "; " : "", hint);
    }
    tf__names_free(&declared);
    pthread_mutex_unlock(&lock);
}

/* fork: first in the runtime's lock order. A child has only the forking
 * thread: if another was applying items, none is now (the items it held
 * are lost to the child, which inherits what they registered so far). */
void tf__env_fork(int phase)
{
    if (phase == TF_FORK_PREPARE) {
        pthread_mutex_lock(&lock);
        return;
    }
    if (phase == TF_FORK_CHILD && applier != gettid())
        applier = 0;
    pthread_mutex_unlock(&lock);
}

/* "tf: TF_SELECT: item N 'ITEM': WHY; the other items apply", escaped. */
static void bad_select(int index, const char *item, size_t len, const char *why, void *arg)
{
    char *copy = strndup(item, len);
    bad_item("TF_SELECT", index, copy ? copy : "?", why, NULL,
             index ? "the other items apply" : "nothing is deselected");
    free(copy);
}

static tf_pending **select_seen; /* by item, NULL where out of memory */
static size_t nselect;

static void unmatched_select(int index, const char *item, void *arg)
{
    fprintf(stderr, "tf: TF_SELECT: item %d '", index);
    tf__config_escaped(stderr, item);
    char hint[256] = "";
    if (index >= 1 && (size_t)index <= nselect && select_seen[index - 1])
        tf__pending_hint(select_seen[index - 1], hint, sizeof hint);
    fprintf(stderr, "' matched no monitored function of the code loaded: it changed nothing%s%s\n",
            *hint ? "; " : "", hint);
}

/* Each TF_SELECT item's glob, watched for "did you mean" at exit (hints.c). */
static void watch_select(const char *value)
{
    for (const char *p = value; *p;) {
        size_t n = strcspn(p, ",");
        char *item = strndup(p, n);
        tf_pending **more = item ? realloc(select_seen, (nselect + 1) * sizeof *more) : NULL;
        if (!more) {
            free(item);
            return;
        }
        select_seen = more;
        char *glob = trim(item);
        select_seen[nselect++] = tf__pending_function(glob + (*glob == '+' || *glob == '-'));
        free(item);
        p += n + (p[n] == ',');
    }
}

static void check_select_at_exit(void)
{
    tf__select_each_unmatched(unmatched_select, NULL);
}

void tf__env_init(void)
{
    tf__files_overwrite_hint = "set TF_OVERWRITE=1";
    if (strcmp(tf__config_get("TF_HELP"), "1") == 0) {
        tf__config_help(stderr);
        tf__factories_help(stderr);
    }
    tf__out_init(); /* before any monitor is made: TF_OUT's items never change after */
    const char *select = tf__config_get("TF_SELECT");
    if (select) {
        watch_select(select);
        tf__select(select, TF__SELECT_ENV, bad_select, NULL);
        tf__at_exit(check_select_at_exit);
    }
    const char *monitors = tf__config_get("TF_MONITORS");
    if (!monitors)
        return;
    tf__factories_on_add(factory_added);
    queue_all(monitors);
    apply_waiting(0);
    tf__at_exit(check_at_exit);
}
