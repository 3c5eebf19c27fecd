/*
 * sigsafe.c: a signal handler calls monitored code while its thread is
 * inside malloc, and that is the thread's first traced call (docs/design.md
 * .lock.signal: the tracer's calloc in the handler waited forever for malloc's
 * lock).
 *
 * Deterministic: this program replaces malloc and friends by glibc's own
 * behind a lock of its own, which a thread re-taking deadlocks as glibc's
 * arena lock does; malloc raises SIGUSR1 while it holds it, once per
 * thread that asks. A hook that allocated with malloc, locked stdio's buffer
 * allocation or waited for its own thread would hang there: the watchdog
 * turns that into a failure. Run by run.sh under each monitor.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tf/tf.h>
#include <tf/monitors.h>

#include "../fixtures/fixture.h"

TF_GROUP(sig);

TF_MONITOR(sig) int depth(int n)
{
    return n ? depth(n - 1) + 1 : 0;
}

static char context[4096]; /* the tracer's context as the handler saw it */

/* Deep enough to grow every monitor's per-thread stack inside the handler. */
TF_MONITOR(sig) int in_handler(const char *who, int n)
{
    int d = depth(n);
    if (strcmp(who, "handler") == 0)
        tf_operation_context(context, sizeof context);
    return d + (int)strlen(who);
}

/* ---- malloc with a lock a signal handler can deadlock on ------------------ */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static pthread_mutex_t heap = PTHREAD_MUTEX_INITIALIZER;
static __thread int raise_in_malloc;

void *malloc(size_t n)
{
    pthread_mutex_lock(&heap);
    if (raise_in_malloc) {
        raise_in_malloc = 0;
        raise(SIGUSR1); /* the handler runs now, with heap held */
    }
    void *p = __libc_malloc(n);
    pthread_mutex_unlock(&heap);
    return p;
}

void *calloc(size_t n, size_t size)
{
    pthread_mutex_lock(&heap);
    void *p = __libc_calloc(n, size);
    pthread_mutex_unlock(&heap);
    return p;
}

void *realloc(void *old, size_t n)
{
    pthread_mutex_lock(&heap);
    void *p = __libc_realloc(old, n);
    pthread_mutex_unlock(&heap);
    return p;
}

void free(void *p)
{
    pthread_mutex_lock(&heap);
    __libc_free(p);
    pthread_mutex_unlock(&heap);
}

/* ---- the signals ------------------------------------------------------------- */
static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
    handled = in_handler("handler", 100);
}

static void on_alarm(int sig)
{
    static const char msg[] = "sigsafe: FAIL: hung for 10 s (a hook waited inside the signal handler)\n";
    ssize_t unused = write(2, msg, sizeof msg - 1);
    (void)unused;
    _exit(3);
}

/* One round on the calling thread: its first monitored call is in the handler. */
static int round_here(const char *name)
{
    handled = 0;
    raise_in_malloc = 1;
    void *volatile p = malloc(64);
    free(p);
    int after = in_handler("after", 3);
    printf("%s: handler %d, after %d\n", name, (int)handled, after);
    if (context[0])
        printf("%s: context in the handler:\n%s", name, context);
    context[0] = 0;
    return handled == 107 && after == 8;
}

static void *worker(void *arg)
{
    return (void *)(intptr_t)round_here("worker");
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
    signal(SIGALRM, on_alarm);
    alarm(10);
    int ok = round_here("main");
    pthread_t t;
    void *wok = NULL;
    if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, &wok) != 0)
        return 2;
    ok = ok && wok;
    puts(ok ? "sigsafe: ok" : "sigsafe: FAIL: wrong results");
    return ok ? 0 : 1;
}
