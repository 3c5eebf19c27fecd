/*
 * registry.c: the MethodMonitorRegistry (docs/design.md .reg).
 *
 * State: the process-wide group graph (merged by name over every TU), the
 * factory registered on each group, and the registered TUs with, for each of
 * their groups, the monitor now in the holder. Every change recomputes which
 * monitor each holder should have and stores it with release order; the hooks
 * load it with acquire order and never take a lock.
 *
 * Reclamation (.req: never free a monitor in use): a frame keeps using the
 * monitor it loaded at entry for the whole call, which may last as long as the
 * program. So a monitor swapped out of a holder is kept, cached by the set of
 * factories that made it (registering the same factories again reuses it), and
 * destroyed only when its TU is unregistered (dlclose: no code of the TU runs
 * any more). Registration is rare; this bounds memory by the distinct factory
 * sets ever used.
 *
 * Foreign code (docs/design.md .lock.foreign): a factory's create and a
 * monitor's destroy are user code that may fork, dlopen or call back into
 * the registry, so they never run under the lock. A change is made in two
 * steps: under the lock, holders whose monitor already exists are set and
 * the missing monitors listed; without it, those are created; then, under
 * the lock again, they are attached and published (settle_locked). A TU is
 * not unregistered while a monitor is being created for it (pinned).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* The plugins read these offsets (docs/code-shape.md): the ops table's
 * entries at 0/8/16/24 and its flags at 48. */
_Static_assert(offsetof(tf_monitor_ops, exception) == 24, "tf_monitor_ops layout");
_Static_assert(offsetof(tf_monitor_ops, flags) == 48, "tf_monitor_ops.flags offset");

/* Edges are only ever added; readers without the lock load n, then v (both
 * acquire), so they see v at least as large as n says. A full array is
 * replaced by one twice its size; the old one stays linked (never freed:
 * at most as much again as the live ones), as a reader may still hold it. */
struct edge_array {
    struct edge_array *older;
    struct group *v[];
};

struct edges {
    struct edge_array *a;
    int n, cap;
};

struct group {
    char *name;             /* never changes; groups are never freed */
    int declared;           /* by a registered TU (not merely registered on) */
    tf_factory *factory;
    struct edges subs, parents;
    struct group *next;     /* every group, newest first */
    struct group *hnext;    /* the next in its bucket */
};

struct made {               /* a monitor created for one holder */
    tf_factory **set;       /* the factories it composes, in order */
    int n;
    tf_monitor *monitor;
    struct made *next;
};

struct slot {               /* one group of a TU */
    struct group *group;
    struct made *current;   /* NULL: holder is NULL */
    struct made *made;      /* every monitor created for this holder */
};

struct tu_entry {
    tf_tu *tu;
    struct slot *slots;     /* tu->ngroups of them */
    unsigned char *off;     /* ABI 3 (tu->slots): off[id], why function id is off: OFF_* bits */
    int warned;             /* an unslotted TU the selection could not apply to */
    int dying;              /* being unregistered: no more monitors made for it */
    struct tu_entry *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER; /* a settle ended its round */
static struct group *groups;
/* Groups by name hash (TF_MONITORS may name 100,000 of them): a fixed number
 * of buckets, allocated with the first group, so lock-free readers need no
 * rehash protocol; chains grow only at their head, published with release. */
#define GROUP_BUCKETS (1u << 16)
static struct group **buckets;
static struct tu_entry *tus;
static tf_factory *watcher;
static int (*watcher_wants)(tf_factory *f, const tf_tu *tu, uint32_t group);
static tf_factory *everywhere; /* the watchdog's (tf__registry_watch_every) */
static tf_factory *meter;      /* the overhead budget's (tf__registry_meter) */
static void (*observer)(const tf_tu *tu); /* tf__registry_observe */
static tf__monitor_maker maker;
static volatile int exiting;

struct need;

/* A settle in progress, on its thread's stack. Its TUs are not unregistered
 * meanwhile (a factory is reading them); a forked child drops the records
 * of the threads it does not have. */
struct settling {
    pid_t tid;
    struct tu_entry *only;  /* NULL: every TU */
    struct need *needs;     /* being created now */
    struct settling *next;
};
static struct settling *settling;

void tf__registry_set_maker(tf__monitor_maker make)
{
    pthread_mutex_lock(&lock);
    maker = make;
    pthread_mutex_unlock(&lock);
}

void tf__registry_exiting(void)
{
    exiting = 1;
}

/* A child has only the forking thread: the settles of the others will never
 * end there, and nobody waits for them. */
static void drop_other_settles(void)
{
    pid_t self = gettid();
    for (struct settling **p = &settling; *p;)
        if ((*p)->tid != self)
            *p = (*p)->next;
        else
            p = &(*p)->next;
    pthread_cond_init(&idle, NULL);
}

void tf__registry_fork(int phase)
{
    if (phase == TF_FORK_PREPARE) {
        pthread_mutex_lock(&lock);
        return;
    }
    if (phase == TF_FORK_CHILD)
        drop_other_settles();
    pthread_mutex_unlock(&lock);
}

/* ---- the group graph ------------------------------------------------------- */

static struct group **bucket_of(struct group **table, const char *name)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ *c) * 16777619u;
    return &table[h & (GROUP_BUCKETS - 1)];
}

