/*
 * timing_clock.c: which clock timing points read and what a read costs
 * (docs/design.md .timing). What the hooks cost a parent's self
 * time is measured by the manager (timing.c), which owns hooks and clock.
 *
 * The clock is the process's one clock (clock.c): rdtsc where the TSC is
 * invariant, also under kvm-clock, else clock_gettime(CLOCK_MONOTONIC). Its
 * rate is calibrated against CLOCK_MONOTONIC over the whole
 * run (from the first probe to each report), waiting 20 ms at most if the run
 * was shorter.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../clock.h"
#include "../internal.h"
#include "timing_clock.h"

#define CALIBRATION_MIN_NS 20000000ull

uint64_t tt_mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The best of several runs of n reads, in ns per read. */
#define MEASURE(expr)                                                          \
    ({                                                                         \
        double best_ = 1e9;                                                    \
        for (int trial_ = 0; trial_ < 5; trial_++) {                           \
            uint64_t t0_ = tt_mono_ns(), sink_ = 0;                            \
            for (int i_ = 0; i_ < 20000; i_++)                                 \
                sink_ += (expr);                                               \
            __asm__ volatile("" : : "r"(sink_));                               \
            double per_ = (double)(tt_mono_ns() - t0_) / 20000;                \
            best_ = per_ < best_ ? per_ : best_;                               \
        }                                                                      \
        best_;                                                                 \
    })

static tt_clock_probe probe;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void probe_run(void)
{
    fenv_t fp;
    tf__fp_enter(&fp); /* at start, on the program's thread (.fid.fenv) */
    tf__clock_init();
    probe.tsc_invariant = tf__clock_tsc;
    probe.mono_read_ns = MEASURE(tt_mono_ns());
    if (probe.tsc_invariant)
        probe.tsc_read_ns = MEASURE(__builtin_ia32_rdtsc());
    probe.tsc_usable = probe.tsc_invariant;
    probe.mono0_ns = tt_mono_ns();
    probe.tsc0 = __builtin_ia32_rdtsc();
    tf__fp_leave(&fp);
}

const tt_clock_probe *tt_clock_probe_get(void)
{
    pthread_once(&probe_once, probe_run);
    return &probe;
}

void tt_clock_default(tt_clock *c)
{
    const tt_clock_probe *p = tt_clock_probe_get();
    memset(c, 0, sizeof *c);
    c->kind = p->tsc_usable ? TT_CLOCK_TSC : TT_CLOCK_MONOTONIC;
    c->ticks_per_second = 1e9; /* TSC: until tt_clock_rate, which reports call */
}

double tt_clock_rate(tt_clock *c)
{
    if (c->kind != TT_CLOCK_TSC)
        return c->ticks_per_second;
    const tt_clock_probe *p = tt_clock_probe_get();
    uint64_t ns = tt_mono_ns() - p->mono0_ns;
    if (ns < CALIBRATION_MIN_NS) {
        struct timespec rest = {0, (long)(CALIBRATION_MIN_NS - ns)};
        while (nanosleep(&rest, &rest) != 0)
            ;
    }
    /* Bracket the TSC read by two monotonic reads to halve the error. */
    uint64_t m0 = tt_mono_ns(), tsc = __builtin_ia32_rdtsc(), m1 = tt_mono_ns();
    fenv_t fp;
    tf__fp_enter(&fp);
    double secs = ((double)(m0 - p->mono0_ns) + (double)(m1 - m0) / 2) / 1e9;
    c->ticks_per_second = (double)(tsc - p->tsc0) / secs;
    tf__fp_leave(&fp);
    return c->ticks_per_second;
}
