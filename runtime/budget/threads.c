/*
 * threads.c: one record of counters per thread that made a metered call
 * (budget.h says who touches what; .budget.count).
 *
 * A thread claims a free record, or makes one from pages.c (never malloc:
 * its first call may be in a signal handler that interrupted malloc), at
 * its first metered call. At thread exit the record is released for the
 * next thread with its counters, which go on counting: the budget thread
 * sums every record, so a sum never goes back. Records and chunks are never
 * unmapped.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"

TF_TLS bg_thread *bg_me;
static tf_threadrec *all;
static pthread_key_t key;

static void release(void *p)
{
    bg_thread *t = p;
    bg_me = NULL; /* a later destructor's monitored call claims a record again */
    t->nopen = 0;
    t->top_meter = NULL;
    __atomic_store_n(&t->rec.used, 0, __ATOMIC_RELEASE);
}

/* At start-up: pthread_once interrupted on its own thread would wait for
 * itself, and an early key is set without malloc. */
__attribute__((constructor(101))) static void make_key(void)
{
    pthread_key_create(&key, release);
}

bg_thread *bg_threads(void)
{
    return (bg_thread *)__atomic_load_n(&all, __ATOMIC_ACQUIRE);
}

static bg_thread *claim(void)
{
    bg_thread *t = (bg_thread *)tf__threadrec_claim(&all, sizeof *t);
    if (t) {
        /* threads start their sampling out of step with each other */
        t->rng = (uint32_t)gettid() * 2654435761u | 1u;
        t->countdown = t->interval = 1 + t->rng % 64;
        t->nopen = 0;
        t->top_meter = NULL;
        __atomic_store_n(&t->tid, gettid(), __ATOMIC_RELAXED);
        t->gen = 0;
        t->hurried = 0;
        t->hstart = t->hspend = 0;
        pthread_setspecific(key, t); /* libtf's early key: no malloc */
        bg_me = t;
    }
    return t;
}

TF_COLD bg_count *bg_count_make(uint32_t i)
{
    if (i >= BG_MAX_FUNCS)
        return NULL;
    int saved = errno;
    bg_thread *t = bg_me ? bg_me : claim();
    bg_count *c = t ? t->chunk[i / BG_CHUNK] : NULL;
    if (t && !c) {
        c = tf__pages_alloc(BG_CHUNK * sizeof *c);
        __atomic_store_n(&t->chunk[i / BG_CHUNK], c, __ATOMIC_RELEASE);
    }
    errno = saved;
    return c ? c + i % BG_CHUNK : NULL;
}

uint64_t bg_threads_sum(bg_count *sum, uint32_t n)
{
    uint64_t once = 0;
    for (bg_thread *t = bg_threads(); t; t = bg_next(t)) {
        once += BG_GET(t->once);
        for (uint32_t k = 0; k * BG_CHUNK < n && k < BG_CHUNKS; k++) {
            bg_count *c = __atomic_load_n(&t->chunk[k], __ATOMIC_ACQUIRE);
            for (uint32_t j = 0; c && j < BG_CHUNK && k * BG_CHUNK + j < n; j++) {
                bg_count *s = &sum[k * BG_CHUNK + j];
                s->calls += BG_GET(c[j].calls);
                s->samples += BG_GET(c[j].samples);
                s->cost += BG_GET(c[j].cost);
                s->span += BG_GET(c[j].span);
            }
        }
    }
    return once;
}

void bg_threads_poke(void)
{
    unsigned k = 0;
    for (bg_thread *t = bg_threads(); t && k < BG_POKE; t = bg_next(t)) {
        pid_t tid = __atomic_load_n(&t->tid, __ATOMIC_RELAXED);
        if (!__atomic_load_n(&t->rec.used, __ATOMIC_ACQUIRE) || tid <= 0)
            continue;
        struct timespec ts; /* a thread gone meanwhile: it fails, which changes nothing */
        clock_gettime(bg_thread_clock(tid), &ts);
        k++;
    }
}

/* Only the forking thread lives on in the child; the others' records are
 * free for its threads (their counts stay in the sums). */
void bg_threads_fork_child(void)
{
    if (bg_me)
        __atomic_store_n(&bg_me->tid, gettid(), __ATOMIC_RELAXED);
    for (bg_thread *t = bg_threads(); t; t = bg_next(t))
        if (t != bg_me) {
            t->nopen = 0;
            t->top_meter = NULL;
            t->rec.used = 0;
        }
}