static struct group *group_find(const char *name)
{
    struct group **table = __atomic_load_n(&buckets, __ATOMIC_ACQUIRE);
    struct group *g = table ? __atomic_load_n(bucket_of(table, name), __ATOMIC_ACQUIRE) : NULL;
    for (; g; g = g->hnext)
        if (strcmp(g->name, name) == 0)
            return g;
    return NULL;
}

static int edge_count(const struct edges *e)
{
    return __atomic_load_n(&e->n, __ATOMIC_ACQUIRE);
}

static struct group *edge_at(const struct edges *e, int i)
{
    return __atomic_load_n(&e->a, __ATOMIC_ACQUIRE)->v[i];
}

static struct group *group_get(const char *name)
{
    struct group *g = group_find(name);
    if (g)
        return g;
    if (!buckets) {
        struct group **table = calloc(GROUP_BUCKETS, sizeof *table);
        if (!table)
            return NULL;
        __atomic_store_n(&buckets, table, __ATOMIC_RELEASE);
    }
    g = calloc(1, sizeof *g);
    if (!g || !(g->name = strdup(name))) {
        free(g);
        return NULL;
    }
    struct group **head = bucket_of(buckets, name);
    g->hnext = *head;
    g->next = groups;
    __atomic_store_n(head, g, __ATOMIC_RELEASE);
    groups = g;
    return g;
}

static int reaches(const struct group *from, const struct group *to)
{
    if (from == to)
        return 1;
    for (int i = 0; i < from->subs.n; i++)
        if (reaches(edge_at(&from->subs, i), to))
            return 1;
    return 0;
}

/* Lock held. */
static int push_edge(struct edges *e, struct group *g)
{
    if (e->n == e->cap) {
        int cap = e->cap ? 2 * e->cap : 4;
        struct edge_array *a = malloc(sizeof *a + (size_t)cap * sizeof a->v[0]);
        if (!a)
            return TF_ENOMEM;
        a->older = e->a;
        if (e->n)
            memcpy(a->v, e->a->v, (size_t)e->n * sizeof a->v[0]);
        __atomic_store_n(&e->a, a, __ATOMIC_RELEASE);
        e->cap = cap;
    }
    e->a->v[e->n] = g;
    __atomic_store_n(&e->n, e->n + 1, __ATOMIC_RELEASE);
    return TF_OK;
}

/* Adds g -> sub unless present; a cycle is reported and the edge ignored
 * (a constructor cannot fail the program). */
static void add_edge(struct group *g, struct group *sub, const tf_tu *tu)
{
    for (int i = 0; i < g->subs.n; i++)
        if (edge_at(&g->subs, i) == sub)
            return;
    const char *file = tu->file, *from = g->name, *to = sub->name;
    TF_ESC_BUF(file);
    TF_ESC_BUF(from);
    TF_ESC_BUF(to);
    if (reaches(sub, g)) {
        TF_ESC(from);
        TF_ESC(to);
        fprintf(stderr,
                "tf: %s: subgroup cycle: '%s' is already a subgroup of '%s'; "
                "edge %s -> %s ignored\n",
                TF_ESC(file), from_esc, to_esc, from_esc, to_esc);
        return;
    }
    /* parents first: a reader walking up must never miss an edge the
     * subgroup list already shows */
    if (push_edge(&sub->parents, g) != TF_OK)
        fprintf(stderr, "tf: %s: out of memory: subgroup %s of %s not added: what is registered "
                        "on %s does not reach it\n", TF_ESC(file), TF_ESC(to), TF_ESC(from), TF_ESC(from));
    else if (push_edge(&g->subs, sub) != TF_OK)
        fprintf(stderr, "tf: %s: out of memory: edge %s -> %s only partly added\n", TF_ESC(file),
                TF_ESC(from), TF_ESC(to));
}

/* Grows v (which starts as the caller's array small, of *cap entries) to
 * twice its size; NULL if out of memory. Registration is common enough (a
 * program may register and clear in a loop) not to allocate each time. */
static void *grow(void *v, void *small, int *cap, size_t size)
{
    void *nv = v == small ? malloc(2 * (size_t)*cap * size) : realloc(v, 2 * (size_t)*cap * size);
    if (nv && v == small)
        memcpy(nv, small, (size_t)*cap * size);
    if (nv)
        *cap *= 2;
    return nv;
}

/* Visits h and every group containing it, nearest first, each once, until
 * visit returns nonzero; returns that, or TF_ENOMEM. Needs no lock. */
