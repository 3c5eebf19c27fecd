/*
 * churn.c: short-lived threads (bench/threads), as a thread-per-connection
 * server makes them: THREADS threads, PAR at a time, each making CALLS
 * monitored calls. Prints its peak RSS (VmHWM, KiB) and the elapsed time.
 *
 *   churn THREADS CALLS PAR
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static volatile long sink;

MON long work(long i)
{
    return sink += i;
}

static long calls;

static void *one_thread(void *arg)
{
    for (long i = 0; i < calls; i++)
        work(i);
    return arg;
}

static long peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return fprintf(stderr, "usage: churn THREADS CALLS PAR\n"), 2;
    long n = atol(argv[1]);
    int par = atoi(argv[3]);
    calls = atol(argv[2]);
    pthread_t *t = calloc((size_t)par, sizeof *t);
    long long t0 = bench_clock_ns(CLOCK_MONOTONIC);
    for (long done = 0; t && done < n; done += par) {
        int k = (int)(n - done < par ? n - done : par);
        for (int i = 0; i < k; i++)
            if (pthread_create(&t[i], NULL, one_thread, NULL) != 0)
                return perror("churn: pthread_create"), 1;
        for (int i = 0; i < k; i++)
            pthread_join(t[i], NULL);
    }
    long long ns = bench_clock_ns(CLOCK_MONOTONIC) - t0;
    printf("rss_kib %ld\nns %lld\n", peak_rss_kib(), ns);
    free(t);
    return 0;
}
