/*
 * ring.c: a thread's ring (LTTng's per-stream sub-buffers; the MPS
 * telemetry's .sol.buffer). A thread's first event takes it a ring record
 * of the pool (pool.c); after that the hot path writes only its own open
 * packet: no lock, no allocation. Filling the packet asks the pool for the
 * next one; the thread's end hands its packets back to be recycled.
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "record.h"

TF_TLS rt_ring *rt_self;
static TF_TLS uint32_t ringless; /* events until a thread without a ring asks again */
static pthread_key_t exit_key;
static uint64_t lost_early[TFR_NLOST]; /* before there is a pool to count in */

static void thread_gone(void *p)
{
    rt_self = NULL;
    rt_pool_ring_end(p);
}

/* At start-up, not at a first event: pthread_once interrupted by a signal
 * handler on its own thread would wait for itself, and an early key is set
 * without malloc (glibc's first block of keys). */
__attribute__((constructor(101))) static void make_key(void)
{
    pthread_key_create(&exit_key, thread_gone);
}

void rt_lost(rt_ring *r, int cause, uint64_t n)
{
    if (r) /* relaxed: a dump on another thread reads it */
        __atomic_store_n(&r->discarded, r->discarded + n, __ATOMIC_RELAXED);
    rt_pool *p = rt_pool_now();
    __atomic_fetch_add(p ? &p->hdr->lost[cause] : &lost_early[cause], n, __ATOMIC_RELAXED);
}

uint64_t rt_lost_early(int cause)
{
    return __atomic_load_n(&lost_early[cause], __ATOMIC_RELAXED);
}

/* A thread that got no ring asks again only every 4096 events: asking
 * takes the pool's lock. */
rt_ring *rt_ring_make_self(void)
{
    int why;
    if (ringless) {
        ringless--;
        rt_lost(NULL, TFR_LOST_BUDGET, 1);
        return NULL;
    }
    rt_ring *r = rt_pool_ring_new(&why);
    if (!r) {
        ringless = why == TFR_LOST_NESTED ? 0 : 4095;
        rt_lost(NULL, why, 1);
        return NULL;
    }
    rt_self = r;
    pthread_setspecific(exit_key, r);
    return r;
}

unsigned char *rt_ring_reserve_slow(rt_ring *r, size_t n, uint64_t now)
{
    rt_pool *p = rt_pool_now();
    if (n > p->hdr->psize - RP_HEADER) {
        rt_lost(r, TFR_LOST_BIG, 1);
        return NULL;
    }
    TF_KEEP_ERRNO();
    int why = 0;
    uint32_t s;
    while ((s = rt_pool_next(r, now, &why)) == TFR_NONE && why == TFR_LOST_FULL && rs_wait(r))
        ;
    if (s != TFR_NONE && rt_cfg.stream && r->seq - __atomic_load_n(&r->flushed, __ATOMIC_ACQUIRE) >= r->max / 2)
        rs_wake();
    TF_RESTORE_ERRNO();
    if (s == TFR_NONE) {
        rt_lost(r, why, 1);
        return NULL;
    }
    return (unsigned char *)(uintptr_t)r->pos;
}

/* The child keeps only its own calls: the parent's rings stay the parent's. */
void rt_ring_fork(int phase)
{
    rt_pool_fork(phase);
    if (phase != TF_FORK_CHILD)
        return;
    rt_self = NULL;
    ringless = 0;
    pthread_setspecific(exit_key, NULL);
    memset(lost_early, 0, sizeof lost_early);
}