static int each_container(struct group *h, int (*visit)(struct group *, void *), void *arg)
{
    struct group *small[32], **queue = small;
    int head = 0, tail = 0, cap = 32, rc = 0;
    queue[tail++] = h;
    while (head < tail && !rc) {
        struct group *g = queue[head++];
        rc = visit(g, arg);
        for (int i = 0, n = edge_count(&g->parents); i < n && !rc; i++) {
            struct group *p = edge_at(&g->parents, i);
            int seen = 0;
            for (int j = 0; j < tail && !seen; j++)
                seen = queue[j] == p;
            if (seen)
                continue;
            struct group **q = tail < cap ? queue : grow(queue, small, &cap, sizeof *q);
            if (!q)
                rc = TF_ENOMEM;
            else
                (queue = q)[tail++] = p;
        }
    }
    if (queue != small)
        free(queue);
    return rc;
}

struct factory_set {
    tf_factory **v;
    int n, cap;
    tf_factory *small[16];
};

static int set_add(struct factory_set *s, tf_factory *f)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == f)
            return 0;
    if (s->n == s->cap) {
        tf_factory **v = grow(s->v, s->small, &s->cap, sizeof *v);
        if (!v)
            return TF_ENOMEM;
        s->v = v;
    }
    s->v[s->n++] = f;
    return 0;
}

static int add_factory(struct group *g, void *arg)
{
    return g->factory ? set_add(arg, g->factory) : 0;
}

/* The factories reaching group h: its own, then its ancestors' nearest first;
 * each factory once. Lock held; the caller calls set_free. */
static int factories_for(struct group *h, struct factory_set *s)
{
    s->v = s->small;
    s->n = 0;
    s->cap = 16;
    return each_container(h, add_factory, s);
}

/* The trigger watcher comes after the registered factories (it only
 * watches, so it sees the call after they did). */
static int watch_set(const tf_tu *tu, uint32_t group, struct factory_set *s)
{
    int rc = watcher && watcher_wants(watcher, tu, group) ? set_add(s, watcher) : 0;
    rc = rc == 0 && everywhere ? set_add(s, everywhere) : rc;
    return rc == 0 && meter && s->n ? set_add(s, meter) : rc; /* around what is there */
}

static void set_free(struct factory_set *s)
{
    if (s->v != s->small)
        free(s->v);
}

struct name_visit {
    int (*fn)(const char *, void *);
    void *arg;
};

static int visit_name(struct group *g, void *arg)
{
    struct name_visit *v = arg;
    return v->fn(g->name, v->arg);
}

int tf__group_each_container(const char *group, int (*fn)(const char *name, void *arg), void *arg)
{
    struct group *g = group ? group_find(group) : NULL;
    struct name_visit v = {fn, arg};
    return g ? each_container(g, visit_name, &v) : fn(group, arg);
}

int tf__group_each_subgroup(const char *group, int (*fn)(const char *name, void *arg), void *arg)
{
    struct group *g = group ? group_find(group) : NULL;
    int rc = 0;
    for (int i = 0, n = g ? edge_count(&g->subs) : 0; i < n && !rc; i++)
        rc = fn(edge_at(&g->subs, i)->name, arg);
    return rc;
}

/* ---- holders ----------------------------------------------------------------- */

static int same_set(const struct made *m, tf_factory *const *set, int n)
{
    return m->n == n && memcmp(m->set, set, (size_t)n * sizeof *set) == 0;
}

static struct made *made_find(struct slot *s, tf_factory *const *set, int n)
{
    for (struct made *m = s->made; m; m = m->next)
        if (same_set(m, set, n))
            return m;
    return NULL;
}

/* Keeps monitor (NULL: the factories made none, which is said once and not
 * asked again) as what set makes for s; NULL if out of memory. Lock held. */
static struct made *made_add(struct slot *s, tf_factory *const *set, int n, tf_monitor *monitor)
{
    struct made *m = calloc(1, sizeof *m);
    if (!m || !(m->set = malloc((size_t)n * sizeof *set))) {
        free(m);
        return NULL;
    }
    memcpy(m->set, set, (size_t)n * sizeof *set);
    m->n = n;
    m->monitor = monitor;
    m->next = s->made;
    s->made = m;
    return m;
}

/* ---- function slots (ABI 3) ------------------------------------------------- */

/* Why a function is off; either keeps its slot NULL. The selection is the
 * user's (TF_SELECT, tf_select, tf-ctl select); the budget's is libtf's own
 * (runtime/budget, docs/design.md .budget.shed), and survives a new selection. */
enum { OFF_SELECT = 1, OFF_BUDGET = 2 };

static int slotted(const tf_tu *tu)
{
    return tu->abi >= 3 && tu->size >= offsetof(tf_tu, slots) + sizeof tu->slots && tu->slots;
}

/* Each monitored function's slot: its group's monitor (the holder's), or
 * NULL if deselected. Rewritten whole when any holder of the TU changes or
 * the selection does: registration is rare, a TU's names are few. */
