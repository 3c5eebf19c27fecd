/*
 * timing_internal.h: what the timing modules share (attrs/include/tf/timing.h
 * is the public side).
 *
 *   timing.c        the manager: timers, monitors, the factory, the API
 *   timing_groups.c timer groups, containment, which timers record
 *   timing_env.c    `timing` in TF_MONITORS, the report at exit
 *   timing_stack.c  the hot path: per-thread stacks and statistics, longjmp
 *   timing_stats.c  histogram, merging threads, percentiles
 *   timing_clock.c  clock choice, calibration, hook overhead
 *   timing_report.c text, JSON and CSV reports
 *   timing_trace.c  the event log and its Chrome trace export
 *
 * .req.hot: enter/exit write only the calling thread's memory; other threads
 * (reports) read it with relaxed atomics, so a report taken while threads run
 * is a consistent-enough snapshot, and exact once they are quiet.
 */
#ifndef TF_TIMING_INTERNAL_H
#define TF_TIMING_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include <tf/timing.h>

#include "../internal.h"

#define TT_LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define TT_ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* Single-writer counters: a plain load and store, atomic only for readers. */
#define TT_ADD(x, v) TT_ST(x, TT_LD(x) + (v))

/* ---- clock (timing_clock.c) ------------------------------------------------ */
enum { TT_CLOCK_TSC, TT_CLOCK_MONOTONIC, TT_CLOCK_INJECTED };

typedef struct tt_clock {
    int kind;
    tf_timing_clock_fn fn;
    void *arg;
    double ticks_per_second; /* TSC: refined by tt_clock_calibrate */
} tt_clock;

/* The process's measured real clock (chosen once). */
typedef struct tt_clock_probe {
    int tsc_usable, tsc_invariant;
    double tsc_read_ns, mono_read_ns;
    uint64_t tsc0;            /* calibration start */
    uint64_t mono0_ns;
} tt_clock_probe;

const tt_clock_probe *tt_clock_probe_get(void);
void tt_clock_default(tt_clock *c);
/* Ticks per second of c, calibrating the TSC against CLOCK_MONOTONIC. */
double tt_clock_rate(tt_clock *c);
uint64_t tt_mono_ns(void);

static inline uint64_t tt_now(const tt_clock *c)
{
    if (__builtin_expect(c->kind == TT_CLOCK_TSC, 1))
        return __builtin_ia32_rdtsc();
    if (c->kind == TT_CLOCK_INJECTED) { /* the hooks keep errno: a user's clock may not */
        int e = errno;
        uint64_t t = c->fn(c->arg);
        errno = e;
        return t;
    }
    return tt_mono_ns();
}

/* ---- histogram and statistics (timing_stats.c) ---------------------------- */
#define TT_SUB 16          /* buckets per power of two          */
#define TT_MAX_EXP 44      /* values >= 2^44 ticks: last bucket */
#define TT_NBUCKETS (TT_SUB + (TT_MAX_EXP - 4) * TT_SUB + 1)

typedef struct tt_stats {  /* one timer on one thread */
    uint64_t count, total, self, min, max;
    uint64_t sq_lo, sq_hi; /* sum of squared durations, 128 bits */
    uint64_t unwinds, longjmps, unmatched, abandoned;
    uint32_t hist[TT_NBUCKETS];
} tt_stats;

static inline unsigned tt_bucket(uint64_t v)
{
    if (v < TT_SUB)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);
    if (e >= TT_MAX_EXP)
        return TT_NBUCKETS - 1;
    return TT_SUB + (e - 4) * TT_SUB + (unsigned)((v >> (e - 4)) & (TT_SUB - 1));
}

/* A merged view of one timer, in ticks. */
typedef struct tt_sum {
    uint64_t count, total, self, min, max;
    long double sumsq;
    uint64_t unwinds, longjmps, unmatched, abandoned;
    uint32_t hist[TT_NBUCKETS];
} tt_sum;

void tt_sum_add(tt_sum *into, const tt_stats *s); /* s may be written meanwhile */
/* Nearest-rank percentile p (0..100) in ticks: the bucket's middle, clamped
 * to [min, max]. */
double tt_sum_percentile(const tt_sum *s, double p);
double tt_sum_stddev(const tt_sum *s);

/* ---- timers, groups, threads ----------------------------------------------- */
#define TT_CHUNK 256
#define TT_MAX_CHUNKS 1024 /* at most 262144 timers per manager */

typedef struct tt_timer {
    char *full;        /* "<tu>.<name>"                        */
    char *tu_name, *tu_file, *name, *src_file;
    uint32_t line, flags; /* TF_NAME_*                          */
    uint32_t index;
    int32_t group;     /* manager group index; -1: an info pair not yet entered */
    uint8_t enabled;   /* the user's switch                    */
    uint8_t active;    /* enabled and no containing group off (hot path reads) */
} tt_timer;

typedef struct tt_group {
    char *name;
    int enabled;
    int blocked;       /* itself or a containing group is disabled */
    int *subs, nsubs;
} tt_group;

enum { TT_F_ACTIVE = 1, TT_F_INFO = 2, TT_F_UNWIND = 4 };

typedef struct tt_frame {
    tt_timer *timer;
    uint64_t start, child; /* child: ticks of nested timed calls (+ overhead) */
    uintptr_t sp;          /* TF_CALLER_SP of the owning monitored frame      */
    uint32_t flags;
} tt_frame;

