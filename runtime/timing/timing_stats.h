/*
 * timing_stats.h: one timer's statistics on one thread, their merged view,
 * and what reports derive from it (timing_stats.c). A leaf: it knows no
 * manager, timer or thread, so timing_stats.c depends on nothing else of
 * timing.
 *
 * .req.hot: enter/exit write only the calling thread's memory; other threads
 * (reports) read it with relaxed atomics, so a report taken while threads run
 * is a consistent-enough snapshot, and exact once they are quiet.
 */
#ifndef TF_TIMING_STATS_H
#define TF_TIMING_STATS_H

#include <stdint.h>

#include <tf/timing.h>

#define TT_LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define TT_ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* Single-writer counters: a plain load and store, atomic only for readers. */
#define TT_ADD(x, v) TT_ST(x, TT_LD(x) + (v))

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

/* An empty view, ready for tt_sum_add; tt_sum_done after the last add. */
void tt_sum_init(tt_sum *s);
void tt_sum_add(tt_sum *into, const tt_stats *s); /* s may be written meanwhile */
void tt_sum_done(tt_sum *s);
/* Nearest-rank percentile p (0..100) in ticks: the bucket's middle, clamped
 * to [min, max]. */
double tt_sum_percentile(const tt_sum *s, double p);
double tt_sum_stddev(const tt_sum *s);
/* Adds s (one thread's) into `into` (its single writer's). */
void tt_stats_merge_into(tt_stats *into, const tt_stats *s);
/* The public statistics of s, in ns for a clock of ticks_per_second. */
void tt_sum_fill(const tt_sum *s, double ticks_per_second, tf_timing_stats *out);

#endif
