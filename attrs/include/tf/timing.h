/*
 * timing.h: timing points (docs/design.md .timing; Java: the ORB's newtimer
 * TimerManager, Timer, TimerGroup).
 *
 * Every monitored function is a timing point (its enter/exit are the point's
 * ENTER/EXIT), and so is every tracing name of a TF_TP_ENTER/TF_TP_EXIT info
 * pair. A timer is named "<tu>.<name>" (as in dprint lines). Timer groups are
 * the monitor groups; a group contains its subgroups, transitively.
 *
 *   tf_timing_manager *tm = tf_timing_manager_create();
 *   tf_register("app", tf_timing(tm));         every function of app and below
 *   ... run ...
 *   tf_timing_report(tm, stdout, TF_TIMING_TEXT);
 *
 * Or with no code change: TF_MONITORS='app=timing' TF_REPORT=t.json ./prog
 * (TF_TIMING_TRACE=FILE also writes a Chrome trace of the last events).
 *
 * Everything is enabled by default. A timer records only while it is enabled
 * and neither its group nor any group containing its group is disabled.
 * Statistics are kept per thread without shared writes and merged by reports;
 * threads that exited still count. Times are reported in nanoseconds.
 */
#ifndef TF_TIMING_H
#define TF_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tf/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tf_timing_manager tf_timing_manager;

/* A manager owns timers, groups, statistics and the event log. NULL when out
 * of memory. */
tf_timing_manager *tf_timing_manager_create(void);
/* Drops the caller's reference; the memory goes when the last monitor made by
 * tf_timing(m) is destroyed too. Use m no more after this. */
void tf_timing_manager_destroy(tf_timing_manager *m);

/* The factory whose monitors feed m (the same factory for the same m). */
tf_factory *tf_timing(tf_timing_manager *m);

/* Switches a timer ("<tu>.<name>") or a group on (on != 0) or off.
 * TF_ENOENT: no timer of that name yet (its TU has no timing monitor).
 * Groups may be named before any TU uses them. */
int tf_timing_timer_enable(tf_timing_manager *m, const char *timer, int on);
int tf_timing_group_enable(tf_timing_manager *m, const char *group, int on);
/* 1 if the timer records now, 0 if not, TF_ENOENT if unknown. */
int tf_timing_timer_active(tf_timing_manager *m, const char *timer);

/* Merged statistics of one timer (all times in ns; stddev is the population
 * standard deviation; p50/p90/p99 come from a log-linear histogram with 16
 * buckets per power of two: exact below 16 ticks, else within 1/32). */
typedef struct tf_timing_stats {
    uint64_t count;           /* completed calls (including unwinds and longjmps) */
    double total_ns;          /* inclusive                                        */
    double self_ns;           /* exclusive of nested timing points, overhead off  */
    double min_ns, max_ns, mean_ns, stddev_ns;
    double p50_ns, p90_ns, p99_ns;
    uint64_t unwinds;         /* calls left by a C++ exception                    */
    uint64_t longjmps;        /* calls skipped by longjmp (timed up to the jump)  */
    uint64_t unmatched_exits; /* EXITs with no matching ENTER on the thread       */
    uint64_t abandoned;       /* ENTERs closed by no EXIT (info ENTER left open)  */
} tf_timing_stats;
int tf_timing_stats_get(tf_timing_manager *m, const char *timer, tf_timing_stats *out);

typedef enum tf_timing_format {
    TF_TIMING_TEXT = 0,        /* table per group, sorted by total, human units */
    TF_TIMING_JSON = 1,        /* every statistic, units, clock, group tree     */
    TF_TIMING_CSV = 2,         /* one row per timer, with a header              */
    TF_TIMING_CHROME_TRACE = 3 /* the event log as Chrome trace JSON (Perfetto) */
} tf_timing_format;
/* TF_OK, TF_EINVAL, or TF_ENOENT for CHROME_TRACE without an event log. */
int tf_timing_report(tf_timing_manager *m, FILE *out, tf_timing_format format);
/* The format TF_REPORT gives a path: ".json" JSON, ".csv" CSV, else text. */
tf_timing_format tf_timing_format_for_path(const char *path);

/* Keeps the last events_per_thread completed timed calls of each thread (a
 * ring; 0 turns the log off) for TF_TIMING_CHROME_TRACE. Takes effect at each
 * thread's next timed call; what older rings hold stays exportable. */
int tf_timing_event_log(tf_timing_manager *m, size_t events_per_thread);

/* ---- the clock ------------------------------------------------------------
 * The process's one clock, shared with the recorder: rdtsc when the TSC is
 * invariant (CPUID, or constant_tsc and nonstop_tsc in /proc/cpuinfo), also
 * under a paravirtual kernel clocksource such as kvm-clock; else
 * clock_gettime(CLOCK_MONOTONIC). */
typedef struct tf_timing_clock_info {
    const char *source;        /* "tsc", "clock_gettime(CLOCK_MONOTONIC)", "injected" or
                                  the name tf_timing_name_clock gave it */
    double ticks_per_second;
    double read_ns;            /* measured cost of one read of the chosen source */
    double tsc_read_ns;        /* measured cost of rdtsc (0: not usable)         */
    double monotonic_read_ns;  /* measured cost of clock_gettime                 */
    int tsc_invariant;         /* CPUID or /proc/cpuinfo say invariant TSC       */
    double overhead_ns;        /* subtracted from a parent's self time per nested
                                  timed call (the hooks' cost outside the child) */
} tf_timing_clock_info;
int tf_timing_clock(tf_timing_manager *m, tf_timing_clock_info *out);

/* Injects a clock (for tests): fn(arg) returns ticks, ticks_per_second scales
 * them. Sets the overhead to 0. fn NULL restores the default clock (and its
 * measured overhead). Call before any timed event. */
typedef uint64_t (*tf_timing_clock_fn)(void *arg);
int tf_timing_set_clock(tf_timing_manager *m, tf_timing_clock_fn fn, void *arg,
                        double ticks_per_second);
/* Names an injected clock in reports ("the recorded timestamps": tf-dump),
 * instead of "injected"; at most 63 bytes. TF_EINVAL for the real clock. */
int tf_timing_name_clock(tf_timing_manager *m, const char *name);
/* Overrides the per-nested-call overhead subtracted from self times. */
int tf_timing_set_overhead(tf_timing_manager *m, double ns);

#ifdef __cplusplus
}
#endif
#endif
