/*
 * dump.c: the trace directory, and the rings written into it as a CTF trace
 * (.sol.exit, .req.pm): at exit (from any thread), on SIGSEGV/SIGBUS/SIGFPE/
 * SIGILL/SIGABRT, on SIGTERM/SIGINT/SIGHUP/SIGQUIT with their default action
 * (runtime/term.c), and from tf_record_snapshot. Only async-signal-safe
 * calls: open/mkdir/write on packets copied into a static buffer and on
 * preformatted metadata. A ring file whose trace was written in full is
 * removed: the directory is then a plain CTF trace.
 *
 * Every directory and file the recorder makes is made here (rd_open_dir,
 * rd_create_at, rd_remove), through runtime/files.c's creator, whose core
 * is async-signal-safe (docs/design.md .files): no symbolic link on the
 * way, the directory ours and 0700, only TF's own files replaced, new ones
 * O_EXCL.
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
#include "../config.h"
#include "../escape.h"
#include "../files.h"

static struct sigaction previous[TF_NFATAL];
static unsigned char packet[RP_MAX];
static int dumping; /* the tid of the thread writing a trace, or 0 */
static char dir[4096 + 32];
static rt_counts last_counts; /* those of the last trace written: said at exit */
static int written_final;     /* the final trace is written (a signal's, or exit's) */

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

/* User text (a path) escaped into buf (.msg.escape), async-signal-safe. */
static void put_escaped(tf_buf *buf, const char *s)
{
    for (size_t left = strlen(s); left;) {
        char one[TF_ESC_MAX];
        size_t used, k = tf__escape_char(s, left, one, &used, TF_ESC_FINAL);
        tf__buf_put(buf, one, k);
        s += used;
        left -= used;
    }
}

