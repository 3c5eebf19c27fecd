/*
 * meter.c: the layer around every holder's monitor while a budget runs
 * (.budget.meter). The generated code calls the meter's hooks; they count
 * the call in the thread's own counter of the function (.budget.count) and
 * pass every event on to the monitor they wrap, the composition of what is
 * registered. One call in about 64 (a random interval, so a loop calling
 * functions in a fixed order does not always sample the same one) is
 * sampled (.budget.sample): the clock is read around the wrapped enter and
 * exit, which gives what the monitors cost for this function and how long
 * its body ran between them.
 *
 * Hooks obey runtime/internal.h: no malloc (records and chunks come from
 * pages.c), no lock, errno kept (pages.c keeps it), no floating point; the
 * stack position the wrapped monitors see is the monitored function's
 * (tf__hook_sp), as compose.c passes it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "../clock.h"

uint64_t bg_cost_cap = UINT64_MAX, bg_once_cap = UINT64_MAX;

typedef struct bg_meter {
    tf_monitor base;
    tf_monitor *inner;
    bg_tu *range;
    uint32_t first, n;   /* the TU's global indices */
    uint32_t counted;    /* ids counted: n, less those past BG_MAX_FUNCS; the fast path's one bound */
} bg_meter;

#define METER(self) ((bg_meter *)(self))

/* Around each wrapped call: the wrapped monitors see the hook's stack
 * position, not the meter's. */
#define PASS_ON(op, ...) TF_PASS_HOOK_SP(METER(self)->inner->ops->op(METER(self)->inner, __VA_ARGS__))

static void next_interval(bg_thread *t)
{
    uint32_t x = t->rng;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    t->rng = x;
    t->countdown = t->interval = 32 + x % 64;
}

/* The sampled call's entry: frames deeper than it are gone (a longjmp left
 * them), and when all BG_OPEN are taken the oldest is forgotten. Index k is
 * read once and bounded: a signal handler's calls may push and pop
 * meanwhile, which at worst loses a sample. */
static void push(bg_thread *t, const bg_open *o)
{
    int k = t->nopen;
    while (k > 0 && k <= (int)BG_OPEN && t->open[k - 1].sp < o->sp)
        k--;
    if (k < 0 || k > (int)BG_OPEN)
        k = 0;
    if (k == (int)BG_OPEN) {
        memmove(&t->open[0], &t->open[1], (BG_OPEN - 1) * sizeof t->open[0]);
        k--;
    }
    t->open[k] = *o;
    t->nopen = k + 1;
    t->top_id = o->id;
    t->top_meter = o->meter;
}

/* Open sampled calls above k are gone. */
static void pop_to(bg_thread *t, int k)
{
    t->nopen = k;
    t->top_meter = k > 0 && k <= (int)BG_OPEN ? t->open[k - 1].meter : NULL;
    t->top_id = k > 0 && k <= (int)BG_OPEN ? t->open[k - 1].id : -1;
}

/* The clock of a sample, read once every instruction before it completed
 * (lfence): a cold call's loads (the counter's line, the meter's, the
 * monitor's state) miss the cache, and a plain rdtsc would be read while
 * they are still on their way, leaving their cost to whatever comes next
 * (perf saw it land on the program's next locked instruction). */
static inline uint64_t sample_clock(void)
{
    __builtin_ia32_lfence();
    return tf__clock_now();
}

/* Counts the call in its thread's counter, made on the thread's first
 * call (of a chunk of indices); NULL past the meter's range or out of
 * memory. *tp: the thread's record, made too if need be. */
static inline bg_count *count_in(bg_meter *m, int id, bg_thread **tp)
{
    if (__builtin_expect((uint32_t)id >= m->n, 0))
        return NULL;
    uint32_t i = m->first + (uint32_t)id;
    bg_count *c = __builtin_expect(*tp != NULL, 1) ? bg_own_count(*tp, i) : NULL;
    if (__builtin_expect(!c, 0)) {
        c = bg_count_make(i);
        *tp = bg_me;
        if (!c)
            return NULL;
    }
    BG_SET(c->calls, BG_GET(c->calls) + 1);
    return c;
}

