/* fork while other threads register and print: every child can still
 * register, trace and exit (none inherits a lock held by a thread it lacks). */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <tf/monitors.h>

#include "fake_tu.h"

static int stop;
static FILE *devnull;

static void *printer(void *arg)
{
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
        read_int(1);
    return NULL;
}

static void *registrar(void *arg)
{
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        tf_register("io_write", tf_noop());
        tf_clear("io_write");
    }
    return NULL;
}

static void children_never_deadlock(void **state)
{
    devnull = fopen("/dev/null", "w");
    tf_tu_register(&iostream_tu);
    tf_register("io_read", tf_dprint(devnull));
    pthread_t p, r;
    pthread_create(&p, NULL, printer, NULL);
    pthread_create(&r, NULL, registrar, NULL);
    int hung = 0;
    for (int i = 0; i < 200; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(10); /* a deadlocked child dies of SIGALRM instead of hanging */
            tf_register("io", tf_noop());
            tf_register("io_read", tf_dprint(devnull));
            read_int(2);
            write_long(3);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        hung += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(p, NULL);
    pthread_join(r, NULL);
    tf_clear_all();
    tf_tu_unregister(&iostream_tu);
    assert_int_equal(hung, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(children_never_deadlock)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
