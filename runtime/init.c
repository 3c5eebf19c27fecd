/*
 * init.c: libtf's start-up, in the order it needs: the trust snapshot first
 * (only modules present now are trusted), then environment activation.
 * Every lock of the runtime is taken around fork (pthread_atfork), so a child
 * never inherits one held by a thread it does not have.
 */
#include <stdlib.h>

#include "../registry/internal.h"

volatile int tf__exiting;

static void mark_exiting(void)
{
    tf__exiting = 1;
}

__attribute__((constructor)) static void tf_init(void)
{
    tf__registry_init();
    tf__permission_init();
    tf__env_init();
    atexit(mark_exiting); /* registered last: runs first at exit */
}
