/*
 * ring.c: per-thread rings of fixed-size CTF packets (LTTng's sub-buffers;
 * the MPS telemetry's .sol.buffer). A thread's first event maps its ring
 * (pages.c: mmap, so that a signal handler's first event is safe too); after that the
 * hot path only writes its own memory: no lock, no allocation.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record.h"

static rt_ring *all;          /* every ring, newest first */
static uint32_t numbered;     /* rings made so far */
TF_TLS rt_ring *rt_self;
static pthread_key_t exit_key;

static void thread_gone(void *p)
{
    __atomic_store_n(&((rt_ring *)p)->exited, 1, __ATOMIC_RELEASE);
}

/* At start-up, not at a first event: pthread_once interrupted by a signal
 * handler on its own thread would wait for itself, and an early key is set
 * without malloc (glibc's first block of keys). */
__attribute__((constructor(101))) static void make_key(void)
{
    pthread_key_create(&exit_key, thread_gone);
}

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* The packet size for a ring of size bytes: at least RP_MIN_PACKETS packets. */
static uint32_t packet_size(uint64_t size)
{
    uint64_t p = RP_MAX;
    while (p > RP_MIN && p * RP_MIN_PACKETS > size)
        p /= 2;
    return (uint32_t)p;
}

/* A ring and its packets, in one mapping (pages.c). */
static size_t ring_bytes(uint32_t psize, uint64_t npackets)
{
    return sizeof(rt_ring) + 64 + (size_t)npackets * psize;
}

static rt_ring *ring_new(void)
{
    uint32_t psize = packet_size(rt_cfg.size);
    uint64_t n = rt_cfg.size / psize;
    if (n < RP_MIN_PACKETS)
        n = RP_MIN_PACKETS;
    void *m = tf__pages_alloc(ring_bytes(psize, n));
    if (!m)
        return NULL;
    rt_ring *r = m;
    r->mem = (unsigned char *)m + ((sizeof(rt_ring) + 63) & ~(size_t)63);
    r->psize = psize;
    r->npackets = (uint32_t)n;
    r->tid = (uint32_t)syscall(SYS_gettid);
    r->fd = -1;
    r->seq = UINT64_MAX; /* the first reserve opens packet 0 */
    r->pos = r->end = r->mem;
    r->number = __atomic_add_fetch(&numbered, 1, __ATOMIC_RELAXED);
    r->next = __atomic_load_n(&all, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&all, &r->next, r, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    return r;
}

rt_ring *rt_ring_make_self(void)
{
    rt_self = ring_new();
    if (rt_self)
        pthread_setspecific(exit_key, rt_self);
    return rt_self;
}

rt_ring *rt_rings(void)
{
    return __atomic_load_n(&all, __ATOMIC_ACQUIRE);
}

static unsigned char *slot(const rt_ring *r, uint64_t seq)
{
    return r->mem + (size_t)(seq % r->npackets) * r->psize;
}

/* Closes the current packet as a reader needs it: sizes, end time, losses. */
static void close_packet(rt_ring *r)
{
    unsigned char *p = slot(r, r->seq);
    uint32_t bits = (uint32_t)(r->pos - p) * 8;
    put64(p + RP_TS_END, r->last);
    put32(p + RP_CONTENT, bits);
    put32(p + RP_SIZE, bits);
    put64(p + RP_DISCARDED, r->discarded);
}

static void open_packet(rt_ring *r, uint64_t now)
{
    unsigned char *p = slot(r, r->seq + 1);
    /* Invalidate the slot for readers before its old bytes are overwritten. */
    __atomic_store_n((uint64_t *)(void *)(p + RP_SEQ), UINT64_MAX, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    put32(p, RP_MAGIC);
    put64(p + RP_TS_BEGIN, now);
    put32(p + RP_TID, r->tid);
    char name[16];
    tf__thread_name(name);
    memcpy(p + RP_THREAD, name, 16);
    r->last = now;
    __atomic_store_n(&r->pos, p + RP_HEADER, __ATOMIC_RELAXED);
    r->end = p + r->psize;
    __atomic_store_n((uint64_t *)(void *)(p + RP_SEQ), r->seq + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
}

unsigned char *rt_ring_reserve_slow(rt_ring *r, size_t n, uint64_t now)
{
    if (n > r->psize - RP_HEADER)
        return NULL;
    uint64_t next = r->seq + 1;
    /* Stream mode never overwrites a packet the writer thread has not written. */
    if (rt_cfg.stream && r->seq != UINT64_MAX) {
        uint64_t flushed = __atomic_load_n(&r->flushed, __ATOMIC_ACQUIRE);
        if (next >= flushed + r->npackets && !rs_wait(r, next))
            return NULL;
        if (next - flushed >= r->npackets / 2)
            rs_wake();
    }
    if (r->seq != UINT64_MAX)
        close_packet(r);
    open_packet(r, now);
    return r->pos;
}

void rt_ring_span(rt_ring *r, uint64_t *first, uint64_t *last)
{
    uint64_t cur = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);
    *last = cur;
    *first = cur == UINT64_MAX || cur < r->npackets ? 0 : cur - r->npackets + 1;
    if (rt_cfg.stream)
        *first = __atomic_load_n(&r->flushed, __ATOMIC_ACQUIRE);
}

size_t rt_ring_copy(rt_ring *r, uint64_t seq, unsigned char *out)
{
    const unsigned char *p = slot(r, seq);
    const uint64_t *seqp = (const uint64_t *)(const void *)(p + RP_SEQ);
    if (seq == UINT64_MAX || __atomic_load_n(seqp, __ATOMIC_ACQUIRE) != seq)
        return 0;
    /* pos inside this slot: the open packet (or one closed since, whose
     * prefix up to pos is as good); elsewhere: a closed packet. */
    const unsigned char *pos = __atomic_load_n(&r->pos, __ATOMIC_ACQUIRE);
    int current = pos >= p + RP_HEADER && pos <= p + r->psize;
    size_t len = current ? (size_t)(pos - p) : get32(p + RP_CONTENT) / 8;
    if (len < RP_HEADER || len > r->psize)
        return 0;
    memcpy(out, p, len);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(seqp, __ATOMIC_ACQUIRE) != seq)
        return 0; /* overwritten while we copied */
    if (current) { /* the reader's view of the open packet: closed at len */
        put64(out + RP_TS_END, __atomic_load_n(&r->last, __ATOMIC_RELAXED));
        put32(out + RP_CONTENT, (uint32_t)len * 8);
        put32(out + RP_SIZE, (uint32_t)len * 8);
        put64(out + RP_DISCARDED, __atomic_load_n(&r->discarded, __ATOMIC_RELAXED));
    }
    if (get64(out + RP_TS_END) < get64(out + RP_TS_BEGIN))
        put64(out + RP_TS_END, get64(out + RP_TS_BEGIN));
    return len;
}

/* The child keeps only its own calls: the parent's rings stay the parent's. */
void rt_ring_fork_child(void)
{
    for (rt_ring *r = all, *next; r; r = next) {
        next = r->next;
        if (r->fd >= 0)
            close(r->fd);
        tf__pages_free(r, ring_bytes(r->psize, r->npackets));
    }
    all = NULL;
    numbered = 0;
    rt_self = NULL;
    pthread_setspecific(exit_key, NULL);
}
