/*
 * threads.c: one record per thread that made a monitored call or took a
 * lock while a watchdog ran (watchdog.h says who touches what).
 *
 * A thread claims a free record, or makes one from pages.c (never malloc:
 * its first event may be in a signal handler that interrupted malloc), at
 * its first event. At thread exit the record is released for the next
 * thread, with its frame chunks; records are never unmapped, so the
 * watchdog and the control server can read any of them at any time.
 *
 * .wd.seqlock: an enter writes its frame with seq 0, then the frame's real
 * seq, then depth and events, each with release order; a reader copies a
 * frame between two loads of its seq and keeps the copy only if both are
 * the same nonzero value. Frames never move, so a copy that raced a change
 * is discarded, never a fault.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "watchdog.h"

TF_TLS wd_thread *wd_me;
static tf_threadrec *all;
static uint64_t retired;
static pthread_key_t key;

static void release(void *p)
{
    wd_thread *t = p;
    wd_me = NULL; /* a later destructor's monitored call claims a record again */
    __atomic_fetch_add(&retired, t->events - t->base, __ATOMIC_RELAXED);
    __atomic_store_n(&t->depth, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&t->waiting, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&t->nheld, 0, __ATOMIC_RELEASE);
    t->held_lost = 0;
    __atomic_store_n(&t->rec.used, 0, __ATOMIC_RELEASE);
}

/* At start-up: pthread_once interrupted on its own thread would wait for
 * itself, and an early key is set without malloc. */
__attribute__((constructor(101))) static void make_key(void)
{
    pthread_key_create(&key, release);
}

wd_thread *wd_threads(void)
{
    return (wd_thread *)__atomic_load_n(&all, __ATOMIC_ACQUIRE);
}

TF_COLD wd_thread *wd_claim(void)
{
    int saved = errno;
    wd_thread *t = (wd_thread *)tf__threadrec_claim(&all, sizeof *t);
    if (t) {
        t->tid = gettid();
        t->base = t->events;
        __atomic_store_n(&t->claims, t->claims + 1, __ATOMIC_RELEASE);
        pthread_setspecific(key, t); /* libtf's early key: no malloc */
        wd_me = t;
    }
    errno = saved;
    return t;
}

uint64_t wd_retired(void)
{
    return __atomic_load_n(&retired, __ATOMIC_RELAXED);
}

wd_frame *wd_frame_at(wd_thread *t, int i)
{
    if (i < 0 || i >= WD_CHUNK * WD_CHUNKS)
        return NULL;
    wd_frame *chunk = __atomic_load_n(&t->chunk[i / WD_CHUNK], __ATOMIC_ACQUIRE);
    return chunk ? &chunk[i % WD_CHUNK] : NULL;
}

TF_COLD wd_frame *wd_frame_make(wd_thread *t, int i)
{
    if (i < 0 || i >= WD_CHUNK * WD_CHUNKS)
        return NULL;
    wd_frame *chunk = tf__pages_alloc(WD_CHUNK * sizeof *chunk);
    __atomic_store_n(&t->chunk[i / WD_CHUNK], chunk, __ATOMIC_RELEASE);
    return chunk ? &chunk[i % WD_CHUNK] : NULL;
}

int wd_frame_copy(wd_thread *t, int i, wd_frame *out)
{
    wd_frame *f = wd_frame_at(t, i);
    if (!f)
        return 0;
    uint64_t seq = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
    memcpy(out, f, sizeof *out);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return seq && __atomic_load_n(&f->seq, __ATOMIC_RELAXED) == seq && out->seq == seq;
}

/* Only the forking thread lives on in the child: the others' records are
 * free, and their waits and locks are gone with them. */
void wd_threads_fork_child(void)
{
    for (wd_thread *t = wd_threads(); t; t = wd_next(t)) {
        if (t == wd_me) {
            t->tid = gettid();
            continue;
        }
        t->depth = 0;
        t->waiting = NULL;
        t->nheld = 0;
        t->held_lost = 0;
        t->rec.used = 0;
    }
}
