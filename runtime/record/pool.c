/*
 * pool.c: every packet of the process in one pool (docs/design.md .rec.pool,
 * .rec.budget): TF_RECORD_TOTAL bytes whatever the number of threads, at most
 * TF_RECORD_SIZE of them a thread. In ring mode the pool is the ring file
 * of the trace directory (layout.h), made at the first event, so that what
 * the rings hold outlives the process (.rec.survive); in stream mode, or
 * when the directory cannot be made, anonymous memory of the same layout.
 *
 * A thread that fills its open packet gets the next one here, under the one
 * pool lock (a packet switch comes every few thousand events). In ring
 * mode it comes, in this order:
 *  - while the thread holds less than its share (TF_RECORD_SIZE): from the
 *    packets never used or given back; then the oldest packet of the thread
 *    that ended first (ended threads' rings are recycled oldest first, their
 *    newest packets kept longest, their rare ones last); then the oldest of
 *    the running thread that holds the most, if that is two more than this
 *    one would (so many threads share the budget evenly);
 *  - else its own oldest closed packet: a ring. A packet holding a rare
 *    event (info point, exception, signal) is pinned instead, up to a
 *    quarter of the share, so that hot calls do not overwrite it
 *    (.rec.rare; MPS telemetry's .sol.kind).
 * Stream mode never takes a packet the writer has not written: a thread
 * reuses its own written ones, and those of ended threads come back once
 * written (stream.c).
 *
 * The lock is a spinlock taken only here, in a hook's slow path or at a
 * thread's end: a signal handler's hook on a thread that holds it does not
 * wait for itself (held_here) but loses its event, counted.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record.h"

static rt_pool pool;
static rt_pool *ready;        /* &pool once made (release) */
static int gave_up;           /* no pool can be made: said once */
static int lock_word;
static TF_TLS int held_here;
/* Under the lock: */
static uint32_t used_slots;   /* slots [0, used_slots) have been handed out */
static uint32_t free_slots = TFR_NONE; /* given back, linked by tfr_slot.next */
static uint32_t used_rings, free_rings = TFR_NONE;
static uint32_t ended_head = TFR_NONE, ended_tail = TFR_NONE; /* ended rings, first ended first */
static int said_disk;

static int pool_lock(void)
{
    if (held_here)
        return -1;
    for (unsigned spins = 0; __atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE); spins++) {
        if (spins < 64)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
    held_here = 1;
    return 0;
}

static void pool_unlock(void)
{
    held_here = 0;
    __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}

rt_pool *rt_pool_now(void)
{
    return __atomic_load_n(&ready, __ATOMIC_ACQUIRE);
}

uint32_t rt_packet_size(uint64_t size)
{
    uint64_t p = RP_MAX;
    while (p > RP_MIN && p * RP_MIN_PACKETS > size)
        p /= 2;
    return (uint32_t)p;
}

/* ---- making the pool --------------------------------------------------------- */

static uint64_t round_up(uint64_t n, uint64_t to)
{
    return (n + to - 1) / to * to;
}

/* The layout of a pool of nslots packets of psize bytes, in p->hdr's terms. */
static void plan(tfr_header *h, uint32_t psize, uint32_t nslots)
{
    h->psize = psize;
    h->nslots = nslots;
    h->nrings = nslots < TFR_MAX_RINGS ? nslots : TFR_MAX_RINGS;
    h->slots_off = TFR_HEADER;
    h->rings_off = round_up(h->slots_off + (uint64_t)nslots * sizeof(tfr_slot), 64);
    h->packets_off = round_up(h->rings_off + (uint64_t)h->nrings * sizeof(tfr_ring), 4096);
    h->log_off = round_up(h->packets_off + (uint64_t)nslots * psize, 4096);
}

static void say_once(const char *a, const char *b, const char *c)
{
    rd_say(a, b, c, "");
}

/* Blocks on disk for [at, at + len) of the file: a mapped page of a sparse
 * file that the disk has no room for would be a SIGBUS in a hook. */