static void write_slot(struct tu_entry *e, uint32_t id)
{
    const tf_tu *tu = e->tu;
    int32_t g = tu->names[id].group;
    if (!(tu->names[id].flags & TF_NAME_MONITOR) || g < 0)
        return;
    struct made *cur = e->slots[g].current;
    __atomic_store_n(&tu->slots[id], e->off[id] || !cur ? NULL : cur->monitor, __ATOMIC_RELEASE);
}

static void write_slots(struct tu_entry *e)
{
    if (!e->off) /* no slots (ABI 1/2): the holders are all it has */
        return;
    for (uint32_t id = 0; id < e->tu->nnames; id++)
        write_slot(e, id);
}

/* off[] from the selection. A TU without slots follows its holders: said
 * once if the selection would switch some of its functions off. */
static void select_tu(struct tu_entry *e)
{
    const tf_tu *tu = e->tu;
    uint32_t skipped = 0;
    const char *example = NULL;
    for (uint32_t id = 0; id < tu->nnames; id++) {
        if (!(tu->names[id].flags & TF_NAME_MONITOR))
            continue;
        int off = !tf__select_wants(tu, tu->names[id].name);
        if (e->off)
            e->off[id] = (unsigned char)((e->off[id] & ~OFF_SELECT) | (off ? OFF_SELECT : 0));
        else if (off && !skipped++)
            example = tu->names[id].name;
    }
    if (skipped && !e->warned) {
        const char *file = tu->file;
        TF_ESC_BUF(file);
        TF_ESC_BUF(example);
        e->warned = 1;
        fprintf(stderr, "tf: %s: the selection cannot switch off '%s'%s: this TU was built with "
                        "TF_TU_ABI %u, without per-function slots; rebuild it with this TF\n",
                TF_ESC(file), TF_ESC(example), skipped > 1 ? " and others" : "", tu->abi);
    }
}

/* off[], for a TU with slots. */
static int alloc_off(struct tu_entry *e)
{
    if (slotted(e->tu) && !(e->off = calloc(e->tu->nnames ? e->tu->nnames : 1, 1)))
        return -1;
    return 0;
}

static void free_entry(struct tu_entry *e)
{
    if (!e)
        return;
    free(e->off);
    free(e->slots);
    free(e);
}

/* A monitor a holder wants that does not exist yet: created without the
 * lock (settle). */
struct need {
    struct tu_entry *e;
    uint32_t slot;
    tf_factory **set;
    int n;
    tf_monitor *monitor;
    int oom;                /* the factories made none, out of memory */
    struct need *next;
};


/* Lock held. */
static int pinned(const struct tu_entry *e)
{
    for (const struct settling *r = settling; r; r = r->next) {
        if (r->only == e)
            return 1;
        for (const struct need *d = r->needs; d; d = d->next)
            if (d->e == e)
                return 1;
    }
    return 0;
}

/* Lock held. 0, or TF_ENOMEM (the holder then stays as it is). */
static int add_need(struct tu_entry *e, uint32_t slot, const struct factory_set *set,
                    struct need **needs)
{
    struct need *d = calloc(1, sizeof *d);
    if (!d || !(d->set = malloc((size_t)set->n * sizeof *set->v))) {
        free(d);
        return TF_ENOMEM;
    }
    memcpy(d->set, set->v, (size_t)set->n * sizeof *set->v);
    d->n = set->n;
    d->e = e;
    d->slot = slot;
    d->next = *needs;
    *needs = d;
    return TF_OK;
}

static void set_holder(struct tu_entry *e, uint32_t i, struct made *m)
{
    e->slots[i].current = m;
    __atomic_store_n(e->tu->groups[i].holder, m ? m->monitor : NULL, __ATOMIC_RELEASE);
}

/* Sets each holder of e whose wanted monitor exists already; lists in
 * *needs those still to be created. Lock held. */
static void update_tu(struct tu_entry *e, struct need **needs)
{
    int changed = 0;
    for (uint32_t i = 0; i < e->tu->ngroups && !e->dying; i++) {
        struct slot *s = &e->slots[i];
        struct factory_set set;
        struct made *m;
        int rc = factories_for(s->group, &set);
        if (rc == 0)
            rc = watch_set(e->tu, i, &set);
        if (rc == 0 && !(s->current ? same_set(s->current, set.v, set.n) : set.n == 0)) {
            if (!set.n || (m = made_find(s, set.v, set.n))) {
                set_holder(e, i, set.n ? m : NULL);
                changed = 1;
            } else {
                rc = add_need(e, i, &set, needs);
            }
        }
        if (rc != 0) {
            const char *file = e->tu->file, *group = s->group->name;
            TF_ESC_BUF(file);
            TF_ESC_BUF(group);
            fprintf(stderr, "tf: %s: out of memory: the monitor for group '%s' is unchanged\n",
                    TF_ESC(file), TF_ESC(group));
        }
        set_free(&set);
    }
    if (changed)
        write_slots(e);
}

