/*
 * timing_internal.h: what the timing modules share (attrs/include/tf/timing.h
 * is the public side). The files form layers; each calls only into layers
 * below it, so there is no circle (tests/timing/check_layers.sh checks the
 * objects), and the declarations below come bottom up:
 *
 *   timing_env.c    `timing` in TF_MONITORS, the report at exit
 *   timing_report.c text, JSON and CSV reports; tf_timing_report
 *   timing.c        the manager: timers, monitors, the factory, the rest of
 *                   the API, summing a timer over threads, hook overhead
 *   timing_stack.c  the hot path: per-thread stacks and statistics, longjmp
 *   timing_calls.c  call sites under their callers: statistics per edge
 *   timing_groups.c timer groups, containment, which timers record
 *   timing_trace.c  the event log and its Chrome trace export
 *   timing_stats.c  histogram, merging statistics, percentiles (a leaf)
 *   timing_clock.c  clock choice and calibration (a leaf)
 *
 * timing_clock.h and timing_stats.h are leaves that this header builds on:
 * the clock and the statistics know nothing of managers, so what needs both
 * (measuring the hooks' overhead, summing a timer over threads) is the
 * manager's.
 */
#ifndef TF_TIMING_INTERNAL_H
#define TF_TIMING_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include <tf/timing.h>

#include "../internal.h"
#include "timing_clock.h"
#include "timing_stats.h"

/* ---- timers, groups, threads ----------------------------------------------- */
#define TT_CHUNK 256
#define TT_MAX_CHUNKS 1024 /* at most 262144 timers per manager */
#define TT_MAX_TIMERS (TT_MAX_CHUNKS * TT_CHUNK)
#define TT_MAX_TIMERS_TEXT "262144" /* said when reached */
_Static_assert(TT_MAX_CHUNKS * TT_CHUNK == 262144, "TT_MAX_TIMERS_TEXT");

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
} tt_group;

typedef struct tt_group_list { /* manager group indices */
    int *v, n;
} tt_group_list;

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

/* Call sites under their callers (timing_calls.c): statistics per (caller,
 * callee) timer pair. */
typedef struct tt_edge {
    uint32_t caller, callee; /* timer indices */
    tt_stats *stats;         /* NULL: an empty entry */
} tt_edge;
#define TT_EDGE_TABLES 32    /* doublings from 64 entries: far beyond any program */
typedef struct tt_edges {
    tt_edge *v;
    uint32_t cap, n;
    tt_edge *old[TT_EDGE_TABLES];
    uint32_t nold;
} tt_edges;

typedef struct tt_thread {
    tt_manager *m;         /* NULL once the manager is gone (orphaned) */
    tt_frame *stack;
    uint32_t depth, cap;
    uint64_t lost;         /* frames not pushed: out of memory */
    tt_stats **chunks[TT_MAX_CHUNKS]; /* in arena, as a hook may allocate them */
    tt_edges edges;        /* call sites under their callers, stats in arena */
    tf_arena arena;
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
    tt_stats **retired[TT_MAX_CHUNKS]; /* merged stats of exited threads, in retired_arena */
    tt_edges retired_edges;
    tf_arena retired_arena;
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

static inline double tt_ticks_to_ns(const tt_manager *m, double ticks)
{
    return ticks * 1e9 / m->clock.ticks_per_second;
}

/* timing_calls.c: an edge's statistics, made on first use (NULL: out of
 * memory); merging another owner's edges; reading every edge. */
tt_stats *tt_edge_stats(tt_edges *e, tf_arena *a, uint32_t caller, uint32_t callee);
void tt_edges_merge_into(tt_edges *into, tf_arena *a, const tt_edges *from);
void tt_edges_foreach(const tt_edges *e, void (*fn)(uint32_t caller, uint32_t callee, const tt_stats *, void *),
                      void *arg);
void tt_edges_zero(tt_edges *e);
void tt_edges_free(tt_edges *e);

/* timing_trace.c (logs are pages: a hook may make one, pages.c) */
void tt_log_record(tt_thread *ts, tt_manager *m, const tt_frame *f, uint64_t now);
tt_log *tt_log_new(size_t cap, pid_t tid);
void tt_log_retire(tt_manager *m, tt_log *log);       /* lock held */
void tt_log_free_all(tt_log *log);
int tt_write_chrome_trace(tt_manager *m, FILE *out);  /* lock held */
uint64_t tt_dropped_events(tt_manager *m);             /* lock held: older than the rings */
void tt_json_string(FILE *out, const char *s);

/* timing_groups.c (lock held unless said; the group graph is the registry's) */
int tt_group_find(tt_manager *m, const char *name); /* -1: not in the table */
int tt_group_index(tt_manager *m, const char *name); /* creates */
/* Adds every group below one in the table (the whole tree reports show). */
void tt_group_add_below(tt_manager *m);
/* g's direct subgroups that are in the table, in the registry's order;
 * TF_OK or TF_ENOMEM; the caller frees out->v. */
int tt_group_subs(tt_manager *m, int g, tt_group_list *out);
void tt_timer_update(tt_manager *m, tt_timer *t);
int tt_recompute_blocked(tt_manager *m);             /* nonzero: changed */
void tt_recompute_active(tt_manager *m);
/* Resolves an info pair's group from its caller, once; takes the lock. */
void tt_timer_adopt_group(tt_manager *m, tt_timer *t, const tf_tu *tu, int caller_id);

/* timing_stack.c */
/* The hooks of a timing monitor (tf_monitor_ops); its destroy is timing.c's. */
void tt_enter(tf_monitor *self, int id, const tf_args *args);
void tt_exit(tf_monitor *self, int id, const tf_value *result);
void tt_info(tf_monitor *self, const tf_args *args, int caller_id, int self_id, tf_tp_type tp);
void tt_exception(tf_monitor *self, int id, const tf_exception *exc);
void tt_clear(tf_monitor *self);
void tt_stack_init(void);                              /* once per process */
void tt_thread_retire_all(tt_manager *m); /* m going; takes the locks */
void tt_forget_stats(tt_manager *m);      /* in a forked child */
void tt_stack_fork(int phase);            /* TF_FORK_*: threads_lock */
/* Calls fn on every edge of every thread (live and retired); lock held. */
void tt_foreach_edge(tt_manager *m, void (*fn)(uint32_t caller, uint32_t callee, const tt_stats *, void *),
                     void *arg);
/* Calls fn on every thread's stats of timer i (live and retired); lock held. */
void tt_foreach_stats(tt_manager *m, uint32_t i, void (*fn)(const tt_stats *, void *), void *arg);
int tt_threads_seen(tt_manager *m);
uint64_t tt_lost_frames(tt_manager *m); /* lock held */
tt_stats *tt_stats_alloc(tf_arena *a, tt_stats **chunks[], uint32_t i);
void tt_stats_free_all(tf_arena *a, tt_stats **chunks[]);

/* timing.c */
/* measure: measure the hook overhead for the default clock. */
tt_manager *tt_manager_new(int measure);
void tt_manager_unref(tt_manager *m);
/* Timer i merged over every thread, live and exited; lock held. */
void tt_summarize(tt_manager *m, uint32_t i, tt_sum *out);

#endif
