/*
 * ctlapp: the program tests/control drives. Groups app (req, work); handle()
 * in req calls step() in work; fail() in req leaves by longjmp (a noreturn
 * exception in C).
 *
 *   ctlapp script        a fixed sequence of calls, for exact traces
 *   ctlapp serve [T]     T threads (default 0) call handle(0, ...) in a loop;
 *                        stdin lines "call ID MS", "fail", "fork", "quit"
 *                        are done on the main thread, each answered "done"
 *                        ("fork" answers the child's pid; the child serves
 *                        on until killed)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tf/tf.h>

TF_GROUP(req);
TF_GROUP(work);
TF_GROUP(app, req, work);

static jmp_buf jb;

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (ms > 0 && nanosleep(&ts, &ts) != 0)
        ;
}

TF_MONITOR(work) int step(int n)
{
    return n * 2;
}

TF_MONITOR(req) int handle(int id, const char *path, int ms)
{
    pause_ms(ms);
    return step(id);
}

TF_MONITOR(req) void fail(int code)
{
    longjmp(jb, code);
}

static void try_fail(void)
{
    if (setjmp(jb) == 0)
        fail(1);
}

static void script(void)
{
    handle(1, "/a", 0);
    handle(2, "/b", 30);
    handle(3, "/c", 0);
    try_fail();
}

static volatile int stop;

static void *loop(void *arg)
{
    while (!stop) {
        handle(0, "/loop", 0);
        pause_ms(1);
    }
    return arg;
}

static void serve(int threads)
{
    pthread_t t[16];
    for (int i = 0; i < threads && i < 16; i++)
        pthread_create(&t[i], NULL, loop, NULL);
    char line[128];
    printf("ready %ld\n", (long)getpid());
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        int id, ms;
        if (sscanf(line, "call %d %d", &id, &ms) == 2)
            handle(id, "/x", ms);
        else if (strncmp(line, "fail", 4) == 0)
            try_fail();
        else if (strncmp(line, "quit", 4) == 0)
            break;
        else if (strncmp(line, "fork", 4) == 0) {
            pid_t child = fork();
            if (child == 0) {
                for (;;) {
                    handle(0, "/child", 0);
                    pause_ms(5);
                }
            }
            printf("child %ld\n", (long)child);
        }
        printf("done\n");
        fflush(stdout);
    }
    stop = 1;
    for (int i = 0; i < threads && i < 16; i++)
        pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "script") == 0)
        script();
    else if (argc >= 2 && strcmp(argv[1], "serve") == 0)
        serve(argc > 2 ? atoi(argv[2]) : 0);
    else
        return 2;
    return 0;
}
