/*
 * init.c: libtf's start-up, in the order it needs: the trust snapshot first
 * (only modules present now are trusted), then environment activation,
 * then live control (TF_TRIGGERS, TF_CONTROL).
 * Built-in factories registered before, in constructors of priority 101
 * (TF_ENV_FACTORY).
 * Every lock of the runtime is taken around fork, in the one order of
 * internal.h, so a child never inherits one held by a thread it lacks.
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"
#include "config.h"

static void mark_exiting(void)
{
    tf__registry_exiting();
}

/* While the forking thread holds libtf's locks, a signal handler's hooks on
 * it would wait for them: skipped instead (internal.h, tf__lock). */
static void fork_prepare(void)
{
    tf__in_monitor++;
    tf__term_fork(TF_FORK_PREPARE); /* first: a sanitizer build joins libtf's exit thread */
    tf__control_fork(TF_FORK_PREPARE);
    tf__env_fork(TF_FORK_PREPARE);
    tf__factories_fork(TF_FORK_PREPARE);
    tf__registry_fork(TF_FORK_PREPARE);
    tf__permission_fork(TF_FORK_PREPARE);
    tf__dprint_fork(TF_FORK_PREPARE);
    tf__timing_fork(TF_FORK_PREPARE);
    tf__record_fork(TF_FORK_PREPARE);
}

static void fork_done(int phase)
{
    tf__record_fork(phase);
    tf__timing_fork(phase);
    tf__dprint_fork(phase);
    tf__permission_fork(phase);
    tf__registry_fork(phase);
    tf__factories_fork(phase);
    tf__env_fork(phase);
    tf__control_fork(phase); /* last: a child's server starts with all locks free */
    tf__term_fork(phase); /* its exit thread, as the control server: all locks free */
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
    tf__registry_set_maker(tf__compose_create);
    tf__config_init();
    tf__permission_init();
    tf__dprint_init();
    tf__env_init();
    tf__control_init();
    atexit(mark_exiting); /* registered last: runs first at exit */
}
