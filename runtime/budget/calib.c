/*
 * calib.c: what a metered call costs beyond what the monitors themselves
 * spend (.budget.cost), measured once by the budget thread when it starts.
 *
 * The meter times the wrapped monitors of a sampled call; the rest of a
 * traced call's cost is the same for every function: the call of the
 * traced copy, the indirect calls of the hooks, the meter's own counting
 * and its sampling. That is measured here as the generated code does it
 * (docs/code-shape.md 3.1), with an empty body and a monitor that does
 * nothing: a call whose slot holds the meter around it, less a call whose
 * slot is NULL, the fastest of several rounds (a round that was preempted
 * only gets slower). And what a sampled call's clock reads add to an empty
 * monitor (floor_ns) is taken off each function's sampled cost.
 */
#include <math.h>

#include "budget.h"
#include "../clock.h"

static tf_monitor *holder, *slot;
static const tf_tu_group calib_groups[1] = {{"tf_budget_calibration", &holder}};
static const tf_name calib_names[1] = {
    {"call", TF_NAME_MONITOR, 0, "<tf budget calibration>", 1, 0},
};
static tf_tu calib_tu = {TF_TU_ABI, sizeof(tf_tu), "<tf budget calibration>",
                         "tf_budget_calibration", 1, 1, 0, 0, calib_names, calib_groups, NULL,
                         TF_VERSION, NULL};

static void e_enter(tf_monitor *self, int id, const tf_args *args) {}
static void e_exit(tf_monitor *self, int id, const tf_value *result) {}
static const tf_monitor_ops empty_ops = {
    .enter = e_enter, .exit = e_exit, .flags = TF_OPS_NO_VALUES
};

__attribute__((noinline)) static int traced(int x, tf_monitor *mm)
{
    mm->ops->enter(mm, 0, NULL);
    __asm__ volatile("" : "+r"(x));
    mm->ops->exit(mm, 0, NULL);
    __asm__ volatile("" ::: "memory"); /* no tail call, as generated code */
    return x;
}

__attribute__((noinline)) static int call(int x)
{
    tf_monitor *mm = *(tf_monitor *volatile *)&slot;
    if (__builtin_expect(mm != 0, 0))
        return traced(x, mm);
    __asm__ volatile("" : "+r"(x));
    return x;
}

#define CALLS 1000
#define COST_CAP_NS 100000.0 /* no monitor's hooks take 100 us a call; a preempted sample may */
#define ROUNDS 9

/* Ticks a call takes with slot = mm, the fastest round; with a meter, also
 * the ticks its samples counted per sample in the round with the fewest
 * (into *floor): a preempted sample counts 100 us. */
static double per_call(tf_monitor *mm, double *floor)
{
    double best = INFINITY;
    bg_count *k = mm && bg_me ? bg_own_count(bg_me, bg_meter_first(mm)) : NULL;
    for (int r = 0; r < ROUNDS; r++) {
        __atomic_store_n(&slot, mm, __ATOMIC_RELAXED);
        uint64_t s0 = k ? BG_GET(k->samples) : 0, c0 = k ? BG_GET(k->cost) : 0;
        int x = r;
        uint64_t t0 = tf__clock_now();
        for (int i = 0; i < CALLS; i++)
            x = call(x);
        uint64_t t1 = tf__clock_now();
        __asm__ volatile("" : : "r"(x));
        best = fmin(best, (double)(t1 - t0) / CALLS);
        if (!k) /* the first round made the thread's counters */
            k = mm && bg_me ? bg_own_count(bg_me, bg_meter_first(mm)) : NULL;
        else if (BG_GET(k->samples) > s0)
            *floor = fmin(*floor, (double)(BG_GET(k->cost) - c0) / (double)(BG_GET(k->samples) - s0));
    }
    return best;
}

void bg_calibrate(bg_calib *c)
{
    tf__clock_init();
    double hz = tf__clock_hz(0); /* rough at first: judge.c reads it again every window */
    c->ns_per_tick = hz > 0 ? 1e9 / hz : 1;
    __atomic_store_n(&bg_cost_cap, (uint64_t)(COST_CAP_NS / c->ns_per_tick), __ATOMIC_RELAXED); /* at first */
    __atomic_store_n(&bg_once_cap, (uint64_t)(COST_CAP_NS / c->ns_per_tick), __ATOMIC_RELAXED);
    c->base_ns = c->floor_ns = 0;
    tf_monitor empty = {&empty_ops, &calib_tu, NULL};
    tf_monitor *m = bg_meter_wrap(&empty, &calib_tu);
    if (!m)
        return;
    bg_meter_internal(m);
    double floor = INFINITY, unused = INFINITY;
    double off = per_call(NULL, &unused), on = per_call(m, &floor);
    if (on > off)
        c->base_ns = (on - off) * c->ns_per_tick;
    if (floor < INFINITY)
        c->floor_ns = floor * c->ns_per_tick;
    m->ops->destroy(m); /* the empty monitor has no destroy; its range is free again */
}
