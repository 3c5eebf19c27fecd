/*
 * thread.c: how libtf starts a thread of its own (the exit thread, the
 * control server, the stream writer, the watchdog, the budget): with every
 * signal blocked while it is made, so that it starts with them all blocked
 * and the program's signals go to the program's threads; named (unless
 * name is NULL) for ps -L.
 */
#define _GNU_SOURCE
#include <signal.h>

#include "internal.h"

int tf__thread_start(pthread_t *t, void *(*fn)(void *), const char *name)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(t, NULL, fn, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0 && name)
        pthread_setname_np(*t, name);
    return rc;
}