/* The wrapped enter of a call timed from t0, open until its exit: a sample
 * standing for interval calls, or a first call (interval 0). */
static void timed_enter(bg_meter *m, bg_thread *t, int id, const tf_args *args, uintptr_t sp,
                        uint64_t t0, uint32_t interval)
{
    m->inner->ops->enter(m->inner, id, args);
    uint64_t t1 = sample_clock();
    bg_open o = {m, id, m->first + (uint32_t)id, interval, sp, t1, t1 - t0};
    push(t, &o);
}

/* A function's first call on the thread: its monitors make their state for
 * it then, once (the timing monitor its entry, the recorder its event
 * class: some 4.5 us where a call then costs 0.1 us). Timed, but no sample:
 * its cost goes to the thread's one-time sum (.budget.sample), which the
 * judge pays from the account. An open entry of interval 0. */
TF_COLD static void first_enter(bg_meter *m, bg_thread *t, int id, const tf_args *args,
                                uintptr_t sp)
{
    timed_enter(m, t, id, args, sp, sample_clock(), 0);
}

/* A sampled call (its thread's countdown reached 0): the clock is read
 * before the counting, so that the sample holds what a call costs cold as
 * often as calls are cold: the counter's and the meter's cache misses, not
 * only the wrapped monitors' (.budget.sample). */
TF_COLD static void sampled_enter(bg_meter *m, bg_thread *t, int id, const tf_args *args,
                                  uintptr_t sp)
{
    uint64_t t0 = sample_clock();
    const bg_count *c = count_in(m, id, &t);
    if (!c) {
        next_interval(t);
        m->inner->ops->enter(m->inner, id, args);
        return;
    }
    /* a first call is no sample (a judge reading its set-up as what each
     * call costs switched functions off on their first call): the next
     * call is sampled instead, for the same interval */
    if (BG_GET(c->calls) == 1) {
        t->countdown = 1;
        t->interval++;
        first_enter(m, t, id, args, sp);
        return;
    }
    uint32_t interval = t->interval;
    next_interval(t);
    timed_enter(m, t, id, args, sp, t0, interval);
}

uint32_t bg_window_gen;
uint64_t bg_hurry_base, bg_hurry_floor, bg_hurry_permille, bg_hurry_slack, bg_hurry_span;

/* .budget.hurry: a sampled call stands for the calls of its interval; once
 * the thread's hooks spent more than one and a half budgets of the time they
 * are measured over (after the slack), the budget thread judges at once.
 * That time is the window's so far, or, with a span, the current span and
 * the one before it: a new hot function late in a long window is not
 * averaged with the cheap time before it. Integers only (hooks use no
 * floating point). */
static void hurry_check(bg_thread *t, uint32_t interval, uint64_t cost, uint64_t now)
{
    uint32_t gen = __atomic_load_n(&bg_window_gen, __ATOMIC_RELAXED);
    uint64_t span = __atomic_load_n(&bg_hurry_span, __ATOMIC_RELAXED);
    if (t->gen != gen) {
        t->gen = gen;
        t->hurried = 0;
        t->hstart = now;
        t->hspend = t->hprev = t->hprevlen = 0;
    } else if (span && now - t->hstart >= span) {
        t->hprev = t->hspend;
        t->hprevlen = now - t->hstart;
        t->hstart = now;
        t->hspend = 0;
    }
    uint64_t permille = __atomic_load_n(&bg_hurry_permille, __ATOMIC_RELAXED);
    uint64_t floor = __atomic_load_n(&bg_hurry_floor, __ATOMIC_RELAXED);
    t->hspend += (uint64_t)interval * (__atomic_load_n(&bg_hurry_base, __ATOMIC_RELAXED) + (cost > floor ? cost - floor : 0));
    if (t->hurried || permille == 0)
        return;
    if ((t->hprev + t->hspend) * 1000 >
        permille * (t->hprevlen + now - t->hstart) + __atomic_load_n(&bg_hurry_slack, __ATOMIC_RELAXED)) {
        t->hurried = 1;
        bg_hurry();
    }
}

