/*
 * judge.c: what the budget thread decides (.budget.window). It closes a
 * window every 2 ms at first, doubling to 40 ms (a program at 25 times its
 * speed must not wait long for the first decision; budget.c runs the
 * thread), or at once when a thread's hooks spent more than one and a half
 * budgets (a new hot function: .budget.hurry), and at each:
 *
 * - sums every thread's counters: each function's calls in the window, and
 *   its sampled cost and span so far; only the functions called in the
 *   window are looked at;
 * - estimates the hooks' cost: calls x (the calibrated cost of a metered
 *   call + what the wrapped monitors took on its sampled calls); the
 *   program's own time is the process's CPU time in the window (brought up
 *   to date for the threads that call hooks) less that and less this
 *   thread's own;
 * - keeps the account of what the hooks and this thread spent against
 *   what the budget allowed (.budget.account);
 * - if the hooks cost more than the budget of the program's own time (less
 *   a debt being paid back), switches functions off, cheapest to lose first
 *   (.budget.order), until they do not (.budget.shed);
 * - tries functions switched off earlier again, paid from what the budget
 *   left unused (.budget.readmit).
 *
 * A window in which the process used less than 1 ms of CPU (0.1 ms when
 * hurried) is extended (up to a second): too little to judge by.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "../clock.h"

#define MIN_CPU_NS 1e6
#define MIN_HURRIED_CPU_NS 1e5 /* a hurried window (.budget.hurry) is judged from 0.1 ms */
#define HURRY_SLACK_NS 5e5     /* the budget of this much time before a thread hurries, */
#define HURRY_OVER 1.5         /* and its hooks' share of the time, in budgets, after which it does, */
#define HURRY_SPAN_NS 2e6      /* measured over the last 2 to 4 ms */
#define KEEP_IN_DEBT 0.1       /* in debt, a window keeps down to this much of the budget */
#define LONGEST_WINDOW_NS 1000000000ull
#define COST_CAP_NS 100000.0     /* a sample counts at most this much, */
#define COST_FLOOR_NS 2000.0     /* and its cap is never lower than this */
#define MIN_SAMPLES 16         /* fewer: the cost of all functions' sampled calls (outliers weigh less) */
#define QUARANTINE_MAX_S 3600.0
#define SEEN_SHARE 0.85        /* of what a traced call costs, what its samples and the base see (.budget.unseen) */
#define CREDIT_S 10.0          /* the account holds at most what 10 s of the program's time allow, either way */

/* All of it under bg_lock. */
static bg_calib calib;
static uint64_t start_ns;      /* CLOCK_MONOTONIC when the budget (re)started */
static struct {
    uint64_t wall, once;
    double cpu, own;
} win;
static double hooks_total, useful_total, last_over;
static double balance; /* what the budget allowed less what the hooks cost, so far (.budget.account) */
static double next_trial; /* no quarantine ends before (seconds; 0: look) */
static bg_count *sums;
static uint64_t *seen_calls;   /* each index's calls at the last window, dense: a window */
static uint32_t capsums;       /* looks only at the indices whose sums moved */
int bg_fresh_any;