static int reserve(int fd, uint64_t at, uint64_t len)
{
    if (fallocate(fd, 0, (off_t)at, (off_t)len) == 0)
        return 0;
    if (errno != EOPNOTSUPP)
        return -1;
    static const char zeros[4096]; /* a file system without fallocate: write them */
    for (uint64_t o = at; o < at + len; o += sizeof zeros) {
        size_t n = at + len - o < sizeof zeros ? (size_t)(at + len - o) : sizeof zeros;
        if (pwrite(fd, zeros, n, (off_t)o) != (ssize_t)n)
            return -1;
    }
    return 0;
}

/* Packets [usable, want) backed by the disk; -1 (said once) if it is full. */
static int back(rt_pool *p, uint32_t want)
{
    tfr_header *h = p->hdr;
    if (p->fd < 0 || want <= h->usable)
        return 0;
    if (reserve(p->fd, h->packets_off + (uint64_t)h->usable * h->psize,
                (uint64_t)(want - h->usable) * h->psize) != 0) {
        if (!said_disk++)
            say_once("no room in '", rd_dir(), "' for more of the ring file: threads keep "
                     "fewer packets than TF_RECORD_TOTAL allows");
        return -1;
    }
    h->usable = want;
    return 0;
}

/* The ring file: .rings-<pid>-<k>, the first k not taken (a program that
 * exec'ed keeps its pid, and its rings stay for tf-dump). */