TF_COLD static void sampled_exit(bg_meter *m, bg_thread *t, int k, int id, const tf_value *result)
{
    bg_open o = t->open[k];
    pop_to(t, k);
    uint64_t t2 = sample_clock();
    m->inner->ops->exit(m->inner, id, result);
    uint64_t t3 = sample_clock();
    uint64_t cost = o.cost + (t3 - t2);
    if (o.interval == 0) { /* a first call: at most what a preempted sample counts */
        uint64_t once_cap = __atomic_load_n(&bg_once_cap, __ATOMIC_RELAXED);
        BG_SET(t->once, BG_GET(t->once) + (cost < once_cap ? cost : once_cap));
        return;
    }
    bg_count *c = bg_own_count(t, o.index);
    if (!c)
        return;
    uint64_t cap = __atomic_load_n(&bg_cost_cap, __ATOMIC_RELAXED);
    BG_SET(c->samples, BG_GET(c->samples) + 1);
    BG_SET(c->cost, BG_GET(c->cost) + (cost < cap ? cost : cap));
    BG_SET(c->span, BG_GET(c->span) + (t2 > o.t1 ? t2 - o.t1 : 0));
    hurry_check(t, o.interval, cost < cap ? cost : cap, t3);
}

/* The innermost sampled call open on the thread is this one (meter, id):
 * its exit, unless sp says it is a deeper call of the same function. */
static inline int top_is(const bg_thread *t, int k, const bg_meter *m, int id)
{
    return k >= 0 && k < (int)BG_OPEN && t->open[k].meter == m && t->open[k].id == id;
}

/* ---- careful hooks: the wrapped hook is called, with tf__hook_sp set ------- */

/* A call that is no sample (its countdown, if it has a record, already
 * counted down): counted, making the record or the counter, and timed apart
 * if it is the function's first on the thread. */
static void plain_enter(bg_meter *m, bg_thread *t, int id, const tf_args *args, uintptr_t sp)
{
    const bg_count *c = count_in(m, id, &t);
    if (c && __builtin_expect(BG_GET(c->calls) == 1, 0))
        first_enter(m, t, id, args, sp);
    else
        m->inner->ops->enter(m->inner, id, args);
}

static void m_enter(tf_monitor *self, int id, const tf_args *args)
{
    bg_meter *m = METER(self);
    uintptr_t outer = tf__hook_sp, sp = TF_CALLER_SP();
    tf__hook_sp = sp;
    bg_thread *t = bg_me;
    if (t && __builtin_expect(--t->countdown == 0, 0))
        sampled_enter(m, t, id, args, sp);
    else
        plain_enter(m, t, id, args, sp);
    tf__hook_sp = outer;
}

static void m_exit(tf_monitor *self, int id, const tf_value *result)
{
    bg_meter *m = METER(self);
    uintptr_t outer = tf__hook_sp, sp = TF_CALLER_SP();
    tf__hook_sp = sp;
    bg_thread *t = bg_me;
    int k = t ? t->nopen - 1 : -1;
    if (t && top_is(t, k, m, id) && t->open[k].sp == sp)
        sampled_exit(m, t, k, id, result);
    else
        m->inner->ops->exit(m->inner, id, result);
    tf__hook_sp = outer;
}

/* ---- fast hooks (.budget.meter): the common path jumps to the wrapped hook
 * (a sibling call), whose frame then replaces the meter's, so it finds the
 * monitored function's stack position as it would without the meter, and
 * the meter saves nothing and sets nothing. Only where the compiler made
 * these jumps (probe_fast says so once) are they used; the rare paths are
 * reached by a jump too, and are the careful hooks. ---------------------- */

/* The fast hook's rare entries, reached by a jump: a sampled call, a
 * function's first call on the thread, or one without a record or counter
 * yet (plain_enter makes them). */
enum { RARE_SAMPLED, RARE_FIRST, RARE_PLAIN };