/* Lock held: keeps each created monitor as its slot's (or leaves it in the
 * need, to be destroyed, if another thread made the same meanwhile or the
 * TU is going); the holders are set by the next round. 0, or TF_ENOMEM. */
static int attach(struct need *needs)
{
    int rc = TF_OK;
    for (struct need *d = needs; d; d = d->next) {
        struct tu_entry *e = d->e;
        struct slot *s = &e->slots[d->slot];
        if (e->dying || made_find(s, d->set, d->n))
            continue;
        if (!d->monitor) {
            const char *file = e->tu->file, *factory = d->set[0]->name, *group = s->group->name;
            TF_ESC_BUF(file);
            TF_ESC_BUF(factory);
            TF_ESC_BUF(group);
            fprintf(stderr, "tf: %s: factory '%s' created no monitor for group '%s'%s\n",
                    TF_ESC(file), TF_ESC(factory), TF_ESC(group), d->oom ? ": out of memory" : "");
        }
        if (made_add(s, d->set, d->n, d->monitor))
            d->monitor = NULL; /* kept */
        else
            rc = TF_ENOMEM;
    }
    return rc;
}

static void destroy_monitor(tf_monitor *m)
{
    if (m && !exiting && m->ops->destroy)
        m->ops->destroy(m);
}

static void free_needs(struct need *d)
{
    for (struct need *next; d; d = next) {
        next = d->next;
        destroy_monitor(d->monitor);
        free(d->set);
        free(d);
    }
}

/* Brings the holders of only, or of every TU, to what the registrations
 * want. Called with the lock held, returns without it: the monitors missing
 * are created between two rounds under it, and rounds repeat until nothing
 * is missing (another thread may have changed the registrations meanwhile). */
static void settle_locked(struct tu_entry *only)
{
    struct settling me = {.tid = gettid(), .only = only, .next = settling};
    settling = &me;
    int rc = TF_OK;
    for (;;) {
        for (struct tu_entry *e = only ? only : tus; e; e = only ? NULL : e->next)
            update_tu(e, &me.needs);
        tf__monitor_maker make = maker;
        if (!me.needs || rc != TF_OK)
            break;
        pthread_mutex_unlock(&lock);
        for (struct need *d = me.needs; d; d = d->next) {
            errno = 0;
            d->monitor = make ? make(d->set, (size_t)d->n, d->e->tu) : NULL;
            d->oom = !d->monitor && errno == ENOMEM;
        }
        pthread_mutex_lock(&lock);
        rc = attach(me.needs);
        struct need *done = me.needs;
        me.needs = NULL;
        pthread_mutex_unlock(&lock);
        free_needs(done);
        pthread_mutex_lock(&lock);
    }
    struct settling **p = &settling;
    while (*p != &me)
        p = &(*p)->next;
    *p = me.next;
    struct need *left = me.needs;
    pthread_cond_broadcast(&idle);
    pthread_mutex_unlock(&lock);
    free_needs(left);
    if (rc != TF_OK)
        fprintf(stderr, "tf: out of memory: some monitors were not attached\n");
}

static void settle(void)
{
    pthread_mutex_lock(&lock);
    settle_locked(NULL);
}

/* ---- selection ------------------------------------------------------------- */

static void reselect_all(void)
{
    for (struct tu_entry *e = tus; e; e = e->next) {
        select_tu(e);
        write_slots(e);
    }
}

int tf__select(const char *items, enum tf__select_from from, tf__select_bad bad, void *arg)
{
    if (!items)
        return TF_EINVAL;
    pthread_mutex_lock(&lock);
    int rc = tf__select_items(items, from, bad, arg);
    reselect_all();
    pthread_mutex_unlock(&lock);
    return rc;
}

int tf__select_show(FILE *out)
{
    pthread_mutex_lock(&lock);
    int n = tf__select_print(out);
    pthread_mutex_unlock(&lock);
    return n;
}

void tf__select_each_unmatched(void (*fn)(int index, const char *item, void *arg), void *arg)
{
    pthread_mutex_lock(&lock);
    tf__select_unmatched(fn, arg);
    pthread_mutex_unlock(&lock);
}

TF_API int tf_select(const char *items)
{
    return tf__select(items, TF__SELECT_CALL, NULL, NULL);
}

TF_API void tf_select_reset(void)
{
    pthread_mutex_lock(&lock);
    tf__select_reset();
    reselect_all();
    pthread_mutex_unlock(&lock);
}

TF_API int tf_selected(const tf_tu *tu, int id)
{
    int rc = TF_EINVAL;
    pthread_mutex_lock(&lock);
    struct tu_entry *e = tus;
    while (e && e->tu != tu)
        e = e->next;
    if (e && id >= 0 && (uint32_t)id < tu->nnames && (tu->names[id].flags & TF_NAME_MONITOR))
        rc = e->off ? !(e->off[id] & OFF_SELECT) : tf__select_wants(tu, tu->names[id].name);
    pthread_mutex_unlock(&lock);
    return rc;
}

