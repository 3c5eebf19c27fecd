/*
 * timing.c: the timer manager and the `timing` factory (docs/design.md .timing;
 * Java: TimerManager, TimerFactory, Timer, TimerGroup).
 *
 * Timers come from the name tables of the TUs a timing monitor is created
 * for: one per monitored name and per TF_TP_ENTER/EXIT info name, keyed by
 * (TU file, tracing name), so a TU loaded again (dlopen after dlclose) finds
 * its timers. A monitored function's timer belongs to its group; an info
 * pair's timer to the group of the monitored function that first enters it
 * (timing_groups.c).
 *
 * Summing a timer over threads and measuring the hooks' overhead are the
 * manager's too: they need threads, hooks and clock together, which the
 * leaves timing_clock.c and timing_stats.c do not know.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "timing_internal.h"

/* ---- timers ---------------------------------------------------------------- */

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static int rehash(tt_manager *m)
{
    uint32_t n = m->nslots ? 2 * m->nslots : 256;
    char **keys = calloc(n, sizeof *keys);
    uint32_t *vals = calloc(n, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return 0;
    }
    for (uint32_t i = 0; i < m->nslots; i++) {
        if (!m->keys[i])
            continue;
        uint32_t j = (uint32_t)hash(m->keys[i]) & (n - 1);
        while (keys[j])
            j = (j + 1) & (n - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->nslots = n;
    return 1;
}

static tt_timer *timer_new(tt_manager *m, char *key, const tf_tu *tu, const tf_name *nm)
{
    uint32_t i = m->ntimers;
    if (i >= TT_MAX_TIMERS)
        return NULL;
    if (!m->timers[i / TT_CHUNK] && !(m->timers[i / TT_CHUNK] = calloc(TT_CHUNK, sizeof(tt_timer))))
        return NULL;
    tt_timer *t = tt_timer_at(m, i);
    if (asprintf(&t->full, "%s.%s", tu->name, nm->name) < 0) {
        t->full = NULL;
        return NULL;
    }
    t->tu_name = strdup(tu->name);
    t->tu_file = strdup(tu->file);
    t->name = strdup(nm->name);
    t->src_file = strdup(nm->file ? nm->file : tu->file);
    if (!t->tu_name || !t->tu_file || !t->name || !t->src_file) {
        free(t->full), free(t->tu_name), free(t->tu_file), free(t->name), free(t->src_file);
        memset(t, 0, sizeof *t);
        return NULL;
    }
    t->line = nm->line;
    t->flags = nm->flags;
    t->index = i;
    t->enabled = 1;
    t->group = -1;
    if ((nm->flags & TF_NAME_MONITOR) && nm->group >= 0 && (uint32_t)nm->group < tu->ngroups &&
        (t->group = tt_group_index(m, tu->groups[nm->group].name)) < 0)
        fprintf(stderr, "tf: timing: out of memory: %s is timed outside its group %s\n", t->full,
                tu->groups[nm->group].name);
    uint32_t j = (uint32_t)hash(key) & (m->nslots - 1);
    while (m->keys[j])
        j = (j + 1) & (m->nslots - 1);
    m->keys[j] = key;
    m->vals[j] = i + 1;
    m->ntimers++;
    tt_timer_update(m, t);
    return t;
}

/* Lock held. */
static tt_timer *timer_get(tt_manager *m, const tf_tu *tu, const tf_name *nm)
{
    char *key;
    if (asprintf(&key, "%s\n%s", tu->file, nm->name) < 0)
        return NULL;
    if (2 * (m->ntimers + 1) > m->nslots && !rehash(m)) {
        free(key);
        return NULL;
    }
    for (uint32_t j = (uint32_t)hash(key) & (m->nslots - 1); m->keys[j];
         j = (j + 1) & (m->nslots - 1)) {
        if (strcmp(m->keys[j], key) == 0) {
            free(key);
            return tt_timer_at(m, m->vals[j] - 1);
        }
    }
    tt_timer *t = timer_new(m, key, tu, nm);
    if (!t)
        free(key);
    return t;
}

static tt_timer *timer_find(tt_manager *m, const char *full)
{
    for (uint32_t i = 0; full && i < m->ntimers; i++)
        if (strcmp(tt_timer_at(m, i)->full, full) == 0)
            return tt_timer_at(m, i);
    return NULL;
}

/* ---- the factory ------------------------------------------------------------- */

#define MANAGER(f) ((tt_manager *)(f))

/* The groups a TU declares join the table even without timers of their own,
 * so that reports show them (their edges are the registry's). */
/* Also the groups the TU uses: an info pair's hook finds its group here
 * (tt_timer_adopt_group), as a hook must not allocate. */
static void add_declared_groups(tt_manager *m, const tf_tu *tu)
{
    for (uint32_t g = 0; g < tu->ngroups; g++)
        tt_group_index(m, tu->groups[g].name);
    for (uint32_t d = 0; d < tu->ndecls; d++) {
        const tf_group_decl *decl = &tu->decls[d];
        tt_group_index(m, decl->name);
        for (uint32_t s = 0; s < decl->nsubgroups; s++)
            tt_group_index(m, decl->subgroups[s]);
    }
}

static void destroy(tf_monitor *self)
{
    tt_manager_unref(((tt_monitor *)self)->m);
    free(self);
}

/* The hooks are the stack's; a monitor's end is the manager's (its
 * reference), so the stack never calls up into the manager. Timing reads ids
 * and the clock, never a value. */
static const tf_monitor_ops monitor_ops = {
    .enter = tt_enter, .info = tt_info, .exit = tt_exit, .exception = tt_exception,
    .clear = tt_clear, .destroy = destroy, .flags = TF_OPS_NO_VALUES
};

static tf_monitor *create(tf_factory *f, const tf_tu *tu)
{
    tt_manager *m = MANAGER(f);
    tt_monitor *mon = calloc(1, sizeof *mon + tu->nnames * sizeof(tt_timer *));
    if (!mon)
        return NULL;
    mon->base.ops = &monitor_ops;
    mon->base.tu = tu;
    mon->base.factory = f;
    mon->m = m;
    mon->n = tu->nnames;
    tf__lock(&m->lock);
    add_declared_groups(m, tu);
    for (uint32_t id = 0; id < tu->nnames; id++)
        if ((tu->names[id].flags & (TF_NAME_MONITOR | TF_NAME_TP_ENTER | TF_NAME_TP_EXIT)) &&
            !(mon->timers[id] = timer_get(m, tu, &tu->names[id])))
            fprintf(stderr, "tf: timing: %s.%s is not timed: %s\n", tu->name, tu->names[id].name,
                    m->ntimers >= TT_MAX_TIMERS ? "a timing manager keeps at most " TT_MAX_TIMERS_TEXT
                                                  " timing points" : "out of memory");
    /* Only this TU's timers, unless its declarations (in the registry's graph
     * already) changed what is blocked: a program of many TUs would be
     * quadratic otherwise. */
    if (tt_recompute_blocked(m))
        tt_recompute_active(m);
    for (uint32_t id = 0; id < tu->nnames; id++)
        if (mon->timers[id])
            tt_timer_update(m, mon->timers[id]);
    m->refs++;
    tf__unlock(&m->lock);
    return &mon->base;
}

/* ---- statistics and hook overhead ------------------------------------------------ */

static void add_stats(const tt_stats *s, void *arg)
{
    tt_sum_add(arg, s);
}

void tt_summarize(tt_manager *m, uint32_t i, tt_sum *out)
{
    tt_sum_init(out);
    tt_foreach_stats(m, i, add_stats, out);
    tt_sum_done(out);
}

/* A parent's measured time includes, per nested timed call, the part of the
 * child's enter and exit hooks outside the child's own interval (the call,
 * finding the thread's state, pushing; recording after the exit's clock read).
 * Measured as a private manager sees it: a parent frame around N empty
 * children; its self time / N, the best of several runs. */

static tf_monitor *calib_holder;
static const tf_name calib_names[2] = {
    {"child", TF_NAME_MONITOR, 0, "<tf timing calibration>", 1, 0},
    {"parent", TF_NAME_MONITOR, 0, "<tf timing calibration>", 2, 0},
};
static const tf_tu_group calib_groups[1] = {{"tf_timing_calibration", &calib_holder}};
static tf_tu calib_tu = {TF_TU_ABI, sizeof(tf_tu), "<tf timing calibration>",
                         "tf_timing_calibration", 2, 1, 0, 0, calib_names, calib_groups, NULL,
                         TF_VERSION, NULL};

#define CALIB_CHILDREN 1000

/* The hooks' cost outside a nested call, in ticks of m's clock. */
static uint64_t measure_overhead(tt_manager *m)
{
    tt_manager *p = tt_manager_new(0);
    tf_monitor *mon = p ? p->factory.create(&p->factory, &calib_tu) : NULL;
    uint64_t best = UINT64_MAX, before = 0;
    if (!mon) {
        if (p)
            tt_manager_unref(p);
        return 0;
    }
    p->clock = m->clock;
    for (int trial = 0; trial < 7; trial++) {
        mon->ops->enter(mon, 1, NULL);
        for (int i = 0; i < CALIB_CHILDREN; i++) {
            mon->ops->enter(mon, 0, NULL);
            mon->ops->exit(mon, 0, NULL);
        }
        mon->ops->exit(mon, 1, NULL);
        tt_sum s;
        tf__lock(&p->lock);
        tt_summarize(p, 1, &s);
        tf__unlock(&p->lock);
        uint64_t per = (s.self - before) / CALIB_CHILDREN;
        before = s.self;
        best = per < best ? per : best;
    }
    mon->ops->destroy(mon);
    tt_manager_unref(p);
    return best == UINT64_MAX ? 0 : best;
}

/* ---- the manager ------------------------------------------------------------------ */

tt_manager *tt_manager_new(int measure)
{
    tt_manager *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    tt_stack_init();
    pthread_mutex_init(&m->lock, NULL);
    m->refs = 1;
    m->factory.name = "timing";
    m->factory.create = create;
    m->factory.flags = TF_FACTORY_NO_GUARD;
    tt_clock_default(&m->clock);
    m->epoch = tt_now(&m->clock);
    if (measure)
        m->overhead = measure_overhead(m);
    return m;
}

static void manager_free(tt_manager *m)
{
    tt_thread_retire_all(m);
    for (uint32_t i = 0; i < m->ntimers; i++) {
        tt_timer *t = tt_timer_at(m, i);
        free(t->full), free(t->tu_name), free(t->tu_file), free(t->name), free(t->src_file);
    }
    for (uint32_t c = 0; c < TT_MAX_CHUNKS; c++)
        free(m->timers[c]);
    for (uint32_t i = 0; i < m->nslots; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    for (int g = 0; g < m->ngroups; g++)
        free(m->groups[g].name);
    free(m->groups);
    tt_edges_free(&m->retired_edges);
    tt_stats_free_all(&m->retired_arena, m->retired);
    tt_log_free_all(m->retired_logs);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

void tt_manager_unref(tt_manager *m)
{
    tf__lock(&m->lock);
    int last = --m->refs == 0;
    tf__unlock(&m->lock);
    if (last)
        manager_free(m);
}

/* ---- public API ---------------------------------------------------------------- */

TF_API tf_timing_manager *tf_timing_manager_create(void)
{
    return (tf_timing_manager *)tt_manager_new(1);
}

TF_API void tf_timing_manager_destroy(tf_timing_manager *tm)
{
    if (tm)
        tt_manager_unref((tt_manager *)tm);
}

TF_API tf_factory *tf_timing(tf_timing_manager *tm)
{
    return tm ? &((tt_manager *)tm)->factory : NULL;
}

TF_API int tf_timing_timer_enable(tf_timing_manager *tm, const char *timer, int on)
{
    tt_manager *m = (tt_manager *)tm;
    if (!m || !timer)
        return TF_EINVAL;
    tf__lock(&m->lock);
    tt_timer *t = timer_find(m, timer);
    if (t) {
        t->enabled = on != 0;
        tt_timer_update(m, t);
    }
    tf__unlock(&m->lock);
    return t ? TF_OK : TF_ENOENT;
}

TF_API int tf_timing_group_enable(tf_timing_manager *tm, const char *group, int on)
{
    tt_manager *m = (tt_manager *)tm;
    if (!m || !group || !*group)
        return TF_EINVAL;
    tf__lock(&m->lock);
    int g = tt_group_index(m, group);
    if (g >= 0) {
        m->groups[g].enabled = on != 0;
        tt_group_add_below(m);
        tt_recompute_active(m);
    }
    tf__unlock(&m->lock);
    return g < 0 ? TF_ENOMEM : TF_OK;
}

TF_API int tf_timing_timer_active(tf_timing_manager *tm, const char *timer)
{
    tt_manager *m = (tt_manager *)tm;
    if (!m || !timer)
        return TF_EINVAL;
    tf__lock(&m->lock);
    tt_timer *t = timer_find(m, timer);
    int rc = t ? __atomic_load_n(&t->active, __ATOMIC_RELAXED) : TF_ENOENT;
    tf__unlock(&m->lock);
    return rc;
}

TF_API int tf_timing_stats_get(tf_timing_manager *tm, const char *timer, tf_timing_stats *out)
{
    tt_manager *m = (tt_manager *)tm;
    if (!m || !timer || !out)
        return TF_EINVAL;
    tt_clock_rate(&m->clock);
    tt_sum *s = malloc(sizeof *s);
    if (!s)
        return TF_ENOMEM;
    tf__lock(&m->lock);
    tt_timer *t = timer_find(m, timer);
    if (t) {
        tt_summarize(m, t->index, s);
        fenv_t fp;
        tf__fp_enter(&fp);
        tt_sum_fill(s, m->clock.ticks_per_second, out);
        tf__fp_leave(&fp);
    }
    tf__unlock(&m->lock);
    free(s);
    return t ? TF_OK : TF_ENOENT;
}

TF_API tf_timing_format tf_timing_format_for_path(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n >= 5 && strcmp(path + n - 5, ".json") == 0)
        return TF_TIMING_JSON;
    if (n >= 4 && strcmp(path + n - 4, ".csv") == 0)
        return TF_TIMING_CSV;
    return TF_TIMING_TEXT;
}

TF_API int tf_timing_event_log(tf_timing_manager *tm, size_t events_per_thread)
{
    tt_manager *m = (tt_manager *)tm;
    if (!m || events_per_thread > (1u << 26))
        return TF_EINVAL;
    __atomic_store_n(&m->log_cap, events_per_thread, __ATOMIC_RELAXED);
    return TF_OK;
}

TF_API int tf_timing_clock(tf_timing_manager *tm, tf_timing_clock_info *out)
{
    tt_manager *m = (tt_manager *)tm;
    if (!m || !out)
        return TF_EINVAL;
    const tt_clock_probe *p = tt_clock_probe_get();
    memset(out, 0, sizeof *out);
    out->ticks_per_second = tt_clock_rate(&m->clock);
    out->tsc_invariant = p->tsc_invariant;
    out->tsc_read_ns = p->tsc_read_ns;
    out->monotonic_read_ns = p->mono_read_ns;
    switch (m->clock.kind) {
    case TT_CLOCK_TSC:
        out->source = "tsc";
        out->read_ns = p->tsc_read_ns;
        break;
    case TT_CLOCK_MONOTONIC:
        out->source = "clock_gettime(CLOCK_MONOTONIC)";
        out->read_ns = p->mono_read_ns;
        break;
    default:
        out->source = m->clock.name[0] ? m->clock.name : "injected";
        break;
    }
    fenv_t fp;
    tf__fp_enter(&fp);
    out->overhead_ns = tt_ticks_to_ns(m, (double)m->overhead);
    tf__fp_leave(&fp);
    return TF_OK;
}

TF_API int tf_timing_name_clock(tf_timing_manager *tm, const char *name)
{
    tt_manager *m = (tt_manager *)tm;
    if (!m || !name || strlen(name) >= sizeof m->clock.name)
        return TF_EINVAL;
    tf__lock(&m->lock);
    int injected = m->clock.kind == TT_CLOCK_INJECTED;
    if (injected)
        snprintf(m->clock.name, sizeof m->clock.name, "%s", name);
    tf__unlock(&m->lock);
    return injected ? TF_OK : TF_EINVAL;
}

TF_API int tf_timing_set_clock(tf_timing_manager *tm, tf_timing_clock_fn fn, void *arg,
                               double ticks_per_second)
{
    tt_manager *m = (tt_manager *)tm;
    fenv_t fp;
    tf__fp_enter(&fp); /* comparing a NaN raises FE_INVALID */
    int bad = fn && !(ticks_per_second > 0);
    tf__fp_leave(&fp);
    if (!m || bad)
        return TF_EINVAL;
    tt_clock c = {TT_CLOCK_INJECTED, fn, arg, ticks_per_second, ""};
    if (!fn)
        tt_clock_default(&c);
    tf__lock(&m->lock);
    m->clock = c;
    m->overhead = 0;
    tf__unlock(&m->lock);
    uint64_t overhead = fn ? 0 : measure_overhead(m);
    uint64_t epoch = tt_now(&c); /* an injected clock is the user's code: not under the lock */
    tf__lock(&m->lock);
    m->overhead = overhead;
    m->epoch = epoch;
    tf__unlock(&m->lock);
    return TF_OK;
}

TF_API int tf_timing_set_overhead(tf_timing_manager *tm, double ns)
{
    tt_manager *m = (tt_manager *)tm;
    fenv_t fp;
    tf__fp_enter(&fp);
    int bad = !(ns >= 0);
    tf__fp_leave(&fp);
    if (!m || bad)
        return TF_EINVAL;
    tt_clock_rate(&m->clock);
    tf__lock(&m->lock);
    tf__fp_enter(&fp);
    m->overhead = (uint64_t)(ns * m->clock.ticks_per_second / 1e9 + 0.5);
    tf__fp_leave(&fp);
    tf__unlock(&m->lock);
    return TF_OK;
}

