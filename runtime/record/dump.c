/*
 * dump.c: writing the rings as a trace directory (.sol.exit, .req.pm): at
 * exit (from any thread), on SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT, and from
 * tf_record_snapshot. Only async-signal-safe calls: open/mkdir/write on
 * packets copied into a static buffer and on preformatted metadata.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../config.h"
#include "record.h"

static struct sigaction previous[TF_NFATAL];
static unsigned char packet[RP_MAX];
static int dumping; /* the tid of the thread writing a trace, or 0 */
static char dir[4096 + 32];

int rd_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static void say4(const char *a, const char *b, const char *c, const char *d)
{
    char line[4600];
    tf_buf buf = {line, sizeof line - 1, 0};
    tf__buf_puts(&buf, "tf: record: ");
    tf__buf_puts(&buf, a);
    tf__buf_escaped(&buf, b);
    tf__buf_puts(&buf, c);
    tf__buf_escaped(&buf, d);
    tf__buf_end(&buf);
    line[buf.len < sizeof line - 1 ? buf.len : sizeof line - 2] = '\n';
    rd_write_all(2, line, (buf.len < sizeof line - 1 ? buf.len : sizeof line - 2) + 1);
}

static void name_dir(void)
{
    tf_buf b = {dir, sizeof dir, 0};
    if (rt_cfg.dir[0]) {
        tf__buf_puts(&b, rt_cfg.dir);
        if (getpid() != rt_cfg.pid) { /* a forked child: DIR.<pid> */
            tf__buf_put(&b, ".", 1);
            tf__buf_int(&b, getpid());
        }
    } else {
        tf__buf_puts(&b, "tf-record-");
        tf__buf_int(&b, getpid());
    }
    tf__buf_end(&b);
}

const char *rd_dir(void)
{
    return dir;
}

/* Files and the directory come from runtime/files.c, the one creator: a
 * trace directory is ours, 0700, reached through no symbolic link, and
 * empty or an earlier recording; a file in it is new or one TF wrote. */
static TF_TLS char why_tls[TF_FILES_WHY];

static unsigned file_flags(void)
{
    return tf__env_file_flags() & TF_FILES_OVERWRITE;
}

int rd_open_dir(const char *path, const char **why)
{
    *why = why_tls;
    return tf__file_dir(path, file_flags(), why_tls);
}

static void stream_name(char name[32], uint32_t number)
{
    tf_buf b = {name, 32, 0};
    tf__buf_puts(&b, "thread-");
    tf__buf_uint(&b, number);
    tf__buf_end(&b);
}

/* thread-<n> in dirfd, emptied: stream mode then appends to it. */
int rd_open_stream(int dirfd, const rt_ring *r)
{
    char name[32];
    stream_name(name, r->number);
    return tf__file_at(dirfd, name, TF_FILE_CTF_STREAM, file_flags() | TF_FILES_APPEND, why_tls);
}

/* A directory used before may hold thread files of an earlier trace, which
 * a reader would take for part of this one. Not async-signal-safe (readdir):
 * done when the recorder starts and before a snapshot. */
void rd_clean(const char *path)
{
    int fd = tf__file_dir(path, file_flags() | TF_FILES_EXISTING, why_tls);
    if (fd < 0)
        return; /* refused later, when it is written, with the reason */
    tf__file_clean(fd, "thread-", TF_FILE_CTF_STREAM);
    close(fd);
}

static int write_ring(int dirfd, rt_ring *r, int final)
{
    uint64_t first, last;
    rt_ring_span(r, &first, &last);
    if (last == UINT64_MAX || (rt_cfg.stream && !final && last-- == first))
        return 0; /* stream mode keeps the open packet until the end */
    int fd = r->fd >= 0 ? r->fd : rd_open_stream(dirfd, r);
    if (fd < 0)
        return -1;
    if (rt_cfg.stream)
        r->fd = fd; /* the rest of the stream is appended */
    int rc = 0;
    for (uint64_t s = first; s <= last && rc == 0; s++) {
        size_t len = rt_ring_copy(r, s, packet);
        if (len)
            rc = rd_write_all(fd, packet, len);
    }
    if (rt_cfg.stream)
        __atomic_store_n(&r->flushed, last + 1, __ATOMIC_RELEASE);
    if (fd != r->fd)
        close(fd);
    return rc;
}

