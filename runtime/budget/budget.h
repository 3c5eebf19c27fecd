/*
 * budget.h: what the overhead budget's files share (README.md here; design
 * tags docs/design.md .budget.*). Private to libtf, like runtime/internal.h,
 * which it extends.
 *
 * Three parties touch the budget's state:
 * - every thread, in the meter's hooks (meter.c): only its own record
 *   (bg_thread), whose counters it bumps with plain moves (relaxed atomics,
 *   no read-modify-write) and whose sampled calls it keeps;
 * - the budget thread (judge.c), every window: it sums every record's
 *   counters, and alone decides; under bg_lock;
 * - the control server and the exit handler (report.c): they read the
 *   decisions, under bg_lock.
 * Records are never freed (a thread that ends leaves its record for the
 * next one), so the budget thread never reads unmapped memory.
 */
#ifndef TF_BUDGET_INTERNAL_H
#define TF_BUDGET_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "../internal.h"

/* ---- per-thread counters (threads.c) -----------------------------------------
 * Each function the meter sees has a global index (funcs.c); each thread
 * counts its calls of it in a bg_count. Only the owner writes one; the
 * budget thread reads them all (.budget.count). */
typedef struct bg_count {
    uint64_t calls;    /* enters through the meter */
    uint64_t samples;  /* calls whose hooks were timed (about one in 64) */
    uint64_t cost;     /* ticks spent in the wrapped monitors' enter and exit, over samples */
    uint64_t span;     /* ticks from the end of enter to the start of exit, over samples */
} bg_count;
/* Counters come in chunks that never move, made as a thread first calls a
 * function of a chunk. BG_CHUNK * BG_CHUNKS functions are measured at most
 * (.budget.limit): a function past them is neither measured nor
 * deselected, and the exit line says how many were. */
#define BG_CHUNK 1024u
#define BG_CHUNKS 4096u
#define BG_MAX_FUNCS (BG_CHUNK * BG_CHUNKS)

/* A sampled call still open: matched by its exit through meter, id and the
 * stack position (.budget.sample). */
typedef struct bg_open {
    const void *meter;
    int32_t id;
    uint32_t index;    /* its global index */
    uint32_t interval; /* the calls it stands for (.budget.hurry) */
    uintptr_t sp;
    uint64_t t1;       /* tf__clock_now() after the wrapped enter */
    uint64_t cost;     /* ticks the wrapped enter took */
} bg_open;
#define BG_OPEN 8      /* sampled calls open at once per thread; more replace the oldest */

typedef struct bg_thread {
    tf_threadrec rec;        /* first: the list of every record, and its owner */
    uint32_t countdown;      /* calls until the next sampled one */
    uint32_t rng;            /* xorshift state: sampling intervals of 32 to 95 calls */
    uint32_t interval;       /* the calls the next sample stands for (.budget.hurry) */
    int nopen;
    const void *top_meter;   /* open[nopen - 1]'s meter and id (NULL: none open), */
    int32_t top_id;          /* so that an exit checks two words */
    pid_t tid;               /* its owner's, for its CPU clock (bg_threads_poke) */
    /* what its sampled calls say its hooks spent in the budget thread's
     * window bg_window_gen, in spans from its first sample in it (.budget.hurry) */
    uint32_t gen;
    int hurried;
    uint64_t hstart, hspend; /* ticks: the span's start, what it spent */
    uint64_t hprev, hprevlen; /* the span before: what it spent, how long it was */
    uint64_t once;           /* ticks of its functions' first calls (.budget.sample); never reset */
    bg_open open[BG_OPEN];
    bg_count *chunk[BG_CHUNKS];
} bg_thread;

/* The calling thread's record (NULL until its first metered call). */
extern TF_TLS bg_thread *bg_me;
/* The counter of global index i for the calling thread, made on first use
 * (record and chunk from pages.c: async-signal-safe, keeps errno); NULL if
 * out of memory or past BG_MAX_FUNCS. */
bg_count *bg_count_make(uint32_t i);
static inline bg_count *bg_own_count(bg_thread *t, uint32_t i)
{
    bg_count *c = i < BG_MAX_FUNCS ? t->chunk[i / BG_CHUNK] : NULL; /* only this thread stores it */
    return c ? c + i % BG_CHUNK : NULL;
}
/* Head of the list of every record (acquire), and the next one. */
bg_thread *bg_threads(void);
static inline bg_thread *bg_next(const bg_thread *t)
{
    return (bg_thread *)t->rec.next;
}
/* Adds every record's counters of indices [0, n) into sum[] (the budget
 * thread; relaxed loads of words only their owners store); returns their
 * one-time ticks, summed (records outlive their threads). */
uint64_t bg_threads_sum(bg_count *sum, uint32_t n);
void bg_threads_fork_child(void);
/* Reads the CPU clock of each thread that owns a record (the first
 * BG_POKE), which brings the kernel's count of its time up to date: the
 * process's clock adds the time of the other threads only as of their last
 * tick or switch (4 ms at HZ=250), far too coarse for 2 ms windows. */
#define BG_POKE 64u
void bg_threads_poke(void);
/* The CPU clock of thread tid of this process (the kernel's
 * MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)). */