static int make_file(rt_pool *p, uint64_t bytes)
{
    int dir = rd_trace_dir();
    if (dir < 0)
        return -1;
    int fd = -1;
    for (unsigned k = 0; fd < 0 && k < 1000; k++) {
        tf_buf b = {p->name, sizeof p->name, 0};
        tf__buf_puts(&b, ".rings-");
        tf__buf_uint(&b, (uint64_t)getpid());
        tf__buf_put(&b, "-", 1);
        tf__buf_uint(&b, k);
        tf__buf_end(&b);
        fd = rd_create_at(dir, p->name, TF_FILE_CTF_RINGS, O_EXCL);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    close(dir);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
        say_once("cannot make the ring file in '", rd_dir(), "': recording in memory only, "
                 "lost if the process is killed");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* The pool's memory: the ring file mapped shared, its tables on disk, or
 * anonymous memory. */
static int map_pool(rt_pool *p, const tfr_header *h, int file)
{
    p->fd = file ? make_file(p, h->log_off) : -1;
    if (p->fd >= 0 && reserve(p->fd, 0, h->packets_off) != 0) {
        say_once("no room in '", rd_dir(), "' for the ring file: recording in memory only, "
                 "lost if the process is killed");
        close(p->fd);
        rd_remove(p->name);
        p->fd = -1;
    }
    void *m = p->fd >= 0 ? mmap(NULL, h->log_off, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0)
                         : tf__pages_alloc(h->log_off);
    if (m == MAP_FAILED || !m) {
        if (p->fd < 0)
            return -1;
        close(p->fd);
        rd_remove(p->name);
        return map_pool(p, h, 0);
    }
    p->map = m;
    p->map_bytes = h->log_off;
    return 0;
}

static void fill_header(rt_pool *p, const tfr_header *plan_of)
{
    tfr_header *h = p->hdr;
    *h = *plan_of;
    h->version = TFR_VERSION;
    h->header_size = TFR_HEADER;
    h->pid = (uint32_t)getpid();
    h->base = (uint64_t)(uintptr_t)p->map;
    h->id = ((uint64_t)getpid() << 32) ^ tf__clock_now() ^ h->base;
    h->flags = (rt_cfg.values ? TFR_VALUES : 0) | (tf__clock_tsc ? TFR_TSC : 0);
    h->max_packets = (uint32_t)(rt_cfg.size / h->psize);
    if (h->max_packets < RP_MIN_PACKETS)
        h->max_packets = RP_MIN_PACKETS;
    if (h->max_packets > h->nslots)
        h->max_packets = h->nslots;
    tf__clock_start(&h->tsc0, &h->mono0, &h->real0);
    h->tsc1 = h->tsc0;
    h->mono1 = h->mono0;
    rm_names(h->host, sizeof h->host, h->proc, sizeof h->proc);
}

static int make(void)
{
    tfr_header want;
    memset(&want, 0, sizeof want);
    /* packets small enough that the budget holds at least two of them; in
     * stream mode one page each, which a SIGKILL cannot cut (.rec.stream.page) */
    uint32_t psize = rt_packet_size(rt_cfg.size < rt_cfg.total ? rt_cfg.size : rt_cfg.total);
    long page = sysconf(_SC_PAGESIZE);
    if (rt_cfg.stream && page >= (long)RP_MIN && psize > page)
        psize = (uint32_t)page;
    uint64_t n = rt_cfg.total / psize;
    plan(&want, psize, (uint32_t)(n < 2 ? 2 : n > 1u << 24 ? 1u << 24 : n));
    rt_pool *p = &pool;
    if (map_pool(p, &want, !rt_cfg.stream) != 0) {
        say_once("no memory for the rings (TF_RECORD_TOTAL): nothing is recorded", "", "");
        return -1;
    }
    p->hdr = (tfr_header *)(void *)p->map;
    p->slots = (tfr_slot *)(void *)(p->map + want.slots_off);
    p->rings = (tfr_ring *)(void *)(p->map + want.rings_off);
    p->packets = p->map + want.packets_off;
    fill_header(p, &want);
    if (p->fd < 0)
        p->hdr->usable = want.nslots;
    memcpy(p->hdr->magic, TFR_MAGIC, 8);
    __atomic_store_n(&ready, p, __ATOMIC_RELEASE);
    /* The metadata made so far into the file's log; if this thread is in
     * the middle of making a class (a signal handler's first event), it
     * logs everything once it is done (classes.c). */
    rc_log_all();
    return 0;
}

rt_pool *rt_pool_get(void)
{
    rt_pool *p = rt_pool_now();
    if (__builtin_expect(p != NULL, 1) || __atomic_load_n(&gave_up, __ATOMIC_RELAXED))
        return p;
    TF_KEEP_ERRNO();
    if (pool_lock() == 0) {
        if (!ready && !gave_up && make() != 0)
            gave_up = 1;
        pool_unlock();
    }
    TF_RESTORE_ERRNO();
    return rt_pool_now();
}

/* ---- lists, under the lock ---------------------------------------------------- */

static uint32_t ring_index(const rt_pool *p, const rt_ring *r)
{
    return (uint32_t)(r - p->rings);
}

/* Appends slot s to the list [*head, *tail]. */
static void push(rt_pool *p, uint32_t *head, uint32_t *tail, uint32_t s)
{
    p->slots[s].next = TFR_NONE;
    if (*tail == TFR_NONE)
        *head = s;
    else
        p->slots[*tail].next = s;
    *tail = s;
}

static uint32_t pop(rt_pool *p, uint32_t *head, uint32_t *tail)
{
    uint32_t s = *head;
    if (s != TFR_NONE) {
        *head = p->slots[s].next;
        if (*head == TFR_NONE)
            *tail = TFR_NONE;
    }
    return s;
}

/* A packet never used (backed by the disk a chunk at a time) or given back. */
static uint32_t take_free(rt_pool *p)
{
    if (free_slots != TFR_NONE) {
        uint32_t s = free_slots;
        free_slots = p->slots[s].next;
        return s;
    }
    tfr_header *h = p->hdr;
    if (used_slots == h->usable) /* 4 more packets at a time: a process that records little keeps little */
        back(p, h->nslots - used_slots < 4 ? h->nslots : used_slots + 4);
    if (used_slots == h->usable)
        return TFR_NONE;
    __atomic_store_n(&used_slots, used_slots + 1, __ATOMIC_RELEASE); /* readers scan up to it */
    return used_slots - 1;
}

static void give_back(rt_pool *p, uint32_t s)
{
    __atomic_store_n(&p->slots[s].ring, 0, __ATOMIC_RELEASE); /* readers skip it */
    p->slots[s].next = free_slots;
    free_slots = s;
}

static void drop(rt_pool *p, int what)
{
    __atomic_fetch_add(&p->hdr->drops[what], 1, __ATOMIC_RELAXED);
}

/* The oldest packet of r: its window's, then its pinned ones'. */
static uint32_t oldest_of(rt_pool *p, rt_ring *r)
{
    uint32_t s = pop(p, &r->head, &r->tail);
    if (s != TFR_NONE) {
        r->count--;
        return s;
    }
    s = pop(p, &r->pin_head, &r->pin_tail);
    if (s != TFR_NONE)
        r->npinned--;
    return s;
}

static void free_ring(rt_pool *p, rt_ring *r)
{
    __atomic_store_n(&r->state, TFR_RING_FREE, __ATOMIC_RELEASE);
    r->next = free_rings;
    free_rings = ring_index(p, r);
}

static void unlink_ended(rt_pool *p, rt_ring *r)
{
    uint32_t i = ring_index(p, r), *at = &ended_head, prev = TFR_NONE;
    while (*at != TFR_NONE && *at != i) {
        prev = *at;
        at = &p->rings[*at].next;
    }
    if (*at == i)
        *at = r->next;
    if (ended_tail == i)
        ended_tail = prev;
}

/* The oldest packet of the thread that ended first; its ring is freed with
 * its last packet. */
static uint32_t steal_ended(rt_pool *p)
{
    while (ended_head != TFR_NONE) {
        rt_ring *e = &p->rings[ended_head];
        uint32_t s = oldest_of(p, e);
        if (e->count + e->npinned == 0) {
            unlink_ended(p, e);
            free_ring(p, e);
            drop(p, TFR_DROP_THREADS);
        }
        if (s != TFR_NONE) {
            drop(p, TFR_DROP_RECYCLED);
            return s;
        }
    }
    return TFR_NONE;
}

/* The oldest closed packet of the running thread holding the most, if it
 * holds two more than r would: threads beyond the budget share it evenly. */
static uint32_t steal_live(rt_pool *p, const rt_ring *r, uint32_t held)
{
    rt_ring *most = NULL;
    for (uint32_t i = 0; i < used_rings; i++) {
        rt_ring *v = &p->rings[i];
        if (v != r && v->state == TFR_RING_LIVE && v->count &&
            (!most || v->count + v->npinned > most->count + most->npinned))
            most = v;
    }
    if (!most || most->count + most->npinned + 1 < held + 2)
        return TFR_NONE;
    drop(p, TFR_DROP_STOLEN);
    uint32_t s = pop(p, &most->head, &most->tail);
    most->count--;
    return s;
}

/* r's own oldest closed packet; one holding a rare event is pinned instead
 * while r has pinned fewer than a quarter of its share. */
static uint32_t recycle_own(rt_pool *p, rt_ring *r)
{
    uint32_t pin_max = r->max / 4, s;
    while ((s = pop(p, &r->head, &r->tail)) != TFR_NONE) {
        r->count--;
        if (!(p->slots[s].flags & TFR_SLOT_RARE) || !pin_max)
            break;
        push(p, &r->pin_head, &r->pin_tail, s);
        if (++r->npinned <= pin_max)
            continue;
        s = pop(p, &r->pin_head, &r->pin_tail); /* the oldest pinned goes instead */
        r->npinned--;
        break;
    }
    if (s == TFR_NONE && (s = pop(p, &r->pin_head, &r->pin_tail)) != TFR_NONE)
        r->npinned--;
    if (s != TFR_NONE)
        drop(p, TFR_DROP_OVERWRITTEN);
    return s;
}

/* r's open packet, closed as a reader needs it and put at its window's end. */
static void close_open(rt_pool *p, rt_ring *r)
{
    uint32_t s = r->cur;
    unsigned char *pk = rt_packet(p, s);
    uint32_t bits = (uint32_t)(r->pos - (uint64_t)(uintptr_t)pk) * 8;
    tfr_put64(pk + TFR_P_TS_END, r->last);
    tfr_put32(pk + TFR_P_CONTENT, bits);
    tfr_put32(pk + TFR_P_SIZE, bits);
    tfr_put64(pk + TFR_P_DISCARDED, r->discarded);
    if (r->rare)
        p->slots[s].flags |= TFR_SLOT_RARE;
    r->rare = 0;
    push(p, &r->head, &r->tail, s);
    r->count++;
    __atomic_store_n(&r->cur, TFR_NONE, __ATOMIC_RELEASE);
    __atomic_store_n(&r->pos, 0, __ATOMIC_RELAXED);
    r->end = 0;
}

/* Slot s as r's next packet, begun at now. */
static void open_packet(rt_pool *p, rt_ring *r, uint32_t s, uint64_t now)
{
    tfr_slot *sl = &p->slots[s];
    uint64_t gen = sl->gen | 1;
    __atomic_store_n(&sl->gen, gen, __ATOMIC_RELAXED); /* odd: readers keep off */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&sl->ring, ring_index(p, r) + 1, __ATOMIC_RELAXED); /* read by dumps */
    sl->flags = 0;
    unsigned char *pk = rt_packet(p, s);
    uint64_t seq = r->seq + 1; /* UINT64_MAX + 1: the first is 0 */
    tfr_put32(pk + TFR_P_MAGIC, TFR_PACKET_MAGIC);
    tfr_put64(pk + TFR_P_TS_BEGIN, now);
    tfr_put64(pk + TFR_P_TS_END, now);
    tfr_put32(pk + TFR_P_CONTENT, 0);
    tfr_put32(pk + TFR_P_SIZE, 0);
    tfr_put64(pk + TFR_P_SEQ, seq);
    tfr_put64(pk + TFR_P_DISCARDED, r->discarded);
    tfr_put32(pk + TFR_P_TID, r->tid);
    char name[16];
    tf__thread_name(name);
    memcpy(pk + TFR_P_THREAD, name, 16);
    r->seq = seq;
    __atomic_store_n(&r->last, now, __ATOMIC_RELAXED);
    r->end = (uint64_t)(uintptr_t)(pk + p->hdr->psize);
    __atomic_store_n(&r->pos, (uint64_t)(uintptr_t)(pk + TFR_P_HEADER), __ATOMIC_RELAXED);
    __atomic_store_n(&r->cur, s, __ATOMIC_RELEASE);
    __atomic_store_n(&sl->gen, gen + 1, __ATOMIC_RELEASE);
}

/* The clock against CLOCK_MONOTONIC now, for a reader of the file after a
 * kill (the trace written at exit calibrates itself). Integers only: a
 * hook never touches the floating-point state. */
static void clock_point(tfr_header *h)
{
    uint64_t g = h->clock_gen;
    __atomic_store_n(&h->clock_gen, g + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    h->tsc1 = tf__clock_now();
    h->mono1 = tf__clock_mono_ns();
    __atomic_store_n(&h->clock_gen, g + 2, __ATOMIC_RELEASE);
}

/* A dump's metadata reads the clock's rate from the same points a reader
 * of the ring file does (tsdl.h): the two give the same times. A thread
 * that holds the lock (a signal handler's dump) copies them as they are. */
int rt_pool_clock(tfr_header *copy)
{
    rt_pool *p = rt_pool_now();
    if (!p)
        return -1;
    int locked = pool_lock() == 0;
    if (locked)
        clock_point(p->hdr);
    *copy = *p->hdr;
    if (locked)
        pool_unlock();
    return 0;
}

static uint32_t next_ring_mode(rt_pool *p, rt_ring *r, int *why)
{
    uint32_t held = r->count + r->npinned + 1, s = TFR_NONE;
    if (held <= r->max && (s = take_free(p)) == TFR_NONE && (s = steal_ended(p)) == TFR_NONE)
        s = steal_live(p, r, held);
    if (s == TFR_NONE)
        s = recycle_own(p, r);
    if (s == TFR_NONE)
        *why = TFR_LOST_BUDGET;
    return s;
}

static uint64_t seq_of(const rt_pool *p, uint32_t s)
{
    return tfr_get64(rt_packet(p, s) + TFR_P_SEQ);
}

/* Stream mode: a packet the writer is done with, or TFR_NONE with
 * TFR_LOST_FULL: the caller waits for the writer and asks again. */
static uint32_t next_stream_mode(rt_pool *p, rt_ring *r, int *why)
{
    uint32_t s = r->count + 1 <= r->max ? take_free(p) : TFR_NONE;
    if (s == TFR_NONE && r->head != TFR_NONE &&
        seq_of(p, r->head) < __atomic_load_n(&r->flushed, __ATOMIC_ACQUIRE)) {
        s = pop(p, &r->head, &r->tail);
        r->count--;
    }
    if (s == TFR_NONE)
        *why = TFR_LOST_FULL;
    return s;
}

uint32_t rt_pool_next(rt_ring *r, uint64_t now, int *why)
{
    rt_pool *p = rt_pool_now();
    if (pool_lock() != 0) {
        *why = TFR_LOST_NESTED;
        return TFR_NONE;
    }
    clock_point(p->hdr);
    if (r->cur != TFR_NONE)
        close_open(p, r);
    uint32_t s = rt_cfg.stream ? next_stream_mode(p, r, why) : next_ring_mode(p, r, why);
    if (s != TFR_NONE)
        open_packet(p, r, s, now);
    pool_unlock();
    return s;
}

/* ---- rings --------------------------------------------------------------------- */

/* A free ring record; when none is left, the one of the thread that ended
 * first is taken, with its packets. */
static rt_ring *take_ring(rt_pool *p)
{
    if (free_rings != TFR_NONE) {
        rt_ring *r = &p->rings[free_rings];
        free_rings = r->next;
        return r;
    }
    if (used_rings < p->hdr->nrings)
        return &p->rings[used_rings++];
    if (ended_head == TFR_NONE || rt_cfg.stream)
        return NULL;
    rt_ring *e = &p->rings[ended_head];
    unlink_ended(p, e);
    for (uint32_t s; (s = oldest_of(p, e)) != TFR_NONE;) {
        drop(p, TFR_DROP_RECYCLED);
        give_back(p, s);
    }
    drop(p, TFR_DROP_THREADS);
    return e;
}

rt_ring *rt_pool_ring_new(int *why)
{
    rt_pool *p = rt_pool_get();
    *why = p ? TFR_LOST_NESTED : TFR_LOST_NOMEM;
    if (!p || pool_lock() != 0)
        return NULL;
    rt_ring *r = take_ring(p);
    *why = TFR_LOST_BUDGET;
    if (r) { /* a dump may read a reused record meanwhile: what it reads is atomic */
        __atomic_store_n(&r->pos, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&r->last, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&r->discarded, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&r->cur, TFR_NONE, __ATOMIC_RELAXED);
        __atomic_store_n(&r->flushed, 0, __ATOMIC_RELAXED);
        r->end = 0;
        r->busy = r->rare = r->count = r->npinned = 0;
        r->head = r->tail = r->pin_head = r->pin_tail = r->next = TFR_NONE;
        r->seq = UINT64_MAX;
        r->fd = -1;
        r->cut = 0;
        r->max = p->hdr->max_packets;
        r->tid = (uint32_t)syscall(SYS_gettid);
        __atomic_store_n(&r->number, __atomic_add_fetch(&p->hdr->threads, 1, __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
        __atomic_store_n(&r->state, TFR_RING_LIVE, __ATOMIC_RELEASE);
    }
    pool_unlock();
    return r;
}

/* Its thread is gone: the open packet is closed, and the ring waits to be
 * recycled (ring mode) or written (stream mode). */
void rt_pool_ring_end(rt_ring *r)
{
    rt_pool *p = rt_pool_now();
    if (!p || pool_lock() != 0)
        return;
    if (r->cur != TFR_NONE)
        close_open(p, r);
    r->next = TFR_NONE;
    if (ended_tail == TFR_NONE)
        ended_head = ring_index(p, r);
    else
        p->rings[ended_tail].next = ring_index(p, r);
    ended_tail = ring_index(p, r);
    __atomic_store_n(&r->state, TFR_RING_ENDED, __ATOMIC_RELEASE);
    pool_unlock();
}

/* Stream mode, the writer: r's packets before seq are on disk. An ended
 * thread's come back to the pool, with its ring, once all are. */
void rt_pool_flushed(rt_ring *r, uint64_t seq)
{
    rt_pool *p = rt_pool_now();
    if (pool_lock() != 0)
        return;
    __atomic_store_n(&r->flushed, seq, __ATOMIC_RELEASE);
    if (r->state == TFR_RING_ENDED && (r->seq == UINT64_MAX || seq > r->seq)) {
        for (uint32_t s; (s = oldest_of(p, r)) != TFR_NONE;)
            give_back(p, s);
        unlink_ended(p, r);
        if (r->fd >= 0)
            close(r->fd);
        r->fd = -1;
        free_ring(p, r);
    }
    pool_unlock();
}

/* ---- readers in the process (dump.c, stream.c) ----------------------------------
 * A seqlock: the packet's bytes are read while their thread may reopen the
 * packet, and the copy is thrown away if the slot's generation moved. That
 * is a data race by design: ThreadSanitizer is told to ignore those reads
 * (its annotations for seqlock readers), and checks everything else. */
#if defined(__SANITIZE_THREAD__)
#define SEQLOCK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SEQLOCK_TSAN 1
#endif
#endif
#ifdef SEQLOCK_TSAN
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define SEQLOCK_READS_BEGIN() AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define SEQLOCK_READS_END() AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#else
#define SEQLOCK_READS_BEGIN() ((void)0)
#define SEQLOCK_READS_END() ((void)0)
#endif

static int before(const rt_packet_ref *a, const rt_packet_ref *b)
{
    return a->number != b->number ? a->number < b->number : a->seq < b->seq;
}

/* Heapsort: no allocation, no recursion (a fatal-signal handler sorts). */
static void sift(rt_packet_ref *v, uint32_t at, uint32_t n)
{
    for (uint32_t child; (child = 2 * at + 1) < n; at = child) {
        if (child + 1 < n && before(&v[child], &v[child + 1]))
            child++;
        if (!before(&v[at], &v[child]))
            return;
        rt_packet_ref t = v[at];
        v[at] = v[child];
        v[child] = t;
    }
}

static void sort_refs(rt_packet_ref *v, uint32_t n)
{
    for (uint32_t i = n / 2; i-- > 0;)
        sift(v, i, n);
    for (uint32_t end = n; end-- > 1;) {
        rt_packet_ref t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift(v, 0, end);
    }
}

uint32_t rt_pool_collect(rt_pool *p, rt_packet_ref *out, int unwritten)
{
    uint32_t n = 0, used = __atomic_load_n(&used_slots, __ATOMIC_ACQUIRE);
    for (uint32_t s = 0; s < used && s < p->hdr->nslots; s++) {
        tfr_slot *sl = &p->slots[s];
        uint64_t g = __atomic_load_n(&sl->gen, __ATOMIC_ACQUIRE);
        uint32_t owner = __atomic_load_n(&sl->ring, __ATOMIC_ACQUIRE);
        if ((g & 1) || !owner || owner > p->hdr->nrings)
            continue;
        const rt_ring *r = &p->rings[owner - 1];
        SEQLOCK_READS_BEGIN();
        uint64_t seq = seq_of(p, s);
        SEQLOCK_READS_END();
        rt_packet_ref ref = {__atomic_load_n(&r->number, __ATOMIC_RELAXED), owner - 1, s,
                             __atomic_load_n(&r->cur, __ATOMIC_ACQUIRE) == s, seq};
        uint64_t flushed = __atomic_load_n(&r->flushed, __ATOMIC_ACQUIRE);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&sl->gen, __ATOMIC_RELAXED) != g || (unwritten && ref.seq < flushed))
            continue;
        out[n++] = ref;
    }
    sort_refs(out, n);
    return n;
}

size_t rt_pool_copy(rt_pool *p, const rt_packet_ref *ref, unsigned char *out)
{
    tfr_slot *sl = &p->slots[ref->slot];
    uint64_t g = __atomic_load_n(&sl->gen, __ATOMIC_ACQUIRE);
    uint32_t owner = __atomic_load_n(&sl->ring, __ATOMIC_ACQUIRE);
    if ((g & 1) || !owner || owner > p->hdr->nrings)
        return 0;
    const rt_ring *r = &p->rings[owner - 1];
    const unsigned char *pk = rt_packet(p, ref->slot);
    uint32_t psize = p->hdr->psize;
    /* The open packet up to its commit (or a packet closed since: its
     * prefix up to pos is as good); a closed one up to its content. */
    int open = __atomic_load_n(&r->cur, __ATOMIC_ACQUIRE) == ref->slot;
    uint64_t pos = __atomic_load_n(&r->pos, __ATOMIC_ACQUIRE), at = (uint64_t)(uintptr_t)pk;
    open = open && pos >= at + TFR_P_HEADER && pos <= at + psize;
    SEQLOCK_READS_BEGIN();
    size_t len = open ? (size_t)(pos - at) : tfr_get32(pk + TFR_P_CONTENT) / 8;
    if (len >= TFR_P_HEADER && len <= psize)
        memcpy(out, pk, len);
    SEQLOCK_READS_END();
    if (len < TFR_P_HEADER || len > psize)
        return 0;
    uint64_t last = __atomic_load_n(&r->last, __ATOMIC_RELAXED);
    uint64_t discarded = __atomic_load_n(&r->discarded, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&sl->gen, __ATOMIC_RELAXED) != g || tfr_get64(out + TFR_P_SEQ) != ref->seq)
        return 0; /* reopened while we copied */
    if (open) {
        tfr_put64(out + TFR_P_TS_END, last);
        tfr_put32(out + TFR_P_CONTENT, (uint32_t)len * 8);
        tfr_put32(out + TFR_P_SIZE, (uint32_t)len * 8);
        tfr_put64(out + TFR_P_DISCARDED, discarded);
    }
    if (tfr_get64(out + TFR_P_TS_END) < tfr_get64(out + TFR_P_TS_BEGIN))
        tfr_put64(out + TFR_P_TS_END, tfr_get64(out + TFR_P_TS_BEGIN));
    return len;
}

/* ---- the metadata log, the file's end of life, fork ------------------------------ */

/* Room for n more bytes in the log's own mapping of the file (grown by
 * doubling; a core dump holds it as it holds the packets). */
static int log_room(rt_pool *p, uint64_t n)
{
    tfr_header *h = p->hdr;
    if (h->log_len + n <= p->log_cap)
        return 0;
    uint64_t cap = p->log_cap ? p->log_cap : 1u << 16;
    while (cap < h->log_len + n)
        cap *= 2;
    if (ftruncate(p->fd, (off_t)(h->log_off + cap)) != 0 ||
        reserve(p->fd, h->log_off + p->log_cap, cap - p->log_cap) != 0)
        return -1;
    void *m = p->log ? mremap(p->log, p->log_cap, cap, MREMAP_MAYMOVE)
                     : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, (off_t)h->log_off);
    if (m == MAP_FAILED)
        return -1;
    p->log = m;
    p->log_cap = cap;
    return 0;
}

