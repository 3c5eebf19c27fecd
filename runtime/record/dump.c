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
    tf__buf_puts(&buf, b);
    tf__buf_puts(&buf, c);
    tf__buf_puts(&buf, d);
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

int rd_open_dir(const char *path, const char **why)
{
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        *why = "cannot be created";
        return -1;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *why = errno == ELOOP || errno == ENOTDIR ? "is not a directory (or is a symbolic link)"
                                                  : "cannot be opened";
    } else if (st.st_uid != geteuid()) {
        *why = "is not owned by this user";
    } else if (st.st_mode & 077) {
        *why = "is open to group or others (TF wants 0700)";
    } else {
        return fd;
    }
    if (fd >= 0)
        close(fd);
    return -1;
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
    return openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* A directory used before may hold thread files of an earlier trace, which
 * a reader would take for part of this one. Not async-signal-safe (readdir):
 * done when the recorder starts and before a snapshot. */
void rd_clean(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
        if (fd >= 0)
            close(fd);
        return; /* refused later, when it is written, with the reason */
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d));)
        if (strncmp(e->d_name, "thread-", 7) == 0)
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
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
    int fd = openat(dirfd, "metadata", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
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
    int dirfd = rd_open_dir(path, &why), rc = -1;
    if (dirfd >= 0) {
        rc = rd_metadata(dirfd);
        for (rt_ring *r = rt_rings(); r && rc == 0; r = r->next)
            rc = write_ring(dirfd, r, final);
        if (rc)
            why = "could not be written in full";
        close(dirfd);
    }
    rd_unlock();
    if (rc)
        say4("the trace directory '", path, "' ", why ? why : "");
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
    fprintf(stderr, "tf: record: trace in %s (%u thread%s, %s mode", dir, threads,
            threads == 1 ? "" : "s", rt_cfg.stream ? "stream" : "ring");
    if (overwritten)
        fprintf(stderr, "; older events overwritten: the ring keeps the last %llu bytes a thread"
                        " (TF_RECORD_SIZE), %llu packets dropped",
                (unsigned long long)rt_cfg.size, (unsigned long long)overwritten);
    uint64_t waits, ns;
    rs_waited(&waits, &ns);
    if (waits)
        fprintf(stderr, "; threads waited for the writer %llu time%s, %.3f s in all",
                (unsigned long long)waits, waits == 1 ? "" : "s", (double)ns / 1e9);
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