void rd_say(const char *a, const char *b, const char *c, const char *d)
{
    char line[4600];
    tf_buf buf = {line, sizeof line - 1, 0};
    tf__buf_puts(&buf, "tf: record: ");
    tf__buf_puts(&buf, a);
    put_escaped(&buf, b);
    tf__buf_puts(&buf, c);
    put_escaped(&buf, d);
    tf__buf_end(&buf);
    size_t n = buf.len < sizeof line - 1 ? buf.len : sizeof line - 2;
    line[n] = '\n';
    TF_KEEP_ERRNO();
    rd_write_all(2, line, n + 1);
    TF_RESTORE_ERRNO();
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

/* ---- making directories and files: the one place ----------------------------- */

/* The reason of the last refusal, said by the caller (per thread: a signal
 * handler may refuse too). */
static TF_TLS char why_tls[TF_FILES_WHY];

static unsigned file_flags(void)
{
    return tf__env_file_flags() & TF_FILES_OVERWRITE;
}

int rd_open_dir(const char *path, const char **why)
{
    int fd = tf__file_dir(path, file_flags(), why_tls);
    if (fd < 0)
        *why = why_tls;
    return fd;
}

int rd_trace_dir(void)
{
    const char *why = NULL;
    int fd = rd_open_dir(dir, &why);
    if (fd < 0)
        rd_say("cannot write the trace directory '", dir, "': ", why);
    return fd;
}

/* O_EXCL: a new file only (a ring file, whose name an earlier process of
 * the same pid may have left: kept, another name is taken); O_APPEND: kept
 * and appended to (stream mode); else a new file or one TF wrote as kind,
 * emptied. */
int rd_create_at(int dirfd, const char *name, tf_file_kind kind, int flags)
{
    if (flags & O_EXCL)
        return openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    unsigned how = file_flags() | ((flags & O_APPEND) ? TF_FILES_KEEP : 0);
    int fd = tf__file_at(dirfd, name, kind, how, why_tls);
    if (fd < 0)
        rd_say("cannot write '", name, "' in the trace directory: ", why_tls);
    return fd;
}

void rd_remove(const char *name)
{
    char path[sizeof dir + 64];
    tf_buf b = {path, sizeof path, 0};
    tf__buf_puts(&b, dir);
    tf__buf_put(&b, "/", 1);
    tf__buf_puts(&b, name);
    if (b.len < sizeof path) {
        tf__buf_end(&b);
        TF_KEEP_ERRNO();
        unlink(path);
        TF_RESTORE_ERRNO();
    }
}

static void stream_name(char name[32], uint32_t number)
{
    tf_buf b = {name, 32, 0};
    tf__buf_puts(&b, "thread-");
    tf__buf_uint(&b, number);
    tf__buf_end(&b);
}

/* thread-<n> in dirfd: emptied (ring mode, a snapshot), or appended to. */
int rd_open_stream(int dirfd, uint32_t number, int append)
{
    char name[32];
    stream_name(name, number);
    return rd_create_at(dirfd, name, TF_FILE_CTF_STREAM, append ? O_APPEND : 0);
}

/* A directory used before may hold thread files of an earlier trace, which
 * a reader would take for part of this one; the rings of a process that
 * did not finish are kept (tf-dump reads them too), and said. Not
 * async-signal-safe (readdir): done when the recorder starts. */
void rd_clean(const char *path)
{
    int fd = tf__file_dir(path, file_flags() | TF_FILES_EXISTING, why_tls);
    if (fd < 0)
        return; /* refused later, when it is written, with the reason */
    tf__file_clean(fd, "thread-", TF_FILE_CTF_STREAM);
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    int rings = 0;
    for (struct dirent *e; (e = readdir(d));)
        rings += strncmp(e->d_name, ".rings-", 7) == 0;
    closedir(d);
    if (rings) {
        fputs("tf: record: '", stderr);
        tf__config_escaped(stderr, path);
        fprintf(stderr, "' holds the ring file%s of %d process%s that did not finish; kept: tf-dump "
                        "reads %s with this recording\n", rings == 1 ? "" : "s", rings,
                rings == 1 ? "" : "es", rings == 1 ? "it" : "them");
    }
}

/* ---- writing a trace -------------------------------------------------------------- */

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

void rt_counts_now(rt_counts *c)
{
    rt_pool *p = rt_pool_now();
    memset(c, 0, sizeof *c);
    for (int i = 0; i < TFR_NLOST; i++)
        c->lost[i] = rt_lost_early(i) + (p ? __atomic_load_n(&p->hdr->lost[i], __ATOMIC_RELAXED) : 0);
    for (int i = 0; p && i < TFR_NDROPS; i++)
        c->drops[i] = __atomic_load_n(&p->hdr->drops[i], __ATOMIC_RELAXED);
    c->id = p ? p->hdr->id : 0;
    c->threads = p ? __atomic_load_n(&p->hdr->threads, __ATOMIC_RELAXED) : 0;
}

/* Written anew and renamed over the old one: a metadata file is never half
 * written, whenever the process stops and however full the disk is. */
int rd_write_metadata(int dirfd, const rt_counts *c)
{
    int fd = rd_create_at(dirfd, ".metadata.new", TF_FILE_CTF_METADATA, 0);
    if (fd < 0)
        return -1;
    int rc = rc_write_metadata(fd, c);
    rc = close(fd) != 0 ? -1 : rc;
    rc = rc ? rc : renameat(dirfd, ".metadata.new", dirfd, "metadata");
    if (rc)
        unlinkat(dirfd, ".metadata.new", 0);
    return rc;
}

/* Ring mode, or a snapshot elsewhere: refs[0, n) are one thread's packets,
 * oldest first: its file, written anew. */
static int write_thread(int dirfd, rt_pool *p, const rt_packet_ref *refs, uint32_t n)
{
    int fd = rd_open_stream(dirfd, refs[0].number, 0);
    if (fd < 0)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        size_t len = rt_pool_copy(p, &refs[i], packet);
        if (len)
            rc = rd_write_all(fd, packet, len);
    }
    return close(fd) != 0 ? -1 : rc;
}

/* Stream mode: the packets in packet[0, len), n of them, appended to r's
 * file; cut off again, and counted, when they cannot be. */
static void append_batch(rt_ring *r, size_t len, uint32_t n)
{
    off_t before = lseek(r->fd, 0, SEEK_END);
    if (len && rd_write_all(r->fd, packet, len) != 0)
        rs_write_failed(r, before, n);
}

