/*
 * thread.c: how libtf starts a thread of its own (the exit thread, the
 * control server, the stream writer, the watchdog, the budget): with every
 * signal blocked while it is made, so that it starts with them all blocked
 * and the program's signals go to the program's threads; named (unless
 * name is NULL) for ps -L. And the records libtf keeps per thread of the
 * program (tf_threadrec, internal.h).
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

tf_threadrec *tf__threadrec_claim(tf_threadrec **all, size_t size)
{
    for (tf_threadrec *t = __atomic_load_n(all, __ATOMIC_ACQUIRE); t; t = t->next) {
        int free = 0;
        if (__atomic_load_n(&t->used, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&t->used, &free, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return t;
    }
    tf_threadrec *t = tf__pages_alloc(size);
    if (!t)
        return NULL;
    t->used = 1;
    t->next = __atomic_load_n(all, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(all, &t->next, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    return t;
}
