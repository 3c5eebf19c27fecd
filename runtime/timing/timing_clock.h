/*
 * timing_clock.h: the clock timing points read (timing_clock.c): its choice,
 * its calibration and one read. A leaf: it knows no manager, timer or thread,
 * so timing_clock.c depends on nothing else of timing.
 */
#ifndef TF_TIMING_CLOCK_H
#define TF_TIMING_CLOCK_H

#include <errno.h>
#include <stdint.h>

#include <tf/timing.h>

enum { TT_CLOCK_TSC, TT_CLOCK_MONOTONIC, TT_CLOCK_INJECTED };

typedef struct tt_clock {
    int kind;
    tf_timing_clock_fn fn;
    void *arg;
    double ticks_per_second; /* TSC: refined by tt_clock_rate */
    char name[64];           /* an injected clock's, for reports ("" : "injected") */
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

#endif