/* Stream mode: refs[0, n) are one thread's packets not yet written: appended
 * to its file, the open one only when final; dropped (counted) when the
 * metadata could not describe them. Each packet takes a page of the file,
 * its end padded, and a write holds whole packets: a SIGKILL in the middle
 * of one leaves whole packets on disk (.rec.stream.page). */
static int append_thread(int dirfd, rt_pool *p, const rt_packet_ref *refs, uint32_t n, int final,
                         int meta_ok)
{
    rt_ring *r = &p->rings[refs[0].ring];
    if (meta_ok && r->fd < 0 && (r->fd = rd_open_stream(dirfd, refs[0].number, 1)) < 0)
        return -1;
    uint32_t psize = p->hdr->psize, batched = 0;
    size_t len = 0;
    uint64_t done = refs[0].seq;
    for (uint32_t i = 0; i < n && (final || !refs[i].open); i++) {
        done = refs[i].seq + 1;
        if (!meta_ok) {
            __atomic_fetch_add(&p->hdr->drops[TFR_DROP_DISK], 1, __ATOMIC_RELAXED);
            continue;
        }
        if (len + psize > sizeof packet) {
            append_batch(r, len, batched);
            len = batched = 0;
        }
        size_t got = rt_pool_copy(p, &refs[i], packet + len);
        if (!got)
            continue;
        memset(packet + len + got, 0, psize - got);
        tfr_put32(packet + len + TFR_P_SIZE, psize * 8);
        len += psize;
        batched++;
    }
    if (meta_ok)
        append_batch(r, len, batched);
    if (done > refs[0].seq)
        rt_pool_flushed(r, done);
    return 0;
}

/* Stream mode, at the end: a thread with no packet open may have lost
 * events since its last packet was made (its ring full of packets the
 * writer had not written, TF_RECORD_WAIT=0), which no packet on disk counts:
 * then an empty packet after its last says them to a reader, as babeltrace2
 * reads a count that grew (.rec.stream.full). */
static void count_lost_after(rt_pool *p, rt_ring *r)
{
    uint32_t psize = p->hdr->psize;
    uint64_t lost = __atomic_load_n(&r->discarded, __ATOMIC_RELAXED);
    off_t end = lseek(r->fd, 0, SEEK_END);
    if (!lost || __atomic_load_n(&r->cur, __ATOMIC_ACQUIRE) != TFR_NONE || end < (off_t)psize ||
        end % psize || pread(r->fd, packet, TFR_P_HEADER, end - psize) != TFR_P_HEADER ||
        tfr_get32(packet + TFR_P_MAGIC) != TFR_PACKET_MAGIC || tfr_get64(packet + TFR_P_DISCARDED) >= lost)
        return;
    uint64_t end_ts = tfr_get64(packet + TFR_P_TS_END), last = __atomic_load_n(&r->last, __ATOMIC_RELAXED);
    tfr_put64(packet + TFR_P_TS_BEGIN, end_ts);
    tfr_put64(packet + TFR_P_TS_END, last > end_ts ? last : end_ts);
    tfr_put32(packet + TFR_P_CONTENT, TFR_P_HEADER * 8);
    tfr_put32(packet + TFR_P_SIZE, psize * 8);
    tfr_put64(packet + TFR_P_SEQ, tfr_get64(packet + TFR_P_SEQ) + 1);
    tfr_put64(packet + TFR_P_DISCARDED, lost);
    memset(packet + TFR_P_HEADER, 0, psize - TFR_P_HEADER);
    append_batch(r, psize, 1);
}

