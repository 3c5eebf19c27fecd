/* wdapp: the program the watchdog and tf-watch tests run (run.sh), one
 * behaviour per mode:
 *   nap SECONDS        run(n=1) -> nap(seconds, why="test"): a call that sleeps
 *   naps COUNT SECONDS nap COUNT times, a line "napping" on stdout before each
 *   deadlock           two threads take two mutexes in opposite order; _exit(0)
 *                      after 3 s (prints the mutexes' addresses first)
 *   rwdeadlock         a reader of an rwlock and a mutex holder wait for each other
 *                      (timedlock, wrlock); _exit(0) after 3 s
 *   hang2              two threads and main each in a sleeping call; _exit(0) after 3 s
 *   busy N             run_busy(n) making N short calls add()
 *   bound              says whether pthread_mutex_lock is rerouted from this program
 *   segv | exit N | kill   die each way inside a monitored call
 *   leak STEPS MS      grows by 1 MiB (touched) every MS ms, STEPS times
 *   hog                grows by 8 MiB (touched) until the kernel stops it
 *   damage             exits with status 4, its recording cut short
 *   jump SECONDS       jumps(seconds): longjmp out of inner(3)'s calls, then a nap
 *   fork SECONDS       a forked child naps; the parent waits and names it
 *   dldeadlock LIB     dlopens LIB (wdlib.c), whose two threads deadlock
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tf/record.h>
#include <tf/tf.h>

TF_GROUP(app);
TF_GROUP(locks);

static void ms(long n)
{
    struct timespec t = {n / 1000, (n % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

TF_MONITOR(app) void nap(int seconds, const char *why)
{
    ms(seconds * 1000L);
}

TF_MONITOR(app) int run(int n, int seconds)
{
    for (int i = 0; i < n; i++) {
        printf("napping\n");
        fflush(stdout);
        nap(seconds, "test");
    }
    return n;
}

TF_MONITOR(app) int add(int a, int b)
{
    return a + b;
}

TF_MONITOR(app) long run_busy(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += add((int)(i & 1023), 1);
    return s;
}

/* ---- deadlock ------------------------------------------------------------- */

static pthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER, mb = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

TF_MONITOR(locks) void take_ab(pthread_mutex_t *first, pthread_mutex_t *second)
{
    pthread_mutex_lock(first);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(second);
}

TF_MONITOR(locks) void take_ba(pthread_mutex_t *first, pthread_mutex_t *second)
{
    pthread_mutex_lock(first);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(second);
}

static void *one(void *arg)
{
    take_ab(&ma, &mb);
    return arg;
}

static void *two(void *arg)
{
    take_ba(&mb, &ma);
    return arg;
}

/* rwdeadlock: a reader of an rwlock waits (timedlock) for a mutex whose
 * holder waits to write-lock the rwlock: the reader is known only from the
 * watchdog's records (glibc keeps no reader's name). */
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;

static struct timespec in_a_minute(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += 60;
    return t;
}

TF_MONITOR(locks) void read_then_lock(pthread_rwlock_t *r, pthread_mutex_t *m)
{
    pthread_rwlock_rdlock(r);
    pthread_barrier_wait(&both);
    struct timespec t = in_a_minute();
    pthread_mutex_timedlock(m, &t);
}

TF_MONITOR(locks) void lock_then_write(pthread_mutex_t *m, pthread_rwlock_t *r)
{
    struct timespec t = in_a_minute();
    pthread_mutex_timedlock(m, &t);
    pthread_barrier_wait(&both);
    pthread_rwlock_wrlock(r);
}

static void *reader(void *arg)
{
    read_then_lock(&rw, &ma);
    return arg;
}

static void *writer(void *arg)
{
    lock_then_write(&ma, &rw);
    return arg;
}

static void *sleeper(void *arg)
{
    nap(30, arg);
    return arg;
}

static void start(void *(*fn)(void *), void *arg, const char *name)
{
    pthread_t t;
    pthread_create(&t, NULL, fn, arg);
    pthread_setname_np(t, name);
}

/* ---- longjmp: frames a jump skips are not open any more ------------------- */

static jmp_buf back;

TF_MONITOR(app) void inner(int depth)
{
    if (depth == 0)
        longjmp(back, 1);
    inner(depth - 1);
}

TF_MONITOR(app) void jumps(int seconds)
{
    if (setjmp(back) == 0)
        inner(3);
    nap(seconds, "after the jump");
}

