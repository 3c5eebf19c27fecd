/*
 * init.c: libtf's start-up, in the order it needs: the trust snapshot first
 * (only modules present now are trusted), then environment activation.
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
    tf__permission_init();
    tf__env_init();
    atexit(mark_exiting); /* registered last: runs first at exit */
}