int rd_lock(int wait)
{
    int me = gettid();
    for (int tries = 0;; tries++) {
        int expect = 0;
        if (__atomic_compare_exchange_n(&dumping, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 0;
        if (expect == me || !wait || tries > 5000)
            return -1; /* crashed while writing a trace, or another thread is stuck in it */
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

void rd_unlock(void)
{
    __atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
}

static int rd_metadata(int dirfd)
{
    int fd = tf__file_at(dirfd, "metadata", TF_FILE_CTF_METADATA, file_flags(), why_tls);
    if (fd < 0)
        return -1;
    int rc = rc_write_metadata(fd);
    close(fd);
    return rc;
}

int rd_dump(const char *where, int final)
{
    const char *path = where ? where : dir, *why = NULL;
    if (rd_lock(1) != 0)
        return -1;
    why_tls[0] = 0;
    int dirfd = rd_open_dir(path, &why), rc = -1;
    if (dirfd >= 0) {
        rc = rd_metadata(dirfd);
        for (rt_ring *r = rt_rings(); r && rc == 0; r = r->next)
            rc = write_ring(dirfd, r, final);
        if (rc)
            why = why_tls[0] ? why_tls : "it could not be written in full";
        close(dirfd);
    }
    rd_unlock();
    if (rc)
        say4("cannot write the trace directory '", path, "': ", why ? why : "");
    return rc;
}

static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
    tf__probe_recover(sig); /* a fault copying a string that was none: no crash */
    int saved = errno;
    if (rt_rings()) {
        say4("fatal signal: writing the flight recorder to ", dir, "", "");
        rd_dump(NULL, 1);
    }
    errno = saved;
    tf__fatal_pass_on(sig, info, uctx, previous);
}

/* At exit: the whole recording, and what bounded it (no silent caps). */
static void at_exit(void)
{
    if (!rt_rings())
        return;
    if (rt_cfg.stream)
        rs_stop();
    if (rd_dump(NULL, 1) != 0)
        return;
    uint64_t lost = 0, overwritten = 0;
    unsigned threads = 0;
    for (rt_ring *r = rt_rings(); r; r = r->next) {
        threads++;
        lost += r->discarded;
        if (!rt_cfg.stream && r->seq != UINT64_MAX && r->seq >= r->npackets)
            overwritten += r->seq + 1 - r->npackets;
    }
    fputs("tf: record: trace in ", stderr);
    tf__config_escaped(stderr, dir);
    fprintf(stderr, " (%u thread%s, %s mode", threads,
            threads == 1 ? "" : "s", rt_cfg.stream ? "stream" : "ring");
    if (overwritten)
        fprintf(stderr, "; older events overwritten: the ring keeps the last %llu bytes a thread"
                        " (TF_RECORD_SIZE), %llu packets dropped",
                (unsigned long long)rt_cfg.size, (unsigned long long)overwritten);
    uint64_t waits, ns;
    rs_waited(&waits, &ns);
    if (waits)
        fprintf(stderr, "; threads waited for the writer %llu time%s, %llu.%03llu s in all",
                (unsigned long long)waits, waits == 1 ? "" : "s", (unsigned long long)(ns / 1000000000),
                (unsigned long long)(ns / 1000000 % 1000)); /* no FP at exit (.fid.fenv) */
    if (lost)
        fprintf(stderr, "; %llu events discarded", (unsigned long long)lost);
    fprintf(stderr, ")\n");
}

void rd_init(void)
{
    rt_cfg.pid = getpid();
    name_dir();
    rd_clean(dir);
    if (tf__catch_fatal(on_fatal, previous) != 0)
        fprintf(stderr, "tf: record: cannot catch fatal signals: no post-mortem trace\n");
    atexit(at_exit);
}

void rd_fork_child(void)
{
    name_dir();
    rd_clean(dir);
    rd_unlock();
}