static inline clockid_t bg_thread_clock(pid_t tid)
{
    return (clockid_t)(~(unsigned)tid << 3) | 6;
}
#define BG_GET(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define BG_SET(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELAXED)

/* ---- the meter (meter.c) -----------------------------------------------------
 * The layer the registry puts around every holder's monitor while a budget
 * runs (tf__registry_meter): counts each call, times one in about 64. */
tf_factory *bg_factory(void);
/* tf__budget_make (internal.h), the registry's maker while libtf runs: the
 * meter around the composition of fs[0..n-1) when fs[n-1] is the meter's
 * factory; else the composition of fs. tf__budget_inner: the monitor a
 * meter wraps; m itself if it is no meter. */
/* A sampled call's cost counts at most this many ticks: 100 us at first
 * (calib.c), then 16 times the mean sample so far, at least 2 us (judge.c):
 * a sample the thread was preempted in, or a monitor's first call that made
 * its state, says little of what the hooks cost a call. */
extern uint64_t bg_cost_cap, bg_once_cap;
/* What calibration measures: the meter's hooks around an empty monitor. */
tf_monitor *bg_meter_wrap(tf_monitor *inner, const tf_tu *tu);
/* A meter of libtf's own (calibration, probe): its TU is no function of
 * the program's, never counted as measured. */
void bg_meter_internal(tf_monitor *m);
/* 1 if the meters use the fast hooks (the compiler made their jumps). */
int bg_meter_fast(void);
/* The global index of function 0 of a meter's TU. */
uint32_t bg_meter_first(const tf_monitor *m);

/* ---- functions and their decisions (funcs.c) ---------------------------------- */
typedef struct bg_tu {
    struct bg_tu *next;
    const tf_tu *tu;     /* as registered; compared only while refs > 0 */
    uint32_t first, n;   /* global indices [first, first + n) */
    int refs;            /* meters alive for it; 0: unloaded, its range free again */
    int slotted;         /* TF_TU_ABI 3: its functions can be switched off one by one */
    int internal;        /* the calibration's or the probe's: measures nothing of the program */
    int light;           /* TF_TU_LIGHT_CLONES: its kept calls run traced copies compiled light */
    char *file;          /* tu->file and a hash of its names: the same code loaded */
    uint64_t hash;       /* again takes this range back (funcs.c) */
} bg_tu;

enum bg_state { BG_ON, BG_SHED, BG_TRIAL };

typedef struct bg_fn {
    bg_tu *tu;           /* NULL: not a monitored function; its TU is loaded while tu->refs > 0 */
    uint32_t id;
    int fresh;           /* the range was reused: the next window takes its sums as zero */
    bg_count zero;       /* the sums when the range began */
    double win_ns;       /* the hooks' cost in the last window */
    /* the budget's decision (.budget.shed, .budget.readmit) */
    enum bg_state state;
    int ever;            /* deselected at least once */
    int strikes;         /* times deselected */
    int readmitted;      /* times it came back and stayed */
    double rate;         /* calls per second of the window it was last deselected in */
    double ns_per_call;  /* and the hooks' cost per call then */
    double share;        /* its hooks as a fraction of the program's own time then */
    double at;           /* seconds since the budget started, when last deselected */
    double back_at;      /* when last re-admitted (0: not) */
    double until;        /* quarantine: not tried again before (seconds) */
    char *name;          /* "<tu>.<name>", copied when first deselected: named at exit
                          * even if its TU was unloaded */
} bg_fn;

/* Functions deselected in TUs unloaded since (their ranges are reused). */
typedef struct bg_gone {
    struct bg_gone *next;
    bg_fn fn;
    uint64_t traced;     /* its calls metered, as of the last window before it went */
} bg_gone;

/* Everything below is guarded by bg_lock (runtime/locks.h, row budget). */
extern pthread_mutex_t bg_lock;
extern bg_fn *bg_fns;
extern uint32_t bg_nfns;        /* indices given out */
extern bg_tu *bg_tus;
extern uint64_t bg_unmeasured;  /* functions past BG_MAX_FUNCS, or whose meter could not be made */
extern bg_gone *bg_gone_list;
extern int bg_fresh_any;        /* a range was reused: the next window looks at every function */
/* The TU's range for a new meter (refs + 1); NULL if out of memory. */
bg_tu *bg_tu_get(const tf_tu *tu);
/* A meter of t went away; at 0 its range is free for a TU of the same size
 * (what was decided stays until then). */
void bg_tu_put(bg_tu *t);
/* fn is to be switched off (SHED) or on in the registry at the next window
 * (judge.c). */
void bg_note_change(bg_fn *fn);
/* "<tu>.<name>" of fn, into out. */
void bg_fn_name(const bg_fn *fn, char *out, size_t len);

/* ---- the budget thread (calib.c, judge.c, budget.c) ----------------------------- */
/* The hooks' cost model, measured once by the budget thread (calib.c). */
typedef struct bg_calib {
    double ns_per_tick;
    double base_ns;      /* a metered call of an empty monitor, above an unmonitored one */
    double floor_ns;     /* what a sampled call's timing adds to an empty monitor's hooks */
} bg_calib;
void bg_calibrate(bg_calib *c);

