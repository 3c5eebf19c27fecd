/*
 * stream.c: TF_RECORD_MODE=stream. A writer thread appends every full packet
 * to its thread's file; a thread whose ring is full of unwritten packets
 * waits for it (rs_wait), so nothing is lost while the writer makes progress
 * at all. Only a writer without progress for TF_RECORD_WAIT (a stalled
 * disk; 0: never wait) or one that has stopped (exit) makes a thread count the events it cannot keep (events_discarded).
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
static unsigned char packet[RP_MAX];
static uint64_t waits, waited_ns; /* said at exit: what not losing events cost */

/* Writes r's closed packets not yet on disk. */
static int flush_closed(rt_ring *r, int dirfd)
{
    uint64_t cur = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);
    if (cur == UINT64_MAX)
        return 0;
    if (r->fd < 0 && (r->fd = rd_open_stream(dirfd, r)) < 0)
        return -1;
    int rc = 0;
    for (uint64_t s = r->flushed; s < cur && rc == 0; s++) {
        size_t len = rt_ring_copy(r, s, packet);
        rc = len ? rd_write_all(r->fd, packet, len) : 0;
        __atomic_store_n(&r->flushed, s + 1, __ATOMIC_RELEASE);
    }
    return rc;
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
        if (!rt_rings())
            continue;
        if (dirfd < 0 && (dirfd = rd_open_dir(rd_dir(), &why)) < 0) {
            tf__file_say("tf: record", rd_dir(), why);
            fputs("tf: record: stream mode stops\n", stderr);
            __atomic_store_n(&stop, 1, __ATOMIC_RELEASE); /* nobody waits for it any more */
            break;
        }
        if (rd_lock(1) != 0)
            continue;
        for (rt_ring *r = rt_rings(); r; r = r->next)
            if (flush_closed(r, dirfd) != 0)
                fprintf(stderr, "tf: record: cannot write thread-%u in the trace directory\n", r->number);
        rd_unlock();
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
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* signals go to the program's threads */
    running = pthread_create(&writer, NULL, run, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!running)
        fprintf(stderr, "tf: record: cannot start the stream writer; events are kept in memory\n");
}

void rs_stop(void)
{
    if (!running)
        return;
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(writer, NULL);
    __atomic_store_n(&running, 0, __ATOMIC_RELEASE);
}

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Waits until the writer has written packet `next - npackets` of r. Only
 * syscalls (clock_gettime, nanosleep, write on the eventfd): a signal handler
 * may be the caller. 0 when the writer is gone or made no progress for
 * TF_RECORD_WAIT: the caller then discards. */
int rs_wait(rt_ring *r, uint64_t next)
{
    uint64_t start = mono_ns(), since = start;
    uint64_t seen = __atomic_load_n(&r->flushed, __ATOMIC_ACQUIRE);
    if (next < seen + r->npackets)
        return 1; /* written since the caller looked */
    while (next >= seen + r->npackets) {
        if (!__atomic_load_n(&running, __ATOMIC_ACQUIRE) || !rt_cfg.wait_ns ||
            __atomic_load_n(&stop, __ATOMIC_ACQUIRE))
            return 0;
        rs_wake();
        struct timespec nap = {0, 20000};
        nanosleep(&nap, NULL);
        uint64_t now = mono_ns(), f = __atomic_load_n(&r->flushed, __ATOMIC_ACQUIRE);
        if (f != seen)
            since = now, seen = f;
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
    waits = waited_ns = 0;
    if (wake >= 0)
        close(wake);
    wake = -1;
    if (rt_cfg.stream && rt_cfg.pid)
        rs_start();
}
