/*
 * clock.h: the one clock that timing points and the recorder read
 * (docs/design.md .rec.clock). The TSC where the CPU says it ticks at a
 * constant rate in every power state (CPUID 0x80000007 EDX bit 8, or
 * /proc/cpuinfo's constant_tsc and nonstop_tsc), also when the kernel keeps
 * time with a paravirtual clock such as kvm-clock (a VM's vDSO clock_gettime
 * then costs about 26 ns; rdtsc 8); otherwise CLOCK_MONOTONIC in nanoseconds.
 */
#ifndef TF_CLOCK_H
#define TF_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nonzero when ticks are TSC cycles; set once by tf__clock_init. */
extern int tf__clock_tsc;

/* Chooses the clock and starts its calibration; idempotent, thread-safe. */
void tf__clock_init(void);

static inline uint64_t tf__clock_mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline uint64_t tf__clock_now(void)
{
    if (__builtin_expect(tf__clock_tsc, 1))
        return __builtin_ia32_rdtsc();
    return tf__clock_mono_ns();
}

/* Ticks per second, calibrated against CLOCK_MONOTONIC from tf__clock_init to
 * now. settle: wait until that span is at least 20 ms for a precise rate
 * (never from a signal handler). Async-signal-safe with settle = 0. */
double tf__clock_hz(int settle);

/* Nanoseconds since the Unix epoch at clock value 0 (CTF's clock offset), for
 * the rate hz; async-signal-safe. */
int64_t tf__clock_epoch_offset_ns(double hz);

/* The calibration's start: the clock, CLOCK_MONOTONIC and CLOCK_REALTIME
 * read together (a reader of a ring file recomputes the rate from it). */
void tf__clock_start(uint64_t *clock, uint64_t *mono_ns, uint64_t *real_ns);

#endif