int rd_write_rings(int dirfd, int own, int final, const rt_counts *c)
{
    rt_pool *p = rt_pool_now();
    size_t bytes = (size_t)p->hdr->nslots * sizeof(rt_packet_ref);
    rt_packet_ref *refs = tf__pages_alloc(bytes);
    if (!refs)
        return -1;
    int stream = rt_cfg.stream && own;
    /* the packets first, then the metadata: it then has every class they use */
    uint32_t n = rt_pool_collect(p, refs, stream), i = 0;
    int meta_ok = stream && !final ? rs_metadata_ok(dirfd) : rd_write_metadata(dirfd, c) == 0;
    int rc = meta_ok || stream ? 0 : -1;
    while (i < n && rc == 0) {
        uint32_t j = i + 1;
        while (j < n && refs[j].number == refs[i].number)
            j++;
        rc = stream ? append_thread(dirfd, p, refs + i, j - i, final, meta_ok)
                    : write_thread(dirfd, p, refs + i, j - i);
        i = j;
    }
    for (uint32_t k = 0; stream && final && meta_ok && rc == 0 && k < p->hdr->nrings; k++)
        if (p->rings[k].fd >= 0)
            count_lost_after(p, &p->rings[k]);
    tf__pages_free(refs, bytes);
    return rc;
}

int rd_dump(const char *where, int final)
{
    const char *path = where ? where : dir, *why = NULL;
    if (!rt_pool_now() || rd_lock(1) != 0)
        return -1;
    rt_counts counts;
    rt_counts_now(&counts);
    int dirfd = rd_open_dir(path, &why), rc = -1;
    if (dirfd >= 0) {
        rc = rd_write_rings(dirfd, !where, final, &counts);
        if (rc)
            why = "could not be written in full";
        close(dirfd);
    }
    if (rc == 0 && final && !where) {
        last_counts = counts;
        written_final = 1;
        rt_pool_retire(); /* the trace holds it all now */
    }
    rd_unlock();
    rt_pool *p = rt_pool_now();
    if (rc && final && !where && p->fd >= 0 && p->name[0])
        rd_say("the trace directory '", path, "' could not be written in full; its ring file stays, "
               "and tf-dump reads the recording from it: ", p->name);
    else if (rc)
        rd_say("cannot write the trace directory '", path, "': ", why ? why : "");
    return rc;
}

/* ---- the ends of a process ------------------------------------------------------- */

static const char *const signal_names[] = {
    "?", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
    "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
    "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
    "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};

/* "fatal signal SIGSEGV (code 1, address 0x0) in thread-2 'worker' (tid 1234)" */
static void say_signal(const char *what, int sig, const siginfo_t *info)
{
    char line[256], name[16];
    tf_buf b = {line, sizeof line, 0};
    tf__buf_puts(&b, what);
    tf__buf_puts(&b, sig > 0 && sig < 32 ? signal_names[sig] : "?");
    if (info) {
        tf__buf_puts(&b, " (code ");
        tf__buf_int(&b, info->si_code);
        if (rt_signal_has_address(sig, info)) {
            char hex[19] = "0x";
            uint64_t a = (uint64_t)(uintptr_t)info->si_addr;
            int n = 2;
            for (int shift = 60; shift >= 0; shift -= 4)
                if (a >> shift || shift == 0 || n > 2)
                    hex[n++] = "0123456789abcdef"[a >> shift & 15];
            hex[n] = 0;
            tf__buf_puts(&b, ", address ");
            tf__buf_puts(&b, hex);
        }
        tf__buf_puts(&b, ")");
    }
    rt_ring *r = rt_self;
    tf__thread_name(name);
    tf__buf_puts(&b, " in ");
    if (r) {
        tf__buf_puts(&b, "thread-");
        tf__buf_uint(&b, r->number);
        tf__buf_puts(&b, " ");
    }
    tf__buf_puts(&b, "'");
    tf__buf_puts(&b, name);
    tf__buf_puts(&b, "' (tid ");
    tf__buf_uint(&b, (uint64_t)gettid());
    tf__buf_puts(&b, "): writing the flight recorder to ");
    tf__buf_end(&b);
    rd_say(line, dir, "", "");
}

static int dies(const struct sigaction *prev)
{
    return prev->sa_handler == SIG_DFL || prev->sa_handler == SIG_IGN;
}

static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
    tf__probe_recover(sig); /* a fault copying a string that was none: no crash */
    int saved = errno;
    if (rt_pool_now()) {
        for (int i = 0; i < TF_NFATAL; i++)
            if (tf__fatal_signals[i] == sig)
                rt_record_signal(sig, info, dies(&previous[i]));
        say_signal("fatal signal ", sig, info);
        if (rt_cfg.stream)
            rs_halt();
        rd_dump(NULL, 1);
    }
    errno = saved;
    tf__fatal_pass_on(sig, info, uctx, previous);
}