/* ---- dying ------------------------------------------------------------------ */

TF_MONITOR(app) int step(const char *how, int n)
{
    if (strcmp(how, "segv") == 0)
        *(volatile int *)(uintptr_t)n = n;
    if (strcmp(how, "exit") == 0)
        exit(n);
    if (strcmp(how, "kill") == 0)
        raise(SIGKILL);
    return n;
}

static char *volatile kept; /* the memory is used: the compiler may not drop it */

TF_MONITOR(app) void grow(size_t bytes)
{
    char *p = malloc(bytes);
    if (p)
        memset(p, 1, bytes);
    kept = p;
}

/* damage: the program's destructors run before libtf's exit handler (which
 * writes the trace); this one writes the trace itself, cuts its thread file
 * and its ring file (which outlives an _exit, and tf-dump would read) short
 * and leaves by _exit, so the trace stays damaged. */
static int damage;
__attribute__((destructor)) static void cut_trace(void)
{
    char path[64], rings[64];
    snprintf(path, sizeof path, "tf-record-%d/thread-1", (int)getpid());
    snprintf(rings, sizeof rings, "tf-record-%d/.rings-%d-0", (int)getpid(), (int)getpid());
    if (!damage)
        return;
    if (tf_record_snapshot(NULL) != TF_OK || truncate(path, 100) != 0 || truncate(rings, 100) != 0)
        perror(path);
    _exit(4);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;
    if (strcmp(mode, "nap") == 0)
        return run(1, (int)a) == 1 ? 0 : 1;
    if (strcmp(mode, "naps") == 0)
        return run((int)a, (int)b) == a ? 0 : 1;
    if (strcmp(mode, "busy") == 0)
        return run_busy(a) > 0 ? 0 : 1;
    if (strcmp(mode, "deadlock") == 0) {
        printf("a=%p b=%p\n", (void *)&ma, (void *)&mb);
        fflush(stdout);
        pthread_barrier_init(&both, NULL, 2);
        start(one, NULL, "one");
        start(two, NULL, "two");
        ms(3000);
        _exit(0);
    }
    if (strcmp(mode, "rwdeadlock") == 0) {
        printf("rw=%p m=%p\n", (void *)&rw, (void *)&ma);
        fflush(stdout);
        pthread_barrier_init(&both, NULL, 2);
        start(reader, NULL, "reader");
        start(writer, NULL, "writer");
        ms(3000);
        _exit(0);
    }
    if (strcmp(mode, "hang2") == 0) {
        start(sleeper, "worker", "worker");
        ms(50);
        nap(3, "main");
        _exit(0);
    }
    if (strcmp(mode, "dldeadlock") == 0) { /* argv[2]: wdlib.so, loaded after start */
        void *lib = dlopen(argv[2], RTLD_NOW);
        void (*deadlock)(void) = lib ? (void (*)(void))dlsym(lib, "lib_deadlock") : NULL;
        if (!deadlock) {
            fprintf(stderr, "%s\n", dlerror());
            return 1;
        }
        ms(300); /* the watchdog's next period reroutes its lock calls */
        deadlock();
        ms(2000);
        _exit(0);
    }
    if (strcmp(mode, "jump") == 0) {
        jumps((int)a);
        return 0;
    }
    if (strcmp(mode, "fork") == 0) { /* the child naps: its own watchdog sees it */
        pid_t child = fork();
        if (child == 0)
            return run(1, (int)a) == 1 ? 0 : 1;
        int status;
        waitpid(child, &status, 0);
        printf("child %d\n", (int)child);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (strcmp(mode, "bound") == 0) {
        int (*volatile lock)(pthread_mutex_t *) = pthread_mutex_lock;
        printf("rerouted %s\n", (void *)lock == dlsym(RTLD_DEFAULT, "pthread_mutex_lock") ? "no" : "yes");
        return 0;
    }
    if (strcmp(mode, "leak") == 0) {
        for (long i = 0; i < a; i++) {
            grow(1 << 20);
            ms(b);
        }
        return 0;
    }
    if (strcmp(mode, "damage") == 0) {
        damage = 1;
        return step("exit", 4);
    }
    if (strcmp(mode, "hog") == 0) {
        for (;;)
            grow(8 << 20);
    }
    for (int i = 0; i < 3; i++)
        step("none", i);
    return step(mode, (int)a);
}