static double clock_ns(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double now_s(void)
{
    return (double)(tf__clock_mono_ns() - start_ns) / 1e9;
}

/* ---- the choice (.budget.order) ------------------------------------------------ */

/* Hook cost per nanosecond of the function's own time: what the hooks buy
 * per unit of trace. Unknown (no call sampled yet: rare calls) sorts last. */
static double key(const bg_est *e)
{
    if (e->span_ns < 0)
        return 0;
    return e->per_call_ns / fmax(e->span_ns, 0.1);
}

static int by_key(const void *pa, const void *pb)
{
    const bg_est *a = pa, *b = pb;
    double ka = key(a), kb = key(b);
    if (ka != kb)
        return ka < kb ? 1 : -1;
    return a->cost_ns < b->cost_ns ? 1 : a->cost_ns > b->cost_ns ? -1 : (a->index > b->index) - (a->index < b->index);
}

static int by_cost(const void *pa, const void *pb)
{
    const bg_est *a = pa, *b = pb;
    return a->cost_ns < b->cost_ns ? 1 : a->cost_ns > b->cost_ns ? -1 : (a->index > b->index) - (a->index < b->index);
}

double bg_choose(bg_est *v, size_t n, double allowed_ns, double fixed_ns)
{
    double total = fixed_ns;
    for (size_t i = 0; i < n; i++) {
        v[i].shed = 0;
        total += v[i].cost_ns;
    }
    if (total <= allowed_ns || n == 0)
        return total;
    /* First, cheapest to lose first, only the functions worth switching
     * off: each at least a hundredth of the excess (a rarely called tiny
     * function is cheap to lose per call, but losing it saves nothing).
     * Then, if that was not enough, the costliest of the rest first, so
     * that as few as possible go. */
    double worth = (total - allowed_ns) / 100;
    qsort(v, n, sizeof *v, by_key);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n && total > allowed_ns; i++)
            if (!v[i].shed && v[i].cost_ns > 0 && v[i].cost_ns >= worth) {
                v[i].shed = 1;
                total -= v[i].cost_ns;
            }
        worth = 0;
        qsort(v, n, sizeof *v, by_cost);
    }
    return total;
}

/* ---- switching functions off and on --------------------------------------------- */

struct change {
    bg_tu *tu;
    uint32_t id;
};
static struct change *changes;
static size_t nchanges, capchanges;

void bg_note_change(bg_fn *f)
{
    bg_wake(); /* at once: a library loaded again runs what was switched off */
    if (nchanges == capchanges) {
        size_t cap = capchanges ? 2 * capchanges : 64;
        struct change *c = realloc(changes, cap * sizeof *c);
        if (!c)
            return; /* the registry keeps the function as it is; decided again next window */
        changes = c;
        capchanges = cap;
    }
    changes[nchanges++] = (struct change){f->tu, f->id};
}

static int by_tu(const void *pa, const void *pb)
{
    const struct change *a = pa, *b = pb;
    return a->tu != b->tu ? (a->tu < b->tu ? -1 : 1) : (a->id > b->id) - (a->id < b->id);
}

/* Lock held: tells the registry, one call per TU and direction. Out of
 * memory, the changes wait for the next window. */
static void apply_changes(void)
{
    uint32_t *on = malloc((nchanges ? nchanges : 1) * sizeof *on);
    uint32_t *off = malloc((nchanges ? nchanges : 1) * sizeof *off);
    if (nchanges) /* changes is NULL before the first, which qsort may not be given */
        qsort(changes, nchanges, sizeof *changes, by_tu);
    for (size_t i = 0; i < nchanges && on && off;) {
        bg_tu *t = changes[i].tu;
        size_t non = 0, noff = 0;
        for (; i < nchanges && changes[i].tu == t; i++) {
            if (bg_fns[t->first + changes[i].id].state == BG_SHED)
                off[noff++] = changes[i].id;
            else
                on[non++] = changes[i].id;
        }
        if (t->refs > 0) { /* still loaded: the registry knows it */
            if (non)
                tf__registry_shed(t->tu, on, non, 0);
            if (noff)
                tf__registry_shed(t->tu, off, noff, 1);
        }
    }
    if (on && off)
        nchanges = 0;
    free(on);
    free(off);
}

static void shed(bg_fn *f, double secs, const bg_est *e, double useful, double now)
{
    char name[512];
    if (!f->name) {
        bg_fn_name(f, name, sizeof name);
        f->name = strdup(name);
    }
    f->state = BG_SHED;
    f->ever = 1;
    f->strikes++;
    f->rate = e->calls / secs;
    f->ns_per_call = e->per_call_ns;
    f->share = e->cost_ns / useful;
    f->at = now;
    f->until = now + fmin(ldexp(1, f->strikes), QUARANTINE_MAX_S);
    next_trial = fmin(next_trial, f->until);
    bg_note_change(f);
}

