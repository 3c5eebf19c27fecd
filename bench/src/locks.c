/*
 * locks: what a pthread lock costs. An uncontended mutex locked and unlocked
 * N times. The watchdog reroutes the program's lock calls through its
 * wrappers only while it runs (runtime/watchdog/locks.c): without TF_WATCHDOG
 * the figure is the uninstrumented build's, with it the wrappers' cost shows.
 *
 *   locks N REPS    units = lock and unlock pairs
 */
#include <pthread.h>

#include "bench.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;

MON int main(int argc, char **argv)
{
    long n = bench_arg(argc, argv, 1, 1000000), reps = bench_arg(argc, argv, 2, 1);
    struct bench_timer t0 = bench_start();
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < n; i++) {
            pthread_mutex_lock(&m);
            counter++;
            pthread_mutex_unlock(&m);
        }
    bench_report((long long)n * reps, t0);
    printf("counter = %ld\n", counter);
    return 0;
}