void tf__registry_watch(tf_factory *f, int (*wants)(tf_factory *f, const tf_tu *tu, uint32_t group))
{
    pthread_mutex_lock(&lock);
    watcher = f;
    watcher_wants = wants;
    pthread_mutex_unlock(&lock);
    settle();
}

void tf__registry_watch_every(tf_factory *f)
{
    pthread_mutex_lock(&lock);
    everywhere = f;
    pthread_mutex_unlock(&lock);
    settle();
}

void tf__registry_meter(tf_factory *f)
{
    pthread_mutex_lock(&lock);
    meter = f;
    pthread_mutex_unlock(&lock);
    settle();
}

/* ---- the budget's switch (runtime/budget) --------------------------------------- */

static struct tu_entry **tu_link(const tf_tu *tu);

int tf__registry_shed(const tf_tu *tu, const uint32_t *ids, size_t n, int shed)
{
    pthread_mutex_lock(&lock);
    struct tu_entry *e = *tu_link(tu);
    int rc = !e ? TF_ENOENT : !e->off ? TF_EINVAL : TF_OK;
    /* only the slots switched: a store to every slot of the TU would take
     * the cache lines the program's threads load them from */
    for (size_t i = 0; rc == TF_OK && i < n; i++)
        if (ids[i] < tu->nnames && (tu->names[ids[i]].flags & TF_NAME_MONITOR)) {
            e->off[ids[i]] = (unsigned char)(shed ? e->off[ids[i]] | OFF_BUDGET
                                                  : e->off[ids[i]] & ~OFF_BUDGET);
            write_slot(e, ids[i]);
        }
    pthread_mutex_unlock(&lock);
    return rc;
}

void tf__registry_unshed_all(void)
{
    pthread_mutex_lock(&lock);
    for (struct tu_entry *e = tus; e; e = e->next) {
        for (uint32_t id = 0; e->off && id < e->tu->nnames; id++)
            e->off[id] &= (unsigned char)~OFF_BUDGET;
        write_slots(e);
    }
    pthread_mutex_unlock(&lock);
}

int tf__registry_shed_get(const tf_tu *tu, int id)
{
    pthread_mutex_lock(&lock);
    struct tu_entry *e = *tu_link(tu);
    int shed = e && e->off && id >= 0 && (uint32_t)id < tu->nnames && (e->off[id] & OFF_BUDGET);
    pthread_mutex_unlock(&lock);
    return shed;
}

void tf__registry_observe(void (*fn)(const tf_tu *tu))
{
    pthread_mutex_lock(&lock);
    observer = fn;
    for (struct tu_entry *e = tus; e && fn; e = e->next)
        fn(e->tu);
    pthread_mutex_unlock(&lock);
}

/* ---- registration ------------------------------------------------------------ */

/* No length limit: the plugins accept any identifier as a group name, and a
 * TU whose name is refused here would lose all its tracing. */
static int valid_group_name(const char *name)
{
    return name && *name;
}

static int do_register(const char *group, tf_factory *f)
{
    pthread_mutex_lock(&lock);
    struct group *g = group_get(group);
    if (g)
        g->factory = f;
    pthread_mutex_unlock(&lock);
    settle();
    return g ? TF_OK : TF_ENOMEM;
}

int tf__register_trusted(const char *group, tf_factory *f)
{
    if (!valid_group_name(group) || !f || !f->create)
        return TF_EINVAL;
    return do_register(group, f);
}

TF_API int tf_register_from(const char *group, tf_factory *f, const void *caller)
{
    if (!valid_group_name(group) || !f || !f->create)
        return TF_EINVAL;
    char what[64];
    snprintf(what, sizeof what, "register %.50s", group);
    int rc = tf__permitted(caller, what);
    return rc != TF_OK ? rc : do_register(group, f);
}

TF_API int tf_register(const char *group, tf_factory *f)
{
    return tf_register_from(group, f, TF_RETURN_ADDRESS());
}

TF_API int tf_clear(const char *group)
{
    if (!valid_group_name(group))
        return TF_EINVAL;
    pthread_mutex_lock(&lock);
    struct group *g = group_find(group);
    int was = g && g->factory;
    if (was)
        g->factory = NULL;
    pthread_mutex_unlock(&lock);
    if (was)
        settle();
    return TF_OK;
}

TF_API void tf_clear_all(void)
{
    pthread_mutex_lock(&lock);
    for (struct group *g = groups; g; g = g->next)
        g->factory = NULL;
    pthread_mutex_unlock(&lock);
    settle();
}

TF_API tf_factory *tf_registered_factory(const char *group)
{
    if (!valid_group_name(group))
        return NULL;
    pthread_mutex_lock(&lock);
    struct group *g = group_find(group);
    tf_factory *f = g ? g->factory : NULL;
    pthread_mutex_unlock(&lock);
    return f;
}