/* One window's estimate of a function, and the choice made from them
 * (.budget.order): pure, so tests/unit/test_budget.c checks it alone. */
typedef struct bg_est {
    uint32_t index;
    double calls;        /* in the window */
    double cost_ns;      /* the hooks' cost in the window */
    double per_call_ns;
    double span_ns;      /* a call's own time (end of enter to start of exit); < 0: unknown */
    int shed;            /* out: switch it off */
} bg_est;
/* Marks in v the functions to switch off, cheapest to lose first, until the
 * hooks of the rest cost at most allowed_ns (with fixed_ns that nothing
 * switches off); returns the cost left. */
double bg_choose(bg_est *v, size_t n, double allowed_ns, double fixed_ns);
/* What the hooks may cost in a window (ns): the budget (a fraction) of the
 * program's own time (useful), less a share of a debt (account < 0); where
 * the hooks' estimate is most of inside (the CPU time less the budget
 * thread's), more. hooks_in: the estimate brought within inside. Pure. */
double bg_allowed(double budget, double useful, double account, double inside, double hooks,
                  double hooks_in);

/* The budget now (0: off) and, if running, the totals so far. */
typedef struct bg_totals {
    double budget;
    double hooks_ns, useful_ns;     /* over every window */
    double last_over;               /* the last window's hooks / own time */
    double since;                   /* seconds the budget has run */
    uint32_t measured;              /* functions metered so far */
    uint64_t traced;                /* calls metered: their hooks ran */
} bg_totals;

/* judge.c, all under bg_lock: a window (the budget as a fraction; its
 * thread calls it every 2 to 40 ms, or at once when a thread hurried it;
 * 1 when it switched functions off, so that the next window, short, sees
 * what that left); the cost
 * model once measured; a budget starting (the clock of "deselected at"
 * and the totals start from zero); a new budget for a running one (what
 * was switched off may be tried again at once, paid from what the new
 * budget leaves unused); off (every function switched off follows the
 * selection again); the totals for bg_get. */
int bg_judge(double budget, int hurried);
void bg_window_start(double budget);
void bg_judge_calibrated(const bg_calib *c);
void bg_judge_start(void);
void bg_judge_again(void);
/* A library loaded again: what it had switched off may be due for a trial. */
void bg_trials_due(void);
/* The calls of index i counted as of the last window (judge.c keeps them
 * dense: a window looks only at the indices whose sums moved). */
uint64_t bg_seen_calls(uint32_t i);
void bg_give_all_back(void);
void bg_judge_totals(bg_totals *out, int running);
/* budget.c: wakes the budget thread, if one runs (a change waits for it). */
void bg_wake(void);

/* ---- hurrying the judge (.budget.hurry) ------------------------------------------
 * A thread whose sampled calls say its hooks spent more than one and a
 * half budgets of the last 2 to 4 ms of the window (two spans: the current
 * and the one before; after a slack: the budget of 0.5 ms, at least 0.1 ms)
 * wakes the budget thread at once, once a window (meter.c):
 * a new phase's hot functions are cut within a fraction of a millisecond,
 * not at the window's end. The budget thread sets the words (relaxed) each
 * window; bg_hurry_permille 0: off. */
extern uint32_t bg_window_gen;    /* a new window: every thread starts again */
extern uint64_t bg_hurry_base;    /* ticks a metered call costs, and what sampling */
extern uint64_t bg_hurry_floor;   /* adds to a sampled one (bg_calib) */
extern uint64_t bg_hurry_permille;/* 1.5 budgets, per mille of the time */
extern uint64_t bg_hurry_slack;   /* the slack, in ticks x 1000 */
extern uint64_t bg_hurry_span;    /* ticks measured over: this span and the one before; 0: the window */
/* budget.c: async-signal-safe (an atomic add and a futex wake), keeps errno. */
void bg_hurry(void);

/* The budget (fraction: 0.05 for 5%); 0: off. Starts, changes or stops the
 * budget thread and the meter; 0, or -1 and why. */
int bg_set(double budget, char *why, size_t len);
void bg_get(bg_totals *out);

/* ---- the spelling (config.c) ------------------------------------------------------ */
/* "5%", "0.5%": a fraction from 0.001 to 10 (0.1% to 1000%); "off": 0.
 * NULL, or why not in why. */
const char *bg_parse(const char *text, double *out, char *why, size_t len);
/* "5%", "0.5%", "12.25%" */
void bg_format(double budget, char *out, size_t len);

/* ---- what is said (report.c) ------------------------------------------------------ */
/* A decision into the recording, if the process records: tf:budget, with
 * the numbers it was taken by (share and over: fractions of the program's
 * own time). */
void bg_record(const bg_fn *fn, const char *action, double rate, double ns_per_call, double share,
               double over, double budget);
/* tf-ctl PID budget: the budget, the overhead, the functions switched off. */
void bg_show(FILE *out);
/* At exit, once: the functions deselected, most costly first, with the numbers. */
void bg_say_at_exit(void);

#endif
