/*
 * fib: the call-heavy micro benchmark, the worst case per call (docs/design.md
 * .perf). Every call is one monitored entry and exit with one argument
 * and a result, and almost no work of its own.
 *
 *   fib N REPS    computes fib(N) REPS times; units = calls of fib
 */
#include "bench.h"

/* The empty asm keeps the second call a real call: without it GCC and Clang
 * turn `fib(n-1) + fib(n-2)` into one call plus a loop (tail recursion with
 * an accumulator) in the uninstrumented build only, which would halve its
 * call count and make per-call ratios meaningless. noinline keeps one call
 * per fib in every configuration (XRay instruments only what is not inlined). */
MON __attribute__((noinline)) long fib(long n)
{
    if (n < 2)
        return n;
    long a = fib(n - 1);
    long b = fib(n - 2);
    __asm__("" : "+r"(b));
    return a + b;
}

static long long fib_calls(long n) /* calls made by fib(n): 2 fib(n+1) - 1 */
{
    long long a = 0, b = 1;
    for (long i = 0; i <= n; i++) {
        long long t = a + b;
        a = b;
        b = t;
    }
    return 2 * a - 1;
}

MON int main(int argc, char **argv)
{
    long n = bench_arg(argc, argv, 1, 27), reps = bench_arg(argc, argv, 2, 1);
    long result = 0;
    struct bench_timer t0 = bench_start();
    for (long r = 0; r < reps; r++) {
        long m = n;
        __asm__ volatile("" : "+r"(m)); /* fib is pure: keep every rep a real call */
        result = fib(m);
    }
    bench_report(fib_calls(n) * reps, t0);
    printf("fib(%ld) = %ld\n", n, result);
    return 0;
}
