/*
 * stream.c: TF_RECORD_MODE=stream. A writer thread appends every full packet
 * to its thread's file; a thread whose ring is full of unwritten packets
 * waits for it (rs_wait), so nothing is lost while the writer makes progress
 * at all. Only a writer without progress for TF_RECORD_WAIT (a stalled
 * disk; 0: never wait) or one that has stopped (exit) makes a thread count
 * the events it cannot keep (TFR_LOST_FULL).
 *
 * The metadata goes first and is rewritten (a new file renamed over the
 * old, never half written) whenever a TU or an event class was added, each
 * round before the packets that may use them: a recording killed at any
 * moment is a readable trace. A packet that cannot be written (a full disk)
 * is cut off the file again, counted (TFR_DROP_DISK) and said once (the
 * first time with the packet before it, so that a reader sees the gap:
 * .rec.stream.full); while
 * the metadata itself cannot be brought up to date, packets are dropped
 * the same way, so what is on disk stays readable.
 *
 * The open packet of each thread is written at exit or on a fatal signal.
 * The writer wakes every 5 ms, and at once when a thread has half its ring
 * unwritten (an eventfd: write(2) is async-signal-safe, a condition variable
 * is not).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

#define PERIOD_MS 5

static pthread_t writer;
static int running, stop, wake = -1;
static uint64_t rounds;              /* the writer's progress, for rs_wait */
static uint64_t waits, waited_ns;    /* said at exit: what not losing events cost */
static uint64_t meta_pieces = UINT64_MAX; /* the pieces in the metadata on disk */
static int meta_ok = 1, said_full;

/* Brings the metadata on disk up to date when pieces were added; 0 when it
 * describes every class there is. */
static int metadata_now(int dirfd)
{
    uint64_t pieces = rc_pieces();
    if (pieces == meta_pieces && meta_ok)
        return 0;
    rt_counts c;
    rt_counts_now(&c);
    meta_ok = rd_write_metadata(dirfd, &c) == 0;
    if (meta_ok)
        meta_pieces = pieces;
    else if (!said_full++)
        rd_say("cannot bring the metadata in '", rd_dir(), "' up to date (", "the disk is full?); "
               "packets are dropped and counted until it can be written");
    return meta_ok ? 0 : -1;
}

int rs_write_failed(rt_ring *r, off_t before, uint32_t packets)
{
    TF_KEEP_ERRNO();
    int err = errno;
    rt_pool *p = rt_pool_now();
    /* The first time a thread's file cannot grow, its last packet goes too
     * (counted): a reader sees packets lost only as a gap before a later one,
     * and the page freed is where a later packet, the one written at close
     * at the latest, fits (.rec.stream.full). */
    off_t psize = (off_t)p->hdr->psize;
    if (!r->cut && before >= 2 * psize && before % psize == 0) {
        before -= psize;
        packets++;
    }
    r->cut = 1;
    if (ftruncate(r->fd, before) != 0) /* what fits stays readable: no half packet */
        err = errno;
    __atomic_fetch_add(&p->hdr->drops[TFR_DROP_DISK], packets, __ATOMIC_RELAXED);
    if (!said_full++) {
        char num[24];
        tf_buf b = {num, sizeof num, 0};
        tf__buf_uint(&b, r->number);
        tf__buf_end(&b);
        rd_say("cannot write thread-", num, " in '", rd_dir());
        rd_say("  (", strerror(err), "): packets that cannot be written are dropped and counted", "");
    }
    TF_RESTORE_ERRNO();
    return 0;
}

int rs_metadata_ok(int dirfd)
{
    return metadata_now(dirfd) == 0;
}

static void *run(void *arg)
{
    const char *why = NULL;
    int dirfd = -1;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        struct pollfd p = {wake, POLLIN, 0};
        if (poll(&p, 1, PERIOD_MS) > 0) {
            uint64_t n;
            if (read(wake, &n, sizeof n) < 0)
                continue;
        }
        if (!rt_pool_now())
            continue;
        if (dirfd < 0 && (dirfd = rd_open_dir(rd_dir(), &why)) < 0) {
            rd_say("cannot write the trace directory '", rd_dir(), "': ", why);
            rd_say("stream mode stops: events are kept in memory and written at exit if they can be", "", "", "");
            __atomic_store_n(&stop, 1, __ATOMIC_RELEASE); /* nobody waits for it any more */
            break;
        }
        if (rd_lock(1) != 0)
            continue;
        rd_write_rings(dirfd, 1, 0, NULL);
        rd_unlock();
        __atomic_add_fetch(&rounds, 1, __ATOMIC_RELEASE);
    }
    if (dirfd >= 0)
        close(dirfd);
    return arg;
}

void rs_wake(void)
{
    uint64_t one = 1;
    if (wake >= 0 && write(wake, &one, sizeof one) < 0)
        return; /* the counter is full: the writer is awake anyway */
}

void rs_start(void)
{
    if (wake < 0)
        wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    running = tf__thread_start(&writer, run, NULL) == 0;
    if (!running)
        fprintf(stderr, "tf: record: cannot start the stream writer; events are kept in memory\n");
}

void rs_stop(void)
{
    if (!__atomic_load_n(&running, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(writer, NULL);
    __atomic_store_n(&running, 0, __ATOMIC_RELEASE);
}

/* Async-signal-safe: the writer finishes its round and writes no more. */
void rs_halt(void)
{
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    if (rd_lock(1) == 0)
        rd_unlock();
}

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Waits for the writer to write a round, so that r may reuse its oldest
 * packet. Only syscalls (clock_gettime, nanosleep, write on the eventfd): a
 * signal handler may be the caller. 0 when the writer is gone or made no
 * progress for TF_RECORD_WAIT: the caller then loses the event. */
int rs_wait(rt_ring *r)
{
    uint64_t start = mono_ns(), since = start, seen = __atomic_load_n(&rounds, __ATOMIC_ACQUIRE);
    uint64_t flushed = __atomic_load_n(&r->flushed, __ATOMIC_ACQUIRE);
    for (;;) {
        if (!__atomic_load_n(&running, __ATOMIC_ACQUIRE) || !rt_cfg.wait_ns ||
            __atomic_load_n(&stop, __ATOMIC_ACQUIRE))
            return 0;
        rs_wake();
        struct timespec nap = {0, 20000};
        nanosleep(&nap, NULL);
        uint64_t now = mono_ns(), done = __atomic_load_n(&rounds, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&r->flushed, __ATOMIC_ACQUIRE) != flushed || done > seen + 1)
            break; /* a round began after we asked: whatever could be freed is */
        if (done != seen)
            since = now;
        else if (now - since > rt_cfg.wait_ns)
            return 0;
    }
    __atomic_fetch_add(&waits, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&waited_ns, mono_ns() - start, __ATOMIC_RELAXED);
    return 1;
}

void rs_waited(uint64_t *n, uint64_t *ns)
{
    *n = __atomic_load_n(&waits, __ATOMIC_RELAXED);
    *ns = __atomic_load_n(&waited_ns, __ATOMIC_RELAXED);
}

/* A forked child has no writer thread: it gets its own. */
void rs_fork_child(void)
{
    running = 0;
    stop = 0;
    waits = waited_ns = rounds = 0;
    meta_pieces = UINT64_MAX;
    meta_ok = 1;
    said_full = 0;
    if (wake >= 0)
        close(wake);
    wake = -1;
    if (rt_cfg.stream && rt_cfg.pid)
        rs_start();
}
