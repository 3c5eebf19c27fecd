/*
 * untraced.c: calls the reentrancy guard skips are counted exactly and said
 * at exit (docs/design.md .lock.signal; they were lost silently). A user
 * monitor's enter of work() calls helper() N times itself and raises SIGUSR1,
 * whose handler calls helper() once more, all while the monitor runs: N + 1
 * calls not traced per work() call, each counted once per monitor that skipped
 * it.
 *
 *   untraced N [compose]   compose: the monitor composed with dprint
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <tf/tf.h>
#include <tf/monitors.h>
#include <tf/registry.h>

TF_GROUP(un);

TF_MONITOR(un) int helper(int x)
{
    return x + 1;
}

TF_MONITOR(un) int work(int x)
{
    return 2 * x;
}

static int n_calls;
static volatile int sink;
static int seen; /* enters the monitor saw */

static void on_usr1(int sig)
{
    sink += helper(-1);
}

static void m_enter(tf_monitor *self, int id, const tf_args *args)
{
    seen++;
    if (id != tf_method_id(self->tu, "work"))
        return;
    for (int i = 0; i < n_calls; i++)
        sink += helper(i);
    raise(SIGUSR1);
}

static void m_destroy(tf_monitor *self)
{
    free(self);
}

static const tf_monitor_ops ops = {.enter = m_enter, .destroy = m_destroy};

static tf_monitor *create(tf_factory *f, const tf_tu *tu)
{
    tf_monitor *m = malloc(sizeof *m);
    if (m)
        *m = (tf_monitor){&ops, tu, f};
    return m;
}

static tf_factory calls_back = {"calls-back", create, 0};

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    n_calls = atoi(argv[1]);
    signal(SIGUSR1, on_usr1);
    tf_factory *f = &calls_back;
    if (argc > 2) {
        FILE *null = fopen("/dev/null", "w");
        tf_factory *parts[2] = {&calls_back, tf_dprint(null)};
        f = tf_compose(parts, 2);
    }
    if (tf_register("un", f) != TF_OK)
        return 2;
    for (int i = 0; i < 3; i++)
        sink += work(i);
    sink += helper(10); /* traced: not counted */
    printf("monitor saw %d enters\n", seen);
    return 0;
}