TF_API tf_monitor *tf_monitor_for_tu(const tf_tu *tu, const char *group)
{
    if (!tu || !group)
        return NULL;
    for (uint32_t i = 0; i < tu->ngroups; i++)
        if (strcmp(tu->groups[i].name, group) == 0)
            return __atomic_load_n(tu->groups[i].holder, __ATOMIC_ACQUIRE);
    return NULL;
}

/* ---- TUs --------------------------------------------------------------------- */

/* A descriptor comes from generated code, but a stale or foreign one must not
 * crash the program: check what the registry relies on. */
static const char *descriptor_problem(const tf_tu *tu)
{
    if (tu->size < TF_TU_MIN_SIZE)
        return "descriptor too small";
    if (!tu->file || !tu->name || (tu->nnames && !tu->names) ||
        (tu->ngroups && !tu->groups) || (tu->ndecls && !tu->decls))
        return "missing table";
    for (uint32_t i = 0; i < tu->nnames; i++) {
        if (!tu->names[i].name)
            return "unnamed entry";
        if (i && strcmp(tu->names[i - 1].name, tu->names[i].name) >= 0)
            return "name table not sorted";
        if (tu->names[i].group >= (int32_t)tu->ngroups)
            return "group index out of range";
    }
    for (uint32_t i = 0; i < tu->ngroups; i++)
        if (!valid_group_name(tu->groups[i].name) || !tu->groups[i].holder)
            return "bad group entry";
    for (uint32_t i = 0; i < tu->ndecls; i++) {
        if (!valid_group_name(tu->decls[i].name) ||
            (tu->decls[i].nsubgroups && !tu->decls[i].subgroups))
            return "bad group declaration";
        for (uint32_t j = 0; j < tu->decls[i].nsubgroups; j++)
            if (!valid_group_name(tu->decls[i].subgroups[j]))
                return "bad subgroup name";
    }
    return NULL;
}

static void oom_group(const tf_tu *tu, const char *group)
{
    const char *file = tu->file;
    TF_ESC_BUF(file);
    TF_ESC_BUF(group);
    fprintf(stderr, "tf: %s: out of memory: group %s not declared\n", TF_ESC(file), TF_ESC(group));
}

static void merge_groups(const tf_tu *tu)
{
    for (uint32_t i = 0; i < tu->ndecls; i++) {
        struct group *g = group_get(tu->decls[i].name);
        if (g)
            g->declared = 1;
        for (uint32_t j = 0; g && j < tu->decls[i].nsubgroups; j++) {
            struct group *sub = group_get(tu->decls[i].subgroups[j]);
            if (sub)
                add_edge(g, sub, tu);
            else
                oom_group(tu, tu->decls[i].subgroups[j]);
        }
        if (!g)
            oom_group(tu, tu->decls[i].name);
    }
}

static struct tu_entry **tu_link(const tf_tu *tu)
{
    struct tu_entry **p = &tus;
    while (*p && (*p)->tu != tu)
        p = &(*p)->next;
    return p;
}

/* "TF 0.1", the TF that emitted a descriptor if it says (abi.def keeps the
 * field's place in every ABI). */
static const char *tu_producer(const tf_tu *tu, char *buf, size_t size)
{
    if (tu->size < offsetof(tf_tu, version) + sizeof tu->version || !tu->version)
        return "a TF that does not record its version";
    snprintf(buf, size, "TF %.40s", tu->version);
    return buf;
}

/* abi, size and file have the same places in every TF_TU_ABI: a TU of
 * another ABI is named, with both sides' versions. */
static int abi_refused(const tf_tu *tu)
{
    char buf[64];
    if (tu->abi >= 1 && tu->abi <= TF_TU_ABI)
        return 0;
    const char *file = tu->file, *producer = tu_producer(tu, buf, sizeof buf);
    TF_ESC_BUF(file);
    TF_ESC_BUF(producer);
    fprintf(stderr,
            "tf: %s: TU not registered: it has TF_TU_ABI %u (built by %s); this libtf "
            "(TF " TF_VERSION ") takes TF_TU_ABI 1 to %u\n",
            TF_ESC(file), tu->abi, TF_ESC(producer), TF_TU_ABI);
    return 1;
}

