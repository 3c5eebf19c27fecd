/*
 * clock.c: the clock choice and its calibration (see clock.h).
 *
 * Calibration brackets one TSC read by two CLOCK_MONOTONIC reads at start and
 * again when asked, so a longer run gives a more precise rate: the error is a
 * few hundred ns over the whole span.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"

#define SETTLE_NS 20000000ull

int tf__clock_tsc;

static struct {
    uint64_t tsc0, mono0, real0; /* read together at tf__clock_init */
} start;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int cpuid_invariant(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
        return 0;
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    return (d >> 8) & 1;
}

/* Hypervisors often hide CPUID's invariant bit while the kernel, told by the
 * hypervisor, lists both flags. */
static int cpuinfo_invariant(void)
{
    FILE *f = fopen("/proc/cpuinfo", "re");
    char line[4096];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0)
            found = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc") ? 1 : -1;
    if (f)
        fclose(f);
    return found == 1;
}

static uint64_t real_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void choose(void)
{
    tf__clock_tsc = cpuid_invariant() || cpuinfo_invariant();
    uint64_t m0 = tf__clock_mono_ns();
    start.tsc0 = tf__clock_tsc ? __builtin_ia32_rdtsc() : 0;
    uint64_t m1 = tf__clock_mono_ns();
    start.real0 = real_ns();
    start.mono0 = m0 + (m1 - m0) / 2;
    if (!tf__clock_tsc)
        start.tsc0 = start.mono0;
}

void tf__clock_init(void)
{
    pthread_once(&once, choose);
}

double tf__clock_hz(int settle)
{
    tf__clock_init();
    if (!tf__clock_tsc)
        return 1e9;
    uint64_t span = tf__clock_mono_ns() - start.mono0;
    if (settle && span < SETTLE_NS) {
        struct timespec rest = {0, (long)(SETTLE_NS - span)};
        while (nanosleep(&rest, &rest) != 0)
            ;
    }
    uint64_t m0 = tf__clock_mono_ns(), tsc = __builtin_ia32_rdtsc(), m1 = tf__clock_mono_ns();
    double ns = (double)(m0 - start.mono0) + (double)(m1 - m0) / 2;
    if (ns <= 0)
        return 1e9;
    return (double)(tsc - start.tsc0) * 1e9 / ns;
}

int64_t tf__clock_epoch_offset_ns(double hz)
{
    tf__clock_init();
    return (int64_t)start.real0 - (int64_t)((double)start.tsc0 * 1e9 / hz);
}

void tf__clock_start(uint64_t *clock, uint64_t *mono_ns, uint64_t *real_ns)
{
    tf__clock_init();
    *clock = start.tsc0;
    *mono_ns = start.mono0;
    *real_ns = start.real0;
}
