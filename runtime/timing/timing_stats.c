/*
 * timing_stats.c: merging per-thread statistics and deriving what reports show.
 *
 * The histogram is log-linear (HdrHistogram's idea, bounded memory): values
 * below 16 ticks have a bucket each; above, each power of two is split in 16
 * equal buckets, so a bucket's middle is within 1/32 of any value in it.
 * Percentiles are nearest-rank: the smallest bucket whose cumulative count
 * reaches ceil(p/100 * count), reported as its middle clamped to [min, max].
 * Which threads' statistics a timer has is the manager's business
 * (tt_summarize); this file only merges what it is handed.
 */
#include <math.h>
#include <string.h>

#include "timing_stats.h"

void tt_sum_init(tt_sum *s)
{
    memset(s, 0, sizeof *s);
    s->min = UINT64_MAX;
}

void tt_sum_done(tt_sum *s)
{
    if (!s->count)
        s->min = 0;
}

void tt_sum_add(tt_sum *into, const tt_stats *s)
{
    uint64_t count = TT_LD(s->count);
    into->count += count;
    into->total += TT_LD(s->total);
    into->self += TT_LD(s->self);
    uint64_t lo = TT_LD(s->min), hi = TT_LD(s->max);
    if (count && lo < into->min)
        into->min = lo;
    if (count && hi > into->max)
        into->max = hi;
    into->sumsq += (long double)TT_LD(s->sq_hi) * 18446744073709551616.0L +
                   (long double)TT_LD(s->sq_lo);
    into->unwinds += TT_LD(s->unwinds);
    into->longjmps += TT_LD(s->longjmps);
    into->unmatched += TT_LD(s->unmatched);
    into->abandoned += TT_LD(s->abandoned);
    for (unsigned b = 0; b < TT_NBUCKETS; b++)
        into->hist[b] += TT_LD(s->hist[b]);
}

static double bucket_middle(unsigned b)
{
    if (b < TT_SUB)
        return b;
    unsigned e = 4 + (b - TT_SUB) / TT_SUB, sub = (b - TT_SUB) % TT_SUB;
    double width = ldexp(1.0, (int)e - 4);
    return (TT_SUB + sub) * width + (width - 1) / 2;
}

double tt_sum_percentile(const tt_sum *s, double p)
{
    if (!s->count)
        return 0;
    uint64_t hist_n = 0;
    for (unsigned b = 0; b < TT_NBUCKETS; b++)
        hist_n += s->hist[b];
    /* A live thread may be mid-update: rank within what the histogram holds. */
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)hist_n), seen = 0;
    if (rank == 0)
        rank = 1;
    double v = (double)s->max;
    for (unsigned b = 0; b < TT_NBUCKETS; b++) {
        seen += s->hist[b];
        if (seen >= rank) {
            v = b == TT_NBUCKETS - 1 ? (double)s->max : bucket_middle(b);
            break;
        }
    }
    if (v < (double)s->min)
        v = (double)s->min;
    if (v > (double)s->max)
        v = (double)s->max;
    return v;
}

double tt_sum_stddev(const tt_sum *s)
{
    if (s->count < 2)
        return 0;
    long double n = (long double)s->count, mean = (long double)s->total / n;
    long double var = s->sumsq / n - mean * mean;
    return var > 0 ? (double)sqrtl(var) : 0;
}

static double ns(double ticks, double ticks_per_second)
{
    return ticks * 1e9 / ticks_per_second;
}

void tt_sum_fill(const tt_sum *s, double tps, tf_timing_stats *out)
{
    memset(out, 0, sizeof *out);
    out->count = s->count;
    out->total_ns = ns((double)s->total, tps);
    out->self_ns = ns((double)s->self, tps);
    out->min_ns = ns((double)s->min, tps);
    out->max_ns = ns((double)s->max, tps);
    out->mean_ns = s->count ? out->total_ns / (double)s->count : 0;
    out->stddev_ns = ns(tt_sum_stddev(s), tps);
    out->p50_ns = ns(tt_sum_percentile(s, 50), tps);
    out->p90_ns = ns(tt_sum_percentile(s, 90), tps);
    out->p99_ns = ns(tt_sum_percentile(s, 99), tps);
    out->unwinds = s->unwinds;
    out->longjmps = s->longjmps;
    out->unmatched_exits = s->unmatched;
    out->abandoned = s->abandoned;
}

void tt_stats_merge_into(tt_stats *into, const tt_stats *s)
{
    uint64_t lo = TT_LD(into->sq_lo), add = TT_LD(s->sq_lo);
    TT_ST(into->sq_lo, lo + add);
    TT_ST(into->sq_hi, TT_LD(into->sq_hi) + TT_LD(s->sq_hi) + (lo + add < lo));
    TT_ADD(into->count, TT_LD(s->count));
    TT_ADD(into->total, TT_LD(s->total));
    TT_ADD(into->self, TT_LD(s->self));
    if (TT_LD(s->min) < TT_LD(into->min))
        TT_ST(into->min, TT_LD(s->min));
    if (TT_LD(s->max) > TT_LD(into->max))
        TT_ST(into->max, TT_LD(s->max));
    TT_ADD(into->unwinds, TT_LD(s->unwinds));
    TT_ADD(into->longjmps, TT_LD(s->longjmps));
    TT_ADD(into->unmatched, TT_LD(s->unmatched));
    TT_ADD(into->abandoned, TT_LD(s->abandoned));
    for (unsigned b = 0; b < TT_NBUCKETS; b++)
        TT_ADD(into->hist[b], TT_LD(s->hist[b]));
}