/* ---- one window ------------------------------------------------------------------- */

/* The cost of a metered call of f (ns), from its samples, or all functions',
 * and what neither they nor the base see (.budget.unseen). */
static double per_call_ns(const bg_count *tot, double avg_ticks)
{
    double ticks = tot->samples >= MIN_SAMPLES ? (double)tot->cost / (double)tot->samples : avg_ticks;
    return (calib.base_ns + fmax(0, ticks * calib.ns_per_tick - calib.floor_ns)) / SEEN_SHARE;
}

static int grow_sums(uint32_t n)
{
    if (n <= capsums)
        return 0;
    bg_count *s = realloc(sums, n * sizeof *s);
    if (!s)
        return -1;
    sums = s;
    uint64_t *c = realloc(seen_calls, n * sizeof *c);
    if (!c)
        return -1;
    memset(c + capsums, 0, (n - capsums) * sizeof *c); /* a new index has counted nothing */
    seen_calls = c;
    capsums = n;
    return 0;
}

/* The totals of index i since its range began. */
static bg_count total_of(const bg_fn *f, uint32_t i)
{
    return (bg_count){sums[i].calls - f->zero.calls, sums[i].samples - f->zero.samples,
                      sums[i].cost - f->zero.cost, sums[i].span - f->zero.span};
}

/* Lock held. Each live function's estimate into v (those that can be
 * switched off and ran); returns their count, the rest's cost in *fixed. */
static size_t estimate(bg_est *v, uint32_t n, double *fixed, double *hooks)
{
    /* The mean sample of the loaded TUs' functions (a range used before
     * keeps its earlier samples in it): dense, over sums alone. */
    uint64_t all_cost = 0, all_samples = 0;
    for (const bg_tu *t = bg_tus; t; t = t->next)
        if (t->refs > 0 && !t->internal)
            for (uint32_t i = t->first; i < t->first + t->n && i < n; i++)
                all_cost += sums[i].cost, all_samples += sums[i].samples;
    double avg = all_samples ? (double)all_cost / (double)all_samples : 0;
    /* A sample many times the usual one is mostly something else: a first
     * call whose monitor made its state (mmap), a page fault, preemption.
     * From here on samples count at most 16 times the mean so far (.budget.sample). */
    if (all_samples >= 64) {
        double cap = fmin(fmax(16 * avg, COST_FLOOR_NS / calib.ns_per_tick), COST_CAP_NS / calib.ns_per_tick);
        __atomic_store_n(&bg_cost_cap, (uint64_t)cap, __ATOMIC_RELAXED);
    }
    size_t k = 0;
    int all = bg_fresh_any;
    bg_fresh_any = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (sums[i].calls == seen_calls[i] && !all)
            continue; /* not called in the window: nothing to count or decide */
        uint64_t calls = sums[i].calls - seen_calls[i];
        seen_calls[i] = sums[i].calls;
        bg_fn *f = &bg_fns[i];
        if (!f->tu || f->tu->refs == 0)
            continue;
        if (f->fresh) { /* a reused range: what its counters hold is its zero */
            f->zero = sums[i];
            f->fresh = 0;
            continue;
        }
        bg_count t = total_of(f, i);
        double pc = per_call_ns(&t, avg);
        f->win_ns = (double)calls * pc;
        *hooks += f->win_ns;
        if (!calls)
            continue;
        if (f->state == BG_SHED) /* calls on their way when it was switched off, or
                                  * of a library loaded again, switched off next */
            continue;
        if (!f->tu->slotted) {
            *fixed += f->win_ns;
            continue;
        }
        double span = t.samples ? (double)t.span / (double)t.samples * calib.ns_per_tick : -1;
        v[k++] = (bg_est){i, (double)calls, f->win_ns, pc, span, 0};
    }
    return k;
}

