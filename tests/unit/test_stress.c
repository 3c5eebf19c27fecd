/* Threads run monitored code while another registers, replaces and clears
 * monitors in a loop: nothing crashes, results and errno never change, and the
 * run is clean under ThreadSanitizer (ctest label "stress"). Duration:
 * TF_STRESS_SECONDS (default 2). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>
#include <tf/monitors.h>

#include "fake_tu.h"

#define WORKERS 3

static int stop;
static long calls_seen; /* by the user monitor, atomically */

static void u_enter(tf_monitor *s, int id, const tf_args *a)
{
    __atomic_fetch_add(&calls_seen, 1, __ATOMIC_RELAXED);
    read_int(0); /* monitored code inside a monitor: the guard must stop it */
}
static void u_destroy(tf_monitor *s)
{
    free(s);
}
static const tf_monitor_ops user_ops = {.enter = u_enter, .destroy = u_destroy};
static tf_monitor *user_create(tf_factory *f, const tf_tu *tu)
{
    tf_monitor *m = calloc(1, sizeof *m);
    m->ops = &user_ops;
    return m;
}
static tf_factory user = {"user", user_create, 0};

static void *worker(void *arg)
{
    long n = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        errno = 1234;
        int r = read_int((int)(n & 1023));
        write_long(n);
        if (r != 2 * (int)(n & 1023) || errno != 1234) {
            fprintf(stderr, "worker: wrong result %d or errno %d\n", r, errno);
            abort();
        }
        n++;
    }
    return (void *)n;
}

static tf_monitor *side_holder;
static const tf_name side_names[] = {{"side", TF_NAME_MONITOR, 0, "side.c", 1, 0}};
static const tf_tu_group side_groups[] = {{"io_read", &side_holder}};
static tf_tu side_tu = {TF_TU_ABI, sizeof(tf_tu), "side.c", "side", 1, 1, 0, 0,
                        side_names, side_groups, NULL, NULL, NULL};

static void swap_monitors_under_load(void **state)
{
    FILE *devnull = fopen("/dev/null", "w");
    tf_factory *pair[] = {tf_noop(), tf_operation_tracer()};
    tf_factory *choices[] = {tf_noop(), tf_operation_tracer(), tf_dprint(devnull), &user,
                             tf_compose(pair, 2)};
    const char *env = getenv("TF_STRESS_SECONDS");
    double seconds = env ? atof(env) : 2.0;
    tf_tu_register(&iostream_tu);

    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long swaps = 0;
    do {
        tf_factory *f = choices[swaps % 5];
        assert_int_equal(tf_register(swaps & 1 ? "io" : "io_read", f), TF_OK);
        if (swaps % 3 == 0)
            tf_clear("io");
        if (swaps % 7 == 0)
            tf_tu_register(&side_tu); /* TUs come and go too (not called here) */
        if (swaps % 7 == 3)
            tf_tu_unregister(&side_tu);
        if (swaps % 11 == 0)
            tf_clear_all();
        swaps++;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    long total = 0;
    for (int i = 0; i < WORKERS; i++) {
        void *n;
        pthread_join(t[i], &n);
        total += (long)n;
    }
    tf_clear_all();
    assert_null(hook_load(&holder_io_read));
    assert_null(hook_load(&holder_io_write));
    tf_tu_unregister(&side_tu);
    tf_tu_unregister(&iostream_tu);
    fclose(devnull);
    printf("stress: %d workers, %.1f s, %ld calls, %ld swaps, %ld seen by the user monitor\n",
           WORKERS, seconds, total, swaps, __atomic_load_n(&calls_seen, __ATOMIC_RELAXED));
    assert_true(total > 0);
    assert_true(swaps > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(swap_monitors_under_load)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
