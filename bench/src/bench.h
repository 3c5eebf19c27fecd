/*
 * bench.h: what every workload shares. A workload prints its result lines
 * (identical in every configuration: bench/run compares them) and then
 *   units N   how many calls / iterations the timed region did
 *   ns N      the timed region's wall-clock length
 *   cpu_ns N  the process CPU time it used (all threads), which time spent
 *             descheduled on a busy machine does not inflate
 * so bench/run can report ns per unit independently of process start-up
 * (uftrace, libtf and XRay initialisation are outside the timed region).
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <tf/tf.h>

TF_GROUP(bench);

/* Every function of a workload carries MON: TF instruments it; the peers
 * instrument every function anyway (-finstrument-functions, XRay, -pg). */
#ifndef MON /* -DMON= : instrumented by a rules file instead (bench/everything) */
#define MON TF_MONITOR(bench)
#endif

static inline long long bench_clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct bench_timer {
    long long wall, cpu;
};

static inline struct bench_timer bench_start(void)
{
    return (struct bench_timer){bench_clock_ns(CLOCK_MONOTONIC),
                                bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID)};
}

static inline long bench_arg(int argc, char **argv, int i, long dflt)
{
    return argc > i ? strtol(argv[i], NULL, 10) : dflt;
}

/* Call right after the timed region. */
static inline void bench_report(long long units, struct bench_timer t0)
{
    long long cpu = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t0.cpu;
    long long wall = bench_clock_ns(CLOCK_MONOTONIC) - t0.wall;
    printf("units %lld\nns %lld\ncpu_ns %lld\n", units, wall, cpu);
}

#endif
