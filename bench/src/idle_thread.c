/*
 * idle_thread.c: preloaded into a program (LD_PRELOAD), starts one thread
 * that sleeps until the process ends. bench/everything's budget table runs
 * the instrumented program with it and nothing registered: what a second
 * thread costs alone. The overhead budget runs one (runtime/budget), and
 * once a process has two threads glibc's mutexes take the lock prefix and
 * its malloc its atomics for good (__libc_single_threaded stays false).
 */
#include <pthread.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
    for (;;)
        pause();
    return arg;
}

__attribute__((constructor)) static void start(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, sleeper, NULL) == 0)
        pthread_detach(t);
}
