/* rec.c: the recorder's fixture (run-record.sh). argv[1] chooses what it does:
 * calls, segv, bus, fpe, ill, abrt, fork, dl, snapshot, stream, flood. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tf/record.h>
#include <tf/tf.h>

TF_GROUP(rec);

enum color { RED, GREEN = 5 };

TF_MONITOR(rec) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

TF_INFO(TF_TP_NONE) static void note(const char *msg, long v) {}

TF_MONITOR(rec) const char *say(const char *s, const char *func, enum color c, _Bool ok, unsigned char u)
{
    note("said", u);
    return s;
}

static volatile int zero;

TF_MONITOR(rec) void crash(const char *how)
{
    if (strcmp(how, "segv") == 0)
        *(volatile int *)(long)zero = 1;
    else if (strcmp(how, "fpe") == 0) /* in asm: compilers turn 1 / x into compares */
        __asm__ volatile("xorl %%edx, %%edx; divl %0" : : "r"(zero) : "eax", "edx");
    else if (strcmp(how, "ill") == 0)
        __asm__ volatile("ud2");
    else if (strcmp(how, "bus") == 0)
        raise(SIGBUS);
    else
        abort();
}

static void *worker(void *arg)
{
    pthread_setname_np(pthread_self(), (const char *)arg);
    fib(4);
    return NULL;
}

static void *pacer(void *arg)
{
    for (int i = 0; i < 100; i++) {
        fib(10);
        usleep(1000);
    }
    return arg;
}

static void threads(void *(*fn)(void *), int n)
{
    static const char *names[] = {"w1", "w2", "w3", "w4"};
    pthread_t t[4];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, fn, (void *)names[i]);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

static int dl(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW);
    int (*twice)(int) = h ? (int (*)(int))dlsym(h, "twice") : NULL;
    if (!twice) {
        fprintf(stderr, "rec: %s\n", dlerror());
        return 1;
    }
    printf("%d\n", twice(21));
    dlclose(h);
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "calls";
    if (strcmp(what, "calls") == 0) {
        fib(5);
        say("hello", NULL, GREEN, 1, 200);
        say("a string longer than sixty-four bytes, so that it is cut when recorded", "f", RED, 0, 1);
        threads(worker, 2);
    } else if (strcmp(what, "fork") == 0) {
        fib(2);
        pid_t pid = fork();
        if (pid == 0) {
            fib(3);
            exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        printf("%d\n", pid);
        fib(1);
    } else if (strcmp(what, "dl") == 0) {
        fib(1);
        return dl(argv[2]);
    } else if (strcmp(what, "snapshot") == 0) {
        fib(2);
        printf("%d\n", tf_record_snapshot(argv[2])); /* TF_EINVAL when not recording */
        fib(3);
    } else if (strcmp(what, "stream") == 0) {
        threads(pacer, 2);
    } else if (strcmp(what, "flood") == 0) {
        fib(22);
    } else {
        fib(1);
        crash(what);
    }
    return 0;
}
