/*
 * app.c: the program the LTTng tests trace (tests/lttng/run.sh), compiled
 * with each plugin. Every kind of event and value, a second thread, and the
 * endings the tests need:
 *
 *   app run            work on the main thread, then on a thread "worker"
 *   app wait FILE      work, then keep working until FILE exists (live viewing)
 *   app crash          work, then abort() inside a monitored function
 *   app fork           work, and a forked child works too
 *
 * The threads run one after the other, so the order of events is the same
 * in every run and under every monitor.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tf/tf.h>

TF_GROUP(app);

enum colour { RED, GREEN };

TF_INFO(TF_TP_NONE) static void note(const char *what, int n) {}

TF_MONITOR(app) static int square(int n)
{
    return n * n;
}

TF_MONITOR(app) static const char *greet(const char *who, double weight, bool loud,
                                         void *none, enum colour c)
{
    note("greeting \"quoted\"", square(3));
    return loud ? "HELLO" : who;
}

/* Values wider than a word travel as text too (a 128-bit integer in full). */
TF_MONITOR(app) static __int128 wide(__int128 v, _Complex double z)
{
    return v * 3;
}

TF_MONITOR(app) static void work(int rounds)
{
    for (int i = 0; i < rounds; i++)
        square(i);
    greet("world", 2.5, rounds > 1, NULL, GREEN);
    wide(-((__int128)1 << 90), __builtin_complex(1.5, -2.0));
}

TF_MONITOR(app) static void last_words(long code) {}

TF_MONITOR(app) static void die(void)
{
    last_words(42);
    abort();
}

TF_MONITOR(app) static int child_work(int n)
{
    return square(n) + 1;
}

static void *worker(void *arg)
{
    pthread_setname_np(pthread_self(), "worker");
    work(1);
    return NULL;
}

static void run(void)
{
    work(2);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) == 0)
        pthread_join(t, NULL);
}

static int wait_for(const char *file)
{
    run();
    for (int i = 0; i < 3000 && access(file, F_OK) != 0; i++) {
        struct timespec ms10 = {0, 10 * 1000 * 1000};
        nanosleep(&ms10, NULL);
        if (i % 10 == 0)
            square(i); /* keep events coming while the viewer attaches */
    }
    return access(file, F_OK) == 0 ? 0 : 3;
}

static int forked(void)
{
    work(1);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        printf("child %d\n", (int)getpid());
        exit(child_work(7) == 50 ? 0 : 1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 1;
    work(1);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "run";
    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    if (strcmp(mode, "run") == 0)
        run();
    else if (strcmp(mode, "wait") == 0 && argc > 2)
        return wait_for(argv[2]);
    else if (strcmp(mode, "crash") == 0)
        run(), die();
    else if (strcmp(mode, "fork") == 0)
        return forked();
    else
        return fprintf(stderr, "usage: app run|wait FILE|crash|fork\n"), 2;
    return 0;
}