void rt_pool_log(int kind, const char *text, size_t len)
{
    rt_pool *p = rt_pool_now();
    if (!p || p->fd < 0)
        return;
    TF_KEEP_ERRNO();
    tfr_header *h = p->hdr;
    tfr_log rec = {(uint32_t)kind, (uint32_t)len};
    uint64_t size = sizeof rec + (len + 7) / 8 * 8, at = h->log_len;
    if (log_room(p, size) == 0) {
        memcpy(p->log + at, &rec, sizeof rec);
        memcpy(p->log + at + sizeof rec, text, len);
        memset(p->log + at + sizeof rec + len, 0, size - sizeof rec - len);
        __atomic_store_n(&h->log_len, at + size, __ATOMIC_RELEASE);
    } else {
        __atomic_fetch_or(&h->flags, TFR_LOG_INCOMPLETE, __ATOMIC_RELAXED);
    }
    TF_RESTORE_ERRNO();
}

void rt_pool_retire(void)
{
    rt_pool *p = rt_pool_now();
    if (p && p->fd >= 0 && p->name[0]) {
        rd_remove(p->name);
        p->name[0] = 0;
    }
}

/* The child records into its own directory: the parent's mapping is
 * dropped, never written (it is the parent's file). */
void rt_pool_fork(int phase)
{
    if (phase == TF_FORK_PREPARE) {
        pool_lock(); /* fork is never called inside a hook: this thread does not hold it */
        return;
    }
    if (phase == TF_FORK_PARENT) {
        pool_unlock();
        return;
    }
    rt_pool *p = rt_pool_now();
    if (p) {
        if (p->fd >= 0) {
            munmap(p->map, p->map_bytes);
            if (p->log)
                munmap(p->log, p->log_cap);
            close(p->fd);
        } else {
            tf__pages_free(p->map, p->map_bytes);
        }
    }
    memset(&pool, 0, sizeof pool);
    ready = NULL;
    gave_up = said_disk = 0;
    used_slots = used_rings = 0;
    free_slots = free_rings = ended_head = ended_tail = TFR_NONE;
    pool_unlock();
}