/* The program's own time in a window of cpu_ns (the budget thread's own
 * left out) read most favourably: the hooks' estimate, already brought
 * within cpu_ns (bg_judge), is a third too high (.budget.cost says how
 * close it comes). */
#define HOOKS_ERR (1.0 / 3)
static double useful_at_most(double cpu_ns, double hooks_ns)
{
    return cpu_ns <= 0 ? 0 : cpu_ns - hooks_ns / (1 + HOOKS_ERR);
}

/* What the hooks may cost in a window (.budget.account, .budget.order):
 * the budget of the program's own time (useful), less a debt being paid
 * back; inside is the CPU time less this thread's own, hooks the hooks'
 * estimate and hooks_in that brought within inside. */
double bg_allowed(double budget, double useful, double account, double inside, double hooks,
                  double hooks_in)
{
    double allowed = budget * useful + fmin(fmax(account / 8, -budget * useful * (1 - KEEP_IN_DEBT)), 0);
    /* Where the hooks' estimate is most of the CPU time, the program's own
     * time, their difference, is known badly (a few percent off in the one
     * is many times off in the other): then only enough is switched off to
     * bring the hooks under a twentieth of the CPU time, or what the budget
     * allows the program's time read most favourably, whichever is more, and
     * the next window, measured with those off, judges the rest. This
     * thread's own time is measured, not estimated: it is left out of both
     * sides (a first window holds its start, often more than the program's
     * time in it). */
    if (hooks > inside - hooks)
        allowed = fmax(allowed, fmax(inside / 20, budget * useful_at_most(inside, hooks_in)));
    return allowed;
}

static int by_probe_cost(const void *pa, const void *pb)
{
    const bg_fn *a = *(bg_fn *const *)pa, *b = *(bg_fn *const *)pb;
    return (a->share > b->share) - (a->share < b->share);
}

/* Lock held: functions off whose quarantine is over, cheapest first, while
 * the unused budget kept so far pays for a window of each at the cost it
 * had when it was switched off (.budget.readmit). */
static void try_again(uint32_t n, double useful, double over, double budget)
{
    double now = now_s();
    if (balance < 0 || now < next_trial)
        return; /* nothing left unused to pay a trial with, or nothing due */
    size_t k = 0;
    bg_fn **v = malloc((n ? n : 1) * sizeof *v);
    next_trial = HUGE_VAL;
    for (uint32_t i = 0; v && i < n; i++) {
        if (bg_fns[i].state != BG_SHED)
            continue;
        if (bg_fns[i].until > now)
            next_trial = fmin(next_trial, bg_fns[i].until);
        else if (bg_fns[i].tu && bg_fns[i].tu->refs > 0 && bg_fns[i].tu->slotted)
            v[k++] = &bg_fns[i];
    }
    if (!v)
        next_trial = 0;
    if (v)
        qsort(v, k, sizeof *v, by_probe_cost);
    double spend = balance;
    size_t i = 0;
    for (; i < k && v[i]->share * useful <= spend; i++) {
        spend -= v[i]->share * useful;
        v[i]->state = BG_TRIAL;
        bg_note_change(v[i]);
        bg_record(v[i], "trial", v[i]->rate, v[i]->ns_per_call, v[i]->share, over, budget);
    }
    if (i < k)
        next_trial = 0; /* due and not paid for yet */
    free(v);
}

/* The process's CPU time, up to date for the threads that call hooks
 * (bg_threads_poke). */