TF_API void tf_tu_register(tf_tu *tu)
{
    if (tu && abi_refused(tu))
        return;
    const char *problem = tu ? descriptor_problem(tu) : "NULL descriptor";
    if (problem) {
        const char *file = tu ? tu->file : NULL;
        TF_ESC_BUF(file);
        fprintf(stderr, "tf: %s: TU not registered: %s\n", TF_ESC(file), problem);
        return;
    }
    pthread_mutex_lock(&lock);
    int again = *tu_link(tu) != NULL;
    struct tu_entry *e = again ? NULL : calloc(1, sizeof *e);
    if (e)
        e->tu = tu;
    if (!again && (!e || !(e->slots = calloc(tu->ngroups ? tu->ngroups : 1, sizeof *e->slots)) ||
                   alloc_off(e) != 0)) {
        const char *file = tu->file;
        TF_ESC_BUF(file);
        fprintf(stderr, "tf: %s: TU not registered: out of memory\n", TF_ESC(file));
        free_entry(e);
        e = NULL;
    }
    if (e) {
        merge_groups(tu);
        e->tu = tu;
        int ok = 1;
        for (uint32_t i = 0; i < tu->ngroups; i++) {
            ok &= (e->slots[i].group = group_get(tu->groups[i].name)) != NULL;
            if (e->slots[i].group)
                e->slots[i].group->declared = 1;
        }
        if (ok) {
            e->next = tus;
            tus = e;
            select_tu(e);
            if (observer)
                observer(tu); /* hints.c: libtf's own, under the lock */
        } else {
            free_entry(e);
            e = NULL;
        }
    }
    if (e)
        settle_locked(e); /* unlocks */
    else
        pthread_mutex_unlock(&lock);
}

/* Destroys the monitors of s, which nothing can reach any more. Without
 * the lock: destroy is the factory's code. */
static void free_made(struct made *m)
{
    for (struct made *next; m; m = next) {
        next = m->next;
        destroy_monitor(m->monitor);
        free(m->set);
        free(m);
    }
}

TF_API void tf_tu_unregister(tf_tu *tu)
{
    pthread_mutex_lock(&lock);
    struct tu_entry *e = *tu_link(tu);
    if (e) {
        e->dying = 1;
        while (pinned(e)) /* a monitor is being made for it: its factory reads tu */
            pthread_cond_wait(&idle, &lock);
        *tu_link(tu) = e->next;
        for (uint32_t i = 0; i < tu->ngroups; i++) {
            __atomic_store_n(tu->groups[i].holder, NULL, __ATOMIC_RELEASE);
            e->slots[i].current = NULL;
        }
        write_slots(e); /* all NULL before any monitor is destroyed */
    }
    pthread_mutex_unlock(&lock);
    if (!e)
        return;
    for (uint32_t i = 0; i < tu->ngroups; i++)
        free_made(e->slots[i].made);
    free_entry(e);
}

TF_API const tf_tu *tf_tu_find(const char *name)
{
    const tf_tu *found = NULL;
    if (!name)
        return NULL;
    pthread_mutex_lock(&lock);
    for (struct tu_entry *e = tus; e && !found; e = e->next)
        if (strcmp(e->tu->file, name) == 0 || strcmp(e->tu->name, name) == 0)
            found = e->tu;
    pthread_mutex_unlock(&lock);
    return found;
}

TF_API int tf_tu_foreach(tf_tu_visitor fn, void *arg)
{
    /* Visit a snapshot without the lock, so that fn may call the registry. */
    pthread_mutex_lock(&lock);
    size_t n = 0;
    for (struct tu_entry *e = tus; e; e = e->next)
        n++;
    const tf_tu **v = malloc((n ? n : 1) * sizeof *v);
    n = 0;
    for (struct tu_entry *e = tus; e && v; e = e->next)
        v[n++] = e->tu;
    pthread_mutex_unlock(&lock);
    if (!v)
        return TF_ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = fn(v[i], arg);
    free(v);
    return rc;
}

/* ---- names and groups -------------------------------------------------------- */

TF_API const char *tf_method_name(const tf_tu *tu, int id)
{
    if (!tu || id < 0 || (uint32_t)id >= tu->nnames)
        return NULL;
    return tu->names[id].name;
}

TF_API int tf_method_id(const tf_tu *tu, const char *name)
{
    if (!tu || !name)
        return TF_EINVAL;
    uint32_t lo = 0, hi = tu->nnames;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(tu->names[mid].name, name);
        if (c == 0)
            return (int)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return TF_ENOENT;
}

TF_API int tf_group_known(const char *group)
{
    if (!group)
        return 0;
    pthread_mutex_lock(&lock);
    struct group *g = group_find(group);
    int known = g && g->declared;
    pthread_mutex_unlock(&lock);
    return known;
}

int tf__group_each_declared(int (*fn)(const char *name, void *arg), void *arg)
{
    int rc = 0;
    pthread_mutex_lock(&lock);
    for (struct group *g = groups; g && !rc; g = g->next)
        if (g->declared)
            rc = fn(g->name, arg);
    pthread_mutex_unlock(&lock);
    return rc;
}

TF_API int tf_group_subgroups(const char *group, const char **out, int max)
{
    if (!group)
        return TF_EINVAL;
    pthread_mutex_lock(&lock);
    struct group *g = group_find(group);
    int n = g ? g->subs.n : TF_ENOENT;
    for (int i = 0; g && i < n && i < max; i++)
        out[i] = edge_at(&g->subs, i)->name; /* group names live as long as the process */
    pthread_mutex_unlock(&lock);
    return n;
}
