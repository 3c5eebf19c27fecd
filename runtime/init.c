/*
 * init.c: libtf's start-up, in the order it needs: the trust snapshot first
 * (only modules present now are trusted), then environment activation,
 * then live control (TF_TRIGGERS, TF_CONTROL).
 * Built-in factories registered before, in constructors of priority 101
 * (TF_ENV_FACTORY).
 * Every lock of the runtime is taken around fork, in the one order of
 * locks.h's table, so a child never inherits one held by a thread it lacks.
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"
#include "config.h"
#include "locks.h"

static void mark_exiting(void)
{
    tf__registry_exiting();
}

#define TF_LOCK_ROW(row, file, fn) {#row, file, fn},
const tf__lock_row tf__lock_rows[] = {TF_LOCKS(TF_LOCK_ROW)};
const int tf__nlock_rows = sizeof tf__lock_rows / sizeof tf__lock_rows[0];

/* While the forking thread holds libtf's locks, a signal handler's hooks on
 * it would wait for them: skipped instead (internal.h, tf__lock). */
static void fork_prepare(void)
{
    tf__in_monitor++;
    for (int i = 0; i < tf__nlock_rows; i++)
        tf__lock_rows[i].fork(TF_FORK_PREPARE);
}

/* Bottom to top: control last, so a child's server starts with all locks free. */
static void fork_done(int phase)
{
    for (int i = tf__nlock_rows - 1; i >= 0; i--)
        tf__lock_rows[i].fork(phase);
    tf__in_monitor--;
}

static void fork_parent(void)
{
    fork_done(TF_FORK_PARENT);
}

static void fork_child(void)
{
    fork_done(TF_FORK_CHILD);
}

__attribute__((constructor)) static void tf_init(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    tf__untraced_init(); /* first: says its count after every other exit handler ran */
    tf__registry_set_maker(tf__budget_make);
    tf__config_init();
    tf__permission_init();
    tf__budget_init(); /* before TF_MONITORS: their monitors are made with the meter at once */
    tf__dprint_init();
    tf__env_init();
    tf__control_init();
    tf__watchdog_init();
    atexit(mark_exiting); /* registered last: runs first at exit */
}