static double process_cpu_ns(void)
{
    bg_threads_poke();
    return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* A new window: every thread measures its hooks against the budget again
 * (.budget.hurry). off: no hurrying (the cost nothing can switch off is
 * over the budget already). */
static void next_window(double budget, int off)
{
    double tick = calib.ns_per_tick > 0 ? calib.ns_per_tick : 1;
    __atomic_store_n(&bg_hurry_base, (uint64_t)(calib.base_ns / tick), __ATOMIC_RELAXED);
    __atomic_store_n(&bg_hurry_floor, (uint64_t)(calib.floor_ns / tick), __ATOMIC_RELAXED);
    /* at least what a hurried window needs to be judged: the hooks ran in it */
    double slack = fmax(budget * HURRY_SLACK_NS, MIN_HURRIED_CPU_NS);
    __atomic_store_n(&bg_hurry_slack, (uint64_t)(slack / tick * 1000), __ATOMIC_RELAXED);
    __atomic_store_n(&bg_hurry_span, (uint64_t)(HURRY_SPAN_NS / tick), __ATOMIC_RELAXED);
    /* the hooks count what samples see: SEEN_SHARE of the cost (.budget.unseen) */
    __atomic_store_n(&bg_hurry_permille, off ? 0 : (uint64_t)fmax(1, 1000 * HURRY_OVER * budget * SEEN_SHARE),
                     __ATOMIC_RELAXED);
    __atomic_add_fetch(&bg_window_gen, 1, __ATOMIC_RELAXED);
}

int bg_judge(double budget, int hurried)
{
    if (nchanges) /* a library loaded again: what was switched off in it */
        apply_changes();
    uint64_t wall = tf__clock_mono_ns();
    double cpu = process_cpu_ns(), own = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    double dcpu = cpu - win.cpu;
    if (dcpu < (hurried ? MIN_HURRIED_CPU_NS : MIN_CPU_NS) && wall - win.wall < LONGEST_WINDOW_NS)
        return 0; /* too little happened to judge by: the window goes on */
    /* this thread's own time is paid from the account, with the hooks';
     * the choice is of the hooks' cost alone (nothing else can be cut) */
    double secs = (double)(wall - win.wall) / 1e9, fixed = 0, hooks = 0, own_ns = own - win.own;
    double hz = tf__clock_hz(0); /* its calibration gets more precise as time passes */
    if (hz > 0)
        calib.ns_per_tick = 1e9 / hz;
    win.wall = wall, win.cpu = cpu, win.own = own;
    uint32_t n = bg_nfns < BG_MAX_FUNCS ? bg_nfns : BG_MAX_FUNCS;
    bg_est *v = malloc((n ? n : 1) * sizeof *v);
    if (!v || grow_sums(n) != 0) {
        free(v);
        return 0;
    }
    memset(sums, 0, n * sizeof *sums);
    uint64_t once = bg_threads_sum(sums, n);
    size_t k = estimate(v, n, &fixed, &hooks);
    /* the functions' first calls in the window, timed apart (.budget.sample):
     * the hooks' cost, paid from the account, but nothing to switch off */
    hooks += (double)(once - win.once) * calib.ns_per_tick;
    win.once = once;
    double useful = fmax(dcpu - hooks - own_ns, dcpu / 100), now = now_s();
    double over = (hooks + own_ns) / useful;
    hooks_total += hooks + own_ns, useful_total += useful, last_over = over;
    /* The account (.budget.account): what this window spent, the hooks and
     * this thread, against what the budget allowed it. A debt makes the next
     * windows keep less (down to a tenth of the budget, paying an eighth of
     * it back each), so that the whole run, new hot functions, the first
     * windows and the judging included, stays within the budget; what is
     * left over pays for trials (.budget.readmit). */
    double cap = budget * useful * CREDIT_S / secs;
    balance = fmin(fmax(balance + budget * useful - hooks - own_ns, -cap), cap);
    /* The hooks ran within the CPU time: an estimate above it is that much
     * too high for every function (a preempted sample among a function's
     * first few), and is brought down to it, for the program's time read
     * below and for the choice. */
    double inside = dcpu - own_ns, hooks_in = inside > 0 ? fmin(hooks, inside) : hooks;
    double allowed = bg_allowed(budget, useful, balance, inside, hooks, hooks_in);
    if (hooks_in < hooks) {
        double down = hooks_in / hooks;
        for (size_t i = 0; i < k; i++)
            v[i].cost_ns *= down;
        fixed *= down;
    }
    bg_choose(v, k, allowed, fixed);
    next_window(budget, fixed > allowed);
    int shed_any = 0;
    for (size_t i = 0; i < k; i++) {
        bg_fn *f = &bg_fns[v[i].index];
        if (v[i].shed) {
            shed_any = 1;
            shed(f, secs, &v[i], useful, now);
            bg_record(f, "deselected", f->rate, f->ns_per_call, f->share, over, budget);
        } else if (f->state == BG_TRIAL) {
            f->state = BG_ON;
            f->readmitted++;
            f->back_at = now;
            bg_record(f, "readmitted", v[i].calls / secs, v[i].per_call_ns, v[i].cost_ns / useful,
                      over, budget);
        }
    }
    try_again(n, useful, over, budget);
    apply_changes();
    free(v);
    return shed_any;
}

/* The first window starts now; calls before it (those of the calibration
 * too) are no part of it. */
void bg_window_start(double budget)
{
    next_window(budget, 0);
    uint32_t n = bg_nfns < BG_MAX_FUNCS ? bg_nfns : BG_MAX_FUNCS;
    if (grow_sums(n) == 0) {
        memset(sums, 0, n * sizeof *sums);
        win.once = bg_threads_sum(sums, n);
        for (uint32_t i = 0; i < n; i++)
            seen_calls[i] = sums[i].calls;
    } else {
        win.once = bg_threads_sum(NULL, 0);
    }
    win.wall = tf__clock_mono_ns();
    win.cpu = process_cpu_ns();
    win.own = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void bg_judge_calibrated(const bg_calib *c)
{
    calib = *c;
}

void bg_judge_start(void)
{
    start_ns = tf__clock_mono_ns();
    hooks_total = useful_total = last_over = balance = next_trial = 0;
}

uint64_t bg_seen_calls(uint32_t i)
{
    return i < capsums ? seen_calls[i] : bg_fns[i].zero.calls;
}

void bg_trials_due(void)
{
    next_trial = 0;
}

void bg_judge_again(void)
{
    balance = next_trial = 0;
    for (uint32_t i = 0; i < bg_nfns; i++)
        if (bg_fns[i].state == BG_SHED)
            bg_fns[i].strikes = 0, bg_fns[i].until = 0;
}

void bg_give_all_back(void)
{
    double now = now_s();
    for (uint32_t i = 0; i < bg_nfns; i++)
        if (bg_fns[i].state != BG_ON) {
            bg_fns[i].state = BG_ON;
            bg_fns[i].back_at = now;
        }
    tf__registry_unshed_all();
}

void bg_judge_totals(bg_totals *out, int running)
{
    out->hooks_ns = hooks_total, out->useful_ns = useful_total, out->last_over = last_over;
    out->since = running ? now_s() : 0;
    out->measured = 0, out->traced = 0;
    /* the counters now, not as of the last window (a program that waits
     * closes none) */
    uint32_t n = bg_nfns < BG_MAX_FUNCS ? bg_nfns : BG_MAX_FUNCS;
    if (grow_sums(n) == 0) {
        memset(sums, 0, n * sizeof *sums);
        bg_threads_sum(sums, n);
    }
    for (uint32_t i = 0; i < bg_nfns; i++) {
        const bg_fn *f = &bg_fns[i];
        if (!f->tu || f->tu->internal || f->fresh)
            continue;
        uint64_t calls = (i < n && capsums >= n ? sums[i].calls : bg_seen_calls(i)) - f->zero.calls;
        out->measured += f->ever || calls;
        out->traced += calls;
    }
    for (bg_gone *g = bg_gone_list; g; g = g->next) {
        out->measured++;
        out->traced += g->traced;
    }
}
