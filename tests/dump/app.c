/*
 * app.c: the program tf-dump's tests record: values of every kind, an info
 * call, nesting, an exit without a result, three threads with names of their
 * own. Registers dprint (argv[1]) and logmon (argv[2]) on its group, so both
 * see the same run; with argv[3] "record" the recorder too (TF_RECORD), and
 * with "record-_exit" it then ends by _exit: the trace is never written, its
 * ring file stays. Calls made: work 3, leaf 3 * (N + 1), show 3.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tf/monitors.h>
#include <tf/record.h>
#include <tf/registry.h>
#include <tf/tf.h>

#include "logmon.h"

#define N 40

TF_GROUP(dumpapp);

enum colour { RED, GREEN, BLUE };

TF_INFO(TF_TP_NONE) static void note(const char *what, long v) {}

TF_MONITOR(dumpapp) int leaf(int i, unsigned u, bool b, double d, enum colour c, const char *s,
                             const void *p)
{
    if (i % 8 == 0)
        note("eighth", i);
    return i * 2 + (int)u;
}

TF_MONITOR(dumpapp) void show(const char *who) {}

static const char long_text[] = "a string longer than sixty-four bytes, cut by every TF output "
                                "the same way\n\t\"quoted\"";

TF_MONITOR(dumpapp) long work(int n, const char *name)
{
    long sum = 0;
    for (int i = 0; i <= n; i++)
        sum += leaf(i, (unsigned)i * 3u, i % 2, i / 4.0, (enum colour)(i % 3),
                    i % 5 ? name : long_text, i % 7 ? (const void *)&sum : NULL);
    show(name);
    return sum;
}

static void *thread_main(void *arg)
{
    pthread_setname_np(pthread_self(), arg);
    work(N, arg);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        return fprintf(stderr, "usage: app DPRINT_FILE LOG_FILE [record|record-_exit]\n"), 2;
    FILE *out = fopen(argv[1], "w");
    tf_factory *all[] = {tf_dprint(out), logmon(argv[2]), tf_record()};
    if (!out || tf_register("dumpapp", tf_compose(all, argc == 4 ? 3 : 2)) != TF_OK)
        return 1;
    pthread_t t[2];
    char *names[] = {"worker-a", "worker-b"};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, thread_main, names[i]);
    long s = work(N, "main");
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    tf_clear_all();
    fclose(out);
    if (argc == 4 && strcmp(argv[3], "record-_exit") == 0)
        _exit(s > 0 ? 0 : 1);
    return s > 0 ? 0 : 1;
}