void tf__record_terminate(int sig, const siginfo_t *info)
{
    if (!rt_cfg.pid || !rt_pool_now())
        return;
    rt_record_signal(sig, info, 1);
    say_signal("signal ", sig, info);
    if (rt_cfg.stream)
        rs_halt();
    rd_dump(NULL, 1);
}

/* What bounded the recording, said where people look (no silent caps). */
static void say_bounds(const rt_counts *c)
{
    if (c->drops[TFR_DROP_OVERWRITTEN])
        fprintf(stderr, "; older events overwritten: the ring keeps the last %llu bytes a thread"
                        " (TF_RECORD_SIZE), %llu packets dropped",
                (unsigned long long)rt_cfg.size, (unsigned long long)c->drops[TFR_DROP_OVERWRITTEN]);
    if (c->drops[TFR_DROP_RECYCLED] || c->drops[TFR_DROP_STOLEN])
        fprintf(stderr, "; to stay within TF_RECORD_TOTAL (%llu bytes): %llu packets of ended threads "
                        "and %llu of running ones reused, %llu ended threads' events dropped entirely",
                (unsigned long long)rt_cfg.total, (unsigned long long)c->drops[TFR_DROP_RECYCLED],
                (unsigned long long)c->drops[TFR_DROP_STOLEN], (unsigned long long)c->drops[TFR_DROP_THREADS]);
    if (c->drops[TFR_DROP_DISK])
        fprintf(stderr, "; %llu packets could not be written to the disk",
                (unsigned long long)c->drops[TFR_DROP_DISK]);
    uint64_t waits, ns;
    rs_waited(&waits, &ns);
    if (waits)
        fprintf(stderr, "; threads waited for the writer %llu time%s, %llu.%03llu s in all",
                (unsigned long long)waits, waits == 1 ? "" : "s", (unsigned long long)(ns / 1000000000),
                (unsigned long long)(ns / 1000000 % 1000)); /* no FP at exit (.fid.fenv) */
}

#define SAY_LOST(e, name, what)                                                                \
    if (c->lost[TFR_LOST_##e])                                                                 \
        fprintf(stderr, "%s%llu %s (%s)", n++ ? ", " : ": ", (unsigned long long)c->lost[TFR_LOST_##e], \
                what, name);

/* Each cause on its own: the same counts as the trace's env (tf-dump). */
static void say_lost(const rt_counts *c)
{
    uint64_t all = 0;
    for (int i = 0; i < TFR_NLOST; i++)
        all += c->lost[i];
    if (!all)
        return;
    int n = 0;
    fprintf(stderr, "; %llu events discarded, which", (unsigned long long)all);
    TFR_LOSSES(SAY_LOST)
}

/* At exit: the whole recording, and what bounded it. */
static void at_exit(void)
{
    if (!rt_pool_now())
        return;
    if (rt_cfg.stream)
        rs_stop();
    if (!written_final && rd_dump(NULL, 1) != 0)
        return;
    const rt_counts *c = &last_counts;
    fputs("tf: record: trace in ", stderr);
    tf__config_escaped(stderr, dir);
    fprintf(stderr, " (%u thread%s, %s mode", c->threads, c->threads == 1 ? "" : "s",
            rt_cfg.stream ? "stream" : "ring");
    say_bounds(c);
    say_lost(c);
    fprintf(stderr, ")\n");
}

void rd_init(void)
{
    rt_cfg.pid = getpid();
    name_dir();
    rd_clean(dir);
    if (tf__catch_fatal(on_fatal, previous) != 0)
        fprintf(stderr, "tf: record: cannot catch fatal signals: no post-mortem trace\n");
    tf__at_exit(at_exit);
    tf__term_arm();
}

void rd_fork_child(void)
{
    name_dir();
    rd_clean(dir);
    rd_unlock();
    written_final = 0;
}