TF_COLD static void f_enter_rare(tf_monitor *self, int id, const tf_args *args, int rare)
{
    uintptr_t outer = tf__hook_sp, sp = TF_CALLER_SP();
    tf__hook_sp = sp;
    if (rare == RARE_SAMPLED)
        sampled_enter(METER(self), bg_me, id, args, sp);
    else if (rare == RARE_FIRST)
        first_enter(METER(self), bg_me, id, args, sp);
    else
        plain_enter(METER(self), bg_me, id, args, sp);
    tf__hook_sp = outer;
}

static void f_enter(tf_monitor *self, int id, const tf_args *args)
{
    bg_meter *m = METER(self);
    bg_thread *t = bg_me;
    /* the sampling first: a sampled call's clock starts before the counting */
    if (__builtin_expect(t == NULL, 0))
        return f_enter_rare(self, id, args, RARE_PLAIN); /* makes the record */
    if (__builtin_expect(--t->countdown == 0, 0))
        return f_enter_rare(self, id, args, RARE_SAMPLED);
    uint32_t i = m->first + (uint32_t)id;
    bg_count *c = (uint32_t)id < m->counted ? t->chunk[i / BG_CHUNK] : NULL; /* only this thread stores it */
    c = c ? c + i % BG_CHUNK : NULL;
    if (__builtin_expect(!c, 0))
        return f_enter_rare(self, id, args, RARE_PLAIN); /* makes the counter */
    uint64_t calls = BG_GET(c->calls);
    BG_SET(c->calls, calls + 1);
    if (__builtin_expect(calls == 0, 0))
        return f_enter_rare(self, id, args, RARE_FIRST);
    return m->inner->ops->enter(m->inner, id, args);
}

static void f_exit(tf_monitor *self, int id, const tf_value *result)
{
    bg_meter *m = METER(self);
    bg_thread *t = bg_me;
    if (__builtin_expect(t != NULL && t->top_meter == m && t->top_id == id, 0))
        return m_exit(self, id, result); /* compares sp, as it is reached by a jump */
    return m->inner->ops->exit(m->inner, id, result);
}

static void m_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp)
{
    PASS_ON(info, args, caller, id, tp);
}

static void m_exception(tf_monitor *self, int id, const tf_exception *exc)
{
    PASS_ON(exception, id, exc);
}

static void m_clear(tf_monitor *self)
{
    tf_monitor *in = METER(self)->inner;
    if (in->ops->clear)
        in->ops->clear(in);
}

static void m_destroy(tf_monitor *self)
{
    bg_meter *m = METER(self);
    if (m->inner->ops->destroy)
        m->inner->ops->destroy(m->inner);
    if (m->range)
        bg_tu_put(m->range);
    free(m);
}

/* [1], [3] around monitors that read no values (TF_OPS_NO_VALUES): the
 * generated code still skips building them; [2], [3]: the fast hooks. */
static const tf_monitor_ops meter_ops[4] = {
    {m_enter, m_info, m_exit, m_exception, m_clear, m_destroy, 0},
    {m_enter, m_info, m_exit, m_exception, m_clear, m_destroy, TF_OPS_NO_VALUES},
    {f_enter, m_info, f_exit, m_exception, m_clear, m_destroy, 0},
    {f_enter, m_info, f_exit, m_exception, m_clear, m_destroy, TF_OPS_NO_VALUES},
};

static int is_meter(const tf_monitor *m)
{
    return m->ops >= &meter_ops[0] && m->ops < &meter_ops[4];
}

/* The meter is made by tf__budget_make around the others, never as a part
 * of a composition. */
static tf_monitor *create(tf_factory *self, const tf_tu *tu)
{
    return NULL;
}

static tf_factory factory = {.name = "budget", .create = create, .flags = TF_FACTORY_NO_GUARD};

tf_factory *bg_factory(void)
{
    return &factory;
}

static tf_monitor *wrap(tf_monitor *inner, const tf_tu *tu, int fast)
{
    bg_meter *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    if (!(m->range = bg_tu_get(tu))) {
        free(m);
        return NULL;
    }
    m->base.ops = &meter_ops[(fast ? 2 : 0) + (inner->ops->flags & TF_OPS_NO_VALUES ? 1 : 0)];
    m->base.tu = tu;
    m->base.factory = &factory;
    m->inner = inner;
    m->first = m->range->first;
    m->n = m->range->n;
    m->counted = m->first >= BG_MAX_FUNCS ? 0 : m->n < BG_MAX_FUNCS - m->first ? m->n : BG_MAX_FUNCS - m->first;
    return &m->base;
}