typedef struct tt_event {  /* one completed timed call, for the event log */
    uint32_t timer, flags;
    uint64_t start, dur;
} tt_event;

typedef struct tt_log {
    tt_event *ev;
    size_t cap;
    uint64_t written;      /* total ever; the ring keeps the last cap */
    pid_t tid;
    char thread[32];
    struct tt_log *next;
} tt_log;

typedef struct tt_manager tt_manager;

typedef struct tt_thread {
    tt_manager *m;         /* NULL once the manager is gone (orphaned) */
    tt_frame *stack;
    uint32_t depth, cap;
    uint64_t lost;         /* frames not pushed: out of memory */
    tt_stats **chunks[TT_MAX_CHUNKS];
    tt_log *log;
    size_t log_cap;        /* the manager's log_cap when log was made */
    pid_t tid;
    struct tt_thread *next, *prev; /* the manager's threads */
    struct tt_thread *tl_next;     /* this thread's states (one per manager) */
} tt_thread;

struct tt_manager {
    tf_factory factory;    /* first: tf_timing() returns &factory */
    pthread_mutex_t lock;
    int refs;              /* the user's, plus one per monitor */
    tt_clock clock;
    uint64_t overhead;     /* ticks per nested timed call, subtracted from self */
    uint64_t epoch;        /* ticks at creation: zero of the event log */
    size_t log_cap;
    tt_timer *timers[TT_MAX_CHUNKS];
    uint32_t ntimers;
    char **keys;           /* hash: "<tu file>\n<name>" -> timer index + 1 */
    uint32_t *vals, nslots;
    tt_group *groups;
    int ngroups;
    tt_thread *threads;    /* live threads with state */
    int nthreads_seen;
    tt_stats **retired[TT_MAX_CHUNKS]; /* merged stats of exited threads */
    tt_log *retired_logs;
    int nretired_logs;
    uint64_t dropped_events;
    uint64_t retired_lost; /* frames exited threads could not push */
};

typedef struct tt_monitor {
    tf_monitor base;
    tt_manager *m;
    uint32_t n;
    tt_timer *timers[]; /* by id; NULL: not a timing point */
} tt_monitor;

static inline tt_timer *tt_timer_at(tt_manager *m, uint32_t i)
{
    return &m->timers[i / TT_CHUNK][i % TT_CHUNK];
}

/* timing.c */
/* measure: measure the hook overhead for the default clock. */
tt_manager *tt_manager_new(int measure);
void tt_manager_unref(tt_manager *m);

/* timing_groups.c (lock held unless said) */
int tt_group_index(tt_manager *m, const char *name); /* creates */
void tt_add_edge(tt_manager *m, int from, int to);
void tt_timer_update(tt_manager *m, tt_timer *t);
int tt_recompute_blocked(tt_manager *m);             /* nonzero: changed */
void tt_recompute_active(tt_manager *m);
/* Resolves an info pair's group from its caller, once; takes the lock. */
void tt_timer_adopt_group(tt_manager *m, tt_timer *t, const tf_tu *tu, int caller_id);
/* Merges the registry's subgroup edges; takes the lock. */
void tt_sync_registry_graph(tt_manager *m);

/* timing_stack.c */
extern const tf_monitor_ops tt_ops;
void tt_stack_init(void);                              /* once per process */
void tt_thread_retire_all(tt_manager *m); /* m going; takes the locks */
void tt_forget_stats(tt_manager *m);      /* in a forked child */
void tt_stack_fork(int phase);            /* TF_FORK_*: threads_lock */
/* Calls fn on every thread's stats of timer i (live and retired); lock held. */
void tt_foreach_stats(tt_manager *m, uint32_t i, void (*fn)(const tt_stats *, void *), void *arg);
int tt_threads_seen(tt_manager *m);
uint64_t tt_lost_frames(tt_manager *m); /* lock held */
void tt_stats_merge_into(tt_stats *into, const tt_stats *s);
tt_stats *tt_stats_alloc(tt_stats **chunks[], uint32_t i);
void tt_stats_free_all(tt_stats **chunks[]);

/* timing_stats.c */
void tt_summarize(tt_manager *m, uint32_t i, tt_sum *out); /* lock held */
void tt_stats_fill(tt_manager *m, const tt_sum *s, tf_timing_stats *out);

/* timing_clock.c */
/* Measures the hooks' cost outside a nested call, in ticks of m's clock. */
uint64_t tt_measure_overhead(tt_manager *m);
double tt_ticks_to_ns(tt_manager *m, double ticks);

/* timing_trace.c */
void tt_log_record(tt_thread *ts, tt_manager *m, const tt_frame *f, uint64_t now);
tt_log *tt_log_new(size_t cap, pid_t tid);
void tt_log_retire(tt_manager *m, tt_log *log);       /* lock held */
void tt_log_free_all(tt_log *log);
int tt_write_chrome_trace(tt_manager *m, FILE *out);  /* lock held */
uint64_t tt_dropped_events(tt_manager *m);             /* lock held: older than the rings */

/* timing_report.c */
void tt_json_string(FILE *out, const char *s);
int tt_write_report(tt_manager *m, FILE *out, tf_timing_format format); /* lock held */

#endif