/* ---- are the jumps made? --------------------------------------------------
 * A monitor that notes the stack position its hooks see, called from one
 * frame directly and through a meter with the fast hooks (once sampled,
 * once not): the same positions where the compiler made the jumps. */
static uintptr_t seen_sp;
static void p_enter(tf_monitor *self, int id, const tf_args *args)
{
    seen_sp = TF_CALLER_SP();
}
static void p_exit(tf_monitor *self, int id, const tf_value *result)
{
    seen_sp = TF_CALLER_SP();
}
static const tf_monitor_ops probe_ops = {
    .enter = p_enter, .exit = p_exit, .flags = TF_OPS_NO_VALUES
};
static tf_monitor *probe_holder;
static const tf_tu_group probe_groups[1] = {{"tf_budget_probe", &probe_holder}};
static const tf_name probe_names[1] = {{"probe", TF_NAME_MONITOR, 0, "<tf budget probe>", 1, 0}};
static tf_tu probe_tu = {TF_TU_ABI, sizeof(tf_tu), "<tf budget probe>", "tf_budget_probe", 1, 1, 0, 0,
                         probe_names, probe_groups, NULL, TF_VERSION, NULL};

__attribute__((noinline)) static int same_sp(tf_monitor *p, tf_monitor *m, int sample)
{
    uintptr_t direct[2], metered[2];
    p->ops->enter(p, 0, NULL);
    direct[0] = seen_sp;
    p->ops->exit(p, 0, NULL);
    direct[1] = seen_sp;
    if (sample && bg_me)
        bg_me->countdown = 1;
    m->ops->enter(m, 0, NULL);
    metered[0] = seen_sp;
    m->ops->exit(m, 0, NULL);
    metered[1] = seen_sp;
    __asm__ volatile("" ::: "memory");
    return direct[0] == metered[0] && direct[1] == metered[1];
}

static int fast_ok;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void probe_fast(void)
{
    tf_monitor p = {&probe_ops, &probe_tu, NULL};
    tf_monitor *m = wrap(&p, &probe_tu, 1);
    if (!m)
        return;
    bg_meter_internal(m);
    m->ops->enter(m, 0, NULL); /* the thread's counters exist from here on */
    m->ops->exit(m, 0, NULL);
    fast_ok = same_sp(&p, m, 0) && same_sp(&p, m, 1);
    m->ops->destroy(m);
}

tf_monitor *bg_meter_wrap(tf_monitor *inner, const tf_tu *tu)
{
    pthread_once(&probe_once, probe_fast);
    return wrap(inner, tu, fast_ok);
}

int bg_meter_fast(void)
{
    pthread_once(&probe_once, probe_fast);
    return fast_ok;
}

tf_monitor *tf__budget_make(tf_factory *const *fs, size_t n, const tf_tu *tu)
{
    if (!n || fs[n - 1] != &factory)
        return tf__compose_create(fs, n, tu);
    tf_monitor *inner = tf__compose_create(fs, n - 1, tu);
    tf_monitor *m = inner ? bg_meter_wrap(inner, tu) : NULL;
    if (inner && !m) { /* traced as asked, only not measured: said at exit */
        pthread_mutex_lock(&bg_lock);
        bg_unmeasured += tu->nnames;
        pthread_mutex_unlock(&bg_lock);
        return inner;
    }
    return m;
}

tf_monitor *tf__budget_inner(tf_monitor *m)
{
    return m && is_meter(m) ? METER(m)->inner : m;
}

void bg_meter_internal(tf_monitor *m)
{
    pthread_mutex_lock(&bg_lock);
    METER(m)->range->internal = 1;
    pthread_mutex_unlock(&bg_lock);
}

uint32_t bg_meter_first(const tf_monitor *m)
{
    return ((const bg_meter *)m)->first;
}
