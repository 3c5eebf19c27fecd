/*
 * files.c: the one way TF creates a file or a directory (docs/design.md
 * .files, .files.walk, .files.replace, .files.dir, .files.signal; files.h
 * has the rules; runtime/README.md "Files TF writes" and the README say
 * them to users).
 *
 * Think of another user who can write to a sticky /tmp, and of root running
 * TF there: the user plants `dir/alink -> /etc`, a hard link to a file of
 * root's, a file of their own under the name TF will use, a directory where
 * TF expects a file, a FIFO that never reads. So:
 * - the path is walked one directory at a time with openat(O_PATH |
 *   O_DIRECTORY | O_NOFOLLOW) from "/" or the working directory, every
 *   directory checked (owner, who may write it) before anything is opened in
 *   it; the descriptors held make later renames of the path harmless;
 * - a file is created with O_EXCL, or replaced only after fstat shows it is
 *   ours, regular, private, with one name, and its first bytes show TF wrote
 *   it (recognised by content; the user can allow more with an overwrite
 *   flag). Then it is truncated and made 0600;
 * - opening never blocks (O_NONBLOCK); a FIFO, socket or block device is
 *   refused.
 * Only system calls: a fatal signal's recording goes through here too.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "files.h"

const char *tf__files_overwrite_hint;

/* ---- reasons, built without stdio (async-signal-safe) ---------------------- */

typedef struct {
    char *p;
    size_t len;
} why_buf;

/* Appends n bytes of s (up to a NUL); a reason too long for TF_FILES_WHY
 * ends in "..." instead of stopping short unmarked. */
static void put_n(why_buf *w, const char *s, size_t n)
{
    for (; n && *s; n--) {
        if (w->len + 1 >= TF_FILES_WHY) {
            memcpy(w->p + TF_FILES_WHY - 4, "...", 3);
            break;
        }
        w->p[w->len++] = *s++;
    }
    w->p[w->len] = 0;
}

static void put(why_buf *w, const char *s)
{
    put_n(w, s, (size_t)-1);
}

static void put_num(why_buf *w, unsigned long v)
{
    char d[24];
    size_t i = sizeof d;
    do
        d[--i] = (char)('0' + v % 10);
    while (v /= 10);
    put_n(w, d + i, sizeof d - i);
}

static int fail(char *why, const char *a, const char *b, const char *c)
{
    why_buf w = {why, 0};
    why[0] = 0;
    put(&w, a);
    put(&w, b ? b : "");
    put(&w, c ? c : "");
    return -1;
}

/* "directory '<shown>' on the way" + rest, or "the working directory" +
 * rest when shown is NULL. */
static int fail_dir(char *why, const char *shown, size_t len, const char *rest)
{
    why_buf w = {why, 0};
    why[0] = 0;
    if (shown) {
        put(&w, "directory '");
        put_n(&w, shown, len);
        put(&w, "' on the way");
    } else {
        put(&w, "the working directory");
    }
    put(&w, rest);
    return -1;
}

static int fail_errno(char *why, int err)
{
    const char *d = strerrordesc_np(err); /* not strerror: it may translate, allocate */
    return fail(why, d ? d : "unknown error", NULL, NULL);
}

static int fail_uid(char *why, const char *what, unsigned long uid)
{
    why_buf w = {why, 0};
    why[0] = 0;
    put(&w, what);
    put(&w, " belongs to uid ");
    put_num(&w, uid);
    put(&w, ", not to this process's uid ");
    put_num(&w, (unsigned long)geteuid());
    return -1;
}

/* Appends s (n bytes) to line at *at, escaped or not, keeping room for
 * "...\n"; 0 when it did not fit. */
static int append(char *line, size_t cap, size_t *at, const char *s, size_t n, int escaped)
{
    while (n) {
        char one[TF_ESC_MAX];
        size_t used = 1, k = escaped ? tf__escape_char(s, n, one, &used, TF_ESC_FINAL) : 1;
        if (!escaped)
            one[0] = *s;
        if (*at + k + 4 > cap)
            return 0;
        memcpy(line + *at, one, k);
        *at += k;
        s += used;
        n -= used;
    }
    return 1;
}

void tf__file_say(const char *who, const char *path, const char *why)
{
    char line[2 * TF_FILES_WHY + 256];
    size_t at = 0;
    const char *parts[] = {who, ": cannot write '", path, "': ", why};
    int fits = 1;
    for (int i = 0; i < 5 && fits; i++) /* who and our words as they are, the rest escaped */
        fits = append(line, sizeof line, &at, parts[i], strlen(parts[i]), i == 2 || i == 4);
    if (!fits) {
        memcpy(line + at, "...", 3);
        at += 3;
    }
    line[at++] = '\n';
    for (size_t done = 0; done < at;) {
        ssize_t w = write(2, line + done, at - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
}

/* ---- directories on the way ------------------------------------------------- */

static int in_group(gid_t gid)
{
    if (gid == getegid())
        return 1;
    int n = getgroups(0, NULL);
    if (n <= 0)
        return 0;
    gid_t small[64], *all = small;
    size_t size = (size_t)n * sizeof *all;
    if (n > 64 && (all = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
        return 0;
    int got = getgroups(n, all), yes = 0;
    for (int i = 0; i < got && !yes; i++)
        yes = all[i] == gid;
    if (all != small)
        munmap(all, size);
    return yes;
}

/* 0 if TF may create files in (or go through) the directory fd, named by
 * shown[0, len) (NULL: the working directory); else -1 with why. */
static int check_dir(int fd, const char *shown, size_t len, char *why)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fail_errno(why, errno);
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        fail_dir(why, shown, len, " belongs to uid ");
        why_buf w = {why, strlen(why)};
        put_num(&w, (unsigned long)st.st_uid);
        put(&w, ", neither this process's user nor root");
        return -1;
    }
    if (st.st_mode & S_ISVTX)
        return 0;
    if (st.st_mode & S_IWOTH)
        return fail_dir(why, shown, len, " may be written by others and is not sticky");
    if ((st.st_mode & S_IWGRP) && !in_group(st.st_gid))
        return fail_dir(why, shown, len, " may be written by a group this process is not in, "
                                         "and is not sticky");
    return 0;
}

/* Opens the directory part of path, walking and checking every component;
 * *last is the final component (may be "", "." or ".."). -1 with why. */
static int open_parent(const char *path, const char **last, char *why)
{
    int dir = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return fail_errno(why, errno);
    if (check_dir(dir, path[0] == '/' ? "/" : NULL, 1, why) != 0) {
        close(dir);
        return -1;
    }
    for (const char *p = path;;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (!p[n]) {
            *last = p;
            return dir;
        }
        char part[NAME_MAX + 1];
        if (n > NAME_MAX) {
            close(dir);
            return fail(why, "a directory name is longer than NAME_MAX (255 bytes)", NULL, NULL);
        }
        memcpy(part, p, n);
        part[n] = 0;
        size_t shown = (size_t)(p + n - path); /* the path up to this directory */
        int next = openat(dir, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int err = errno;
        struct stat st;
        if (next < 0 && fstatat(dir, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            fail_dir(why, path, shown, " is a symbolic link, which TF never follows");
        else if (next < 0)
            fail_errno(why, err);
        close(dir);
        if (next >= 0 && check_dir(next, path, shown, why) != 0) {
            close(next);
            next = -1;
        }
        if (next < 0)
            return -1;
        dir = next;
        p += n;
    }
}

/* ---- recognising what TF wrote ------------------------------------------------ */

#define HEAD 1024
#define TAIL 256

static int starts(const char *h, size_t n, const char *sig)
{
    size_t k = strlen(sig);
    return n >= k && memcmp(h, sig, k) == 0;
}

static int has(const char *h, size_t n, const char *needle)
{
    return memmem(h, n, needle, strlen(needle)) != NULL;
}

/* "(<thread name>): " opening a dprint line. */
static int dprint_line(const char *h, size_t n)
{
    if (!n || h[0] != '(')
        return 0;
    for (size_t i = 1; i + 2 < n && i < 80 && h[i] != '\n'; i++)
        if (h[i] == ')' && h[i + 1] == ':' && h[i + 2] == ' ')
            return 1;
    return 0;
}

/* "[<seconds>.<9 digits>] (" opening a line of tf-dump's text format. */
static int dump_line(const char *h, size_t n)
{
    size_t i = 1;
    if (!n || h[0] != '[')
        return 0;
    while (i < n && h[i] >= '0' && h[i] <= '9')
        i++;
    if (i == 1 || i >= n || h[i] != '.')
        return 0;
    size_t frac = ++i;
    while (i < n && h[i] >= '0' && h[i] <= '9')
        i++;
    return i - frac == 9 && starts(h + i, n - i, "] (");
}

static int is_report(const char *h, size_t n)
{
    return starts(h, n, "TF timing report: ") ||
           starts(h, n, "{\n  \"format\": \"tf-timing-report\"") ||
           starts(h, n, "timer,tu,function,kind,group,count,total_ns,self_ns,");
}

static int ours(tf_file_kind kind, const char *h, size_t n, const char *t, size_t tn)
{
    static const unsigned char magic[] = {0xc1, 0x1f, 0xfc, 0xc1}; /* 0xC1FC1FC1, little-endian */
    switch (kind) {
    case TF_FILE_DPRINT: return dprint_line(h, n);
    case TF_FILE_REPORT: return is_report(h, n);
    case TF_FILE_CHROME:
        return starts(h, n, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"tf timing\"");
    case TF_FILE_CTF_METADATA: return starts(h, n, "/* CTF 1.8 */") && has(h, n, "\ttracer_name = \"tf\";\n");
    case TF_FILE_CTF_STREAM: return n >= 4 && memcmp(h, magic, 4) == 0;
    case TF_FILE_CTF_RINGS: return starts(h, n, "TFRINGS1");
    case TF_FILE_DUMP:
        return dump_line(h, n) || is_report(h, n) ||
               (starts(h, n, "{\"traceEvents\":[") && has(t, tn, "\"otherData\":{\"origin_ns\":")) ||
               (starts(h, n, "<?xml") && has(h, n, ">Flame graph: inclusive time by call stack")) ||
               starts(h, n, "# suggested by tf-dump --suggest-rules");
    case TF_FILE_MANIFEST:
        return starts(h, n, "{\n  \"abi\": ") &&
               (has(h, n, ",\n  \"compiler\": ") || has(h, n, ",\n  \"tool\": \"tf-scan\""));
    case TF_FILE_WATCH_LOG: return starts(h, n, "{\"time\": \"") && has(h, n, "\"verdict\": ");
    }
    return 0;
}

static const char *kind_name(tf_file_kind kind)
{
    static const char *const names[] = {
        [TF_FILE_DPRINT] = "dprint output", [TF_FILE_REPORT] = "timing report",
        [TF_FILE_CHROME] = "timing trace", [TF_FILE_CTF_METADATA] = "recording's metadata",
        [TF_FILE_CTF_STREAM] = "recording's stream", [TF_FILE_CTF_RINGS] = "recording's ring file", [TF_FILE_DUMP] = "tf-dump output",
        [TF_FILE_MANIFEST] = "TF manifest", [TF_FILE_WATCH_LOG] = "tf-watch log"};
    return names[kind];
}

static ssize_t read_at(int fd, char *buf, size_t n, off_t at)
{
    ssize_t r;
    do
        r = pread(fd, buf, n, at);
    while (r < 0 && errno == EINTR);
    return r;
}

/* The regular file fd (st) was written by TF as kind: its head, and for
 * formats that end with their mark, its tail. -1: it cannot be read. */
static int written_by_tf(int fd, const struct stat *st, tf_file_kind kind)
{
    char head[HEAD], tail[TAIL];
    ssize_t h = read_at(fd, head, sizeof head, 0);
    off_t from = st->st_size > TAIL ? st->st_size - TAIL : 0;
    ssize_t t = h < 0 ? -1 : read_at(fd, tail, sizeof tail, from);
    if (h < 0 || t < 0)
        return -1;
    return ours(kind, head, (size_t)h, tail, (size_t)t);
}

/* ---- files ---------------------------------------------------------------------- */

static const char *kind_of(mode_t mode)
{
    return S_ISFIFO(mode) ? "it is a FIFO" : S_ISDIR(mode) ? "it is a directory"
         : S_ISSOCK(mode) ? "it is a socket" : S_ISBLK(mode) ? "it is a block device"
                          : "it is not a regular file";
}

typedef int veto_fn(const struct stat *st, char *why);

/* what + " (remove it first[, or <hint>])" */
static int refused_content(char *why, const char *what)
{
    why_buf w = {why, 0};
    why[0] = 0;
    put(&w, what);
    put(&w, " (remove it first");
    if (tf__files_overwrite_hint) {
        put(&w, ", or ");
        put(&w, tf__files_overwrite_hint);
    }
    put(&w, ")");
    return -1;
}

static int not_ours(tf_file_kind kind, char *why)
{
    char what[TF_FILES_WHY];
    why_buf w = {what, 0};
    what[0] = 0;
    put(&w, "it exists and is no ");
    put(&w, kind_name(kind));
    put(&w, " TF wrote, which is all TF replaces");
    return refused_content(why, what);
}

/* 0 if the existing regular file (st; rw reads it, or is -1) may be
 * replaced, else -1 with why. */
static int may_replace(int rw, const struct stat *st, tf_file_kind kind, unsigned flags, char *why)
{
    if (st->st_uid != geteuid())
        return fail_uid(why, "it", (unsigned long)st->st_uid);
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return fail(why, "others may write it (mode has group or other write permission)", NULL, NULL);
    if (st->st_nlink > 1)
        return fail(why, "it has other names (hard links), which TF never writes through", NULL, NULL);
    if ((flags & TF_FILES_OVERWRITE) || st->st_size == 0)
        return 0;
    int tf = rw < 0 ? -1 : written_by_tf(rw, st, kind);
    if (tf < 0)
        return fail(why, "it exists and TF cannot read it to tell whether TF wrote it", NULL, NULL);
    return tf ? 0 : not_ours(kind, why);
}

static int ready(int fd, unsigned flags)
{
    int fl = fcntl(fd, F_GETFL);
    fl = (fl & ~O_NONBLOCK) | ((flags & (TF_FILES_APPEND | TF_FILES_KEEP)) ? O_APPEND : 0); /* a terminal may be slow */
    fcntl(fd, F_SETFL, fl);
    return fd;
}

/* The same file as fd (st) opened read-write, to read what it holds and to
 * be mapped; -1 if it cannot be. */
static int reopen_rw(int dir, const char *name, const struct stat *st)
{
    int rw = openat(dir, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat again;
    if (rw >= 0 && (fstat(rw, &again) != 0 || again.st_dev != st->st_dev || again.st_ino != st->st_ino)) {
        close(rw);
        rw = -1;
    }
    return rw;
}

/* An existing name in dir: replaced under the rules, or -1 with why. Opened
 * write-only first: a FIFO without a reader fails at once (ENXIO). */
static int replace_at(int dir, const char *name, tf_file_kind kind, unsigned flags, veto_fn *veto, char *why)
{
    int fd = openat(dir, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        return err == ELOOP ? fail(why, "it is a symbolic link, which TF never follows", NULL, NULL)
             : err == ENXIO ? fail(why, "it is a FIFO (or socket) with no reader", NULL, NULL)
                            : fail_errno(why, err);
    }
    struct stat st;
    int rc = fstat(fd, &st) != 0 ? fail_errno(why, errno) : 0;
    if (rc == 0 && !S_ISCHR(st.st_mode) && !S_ISREG(st.st_mode))
        rc = fail(why, kind_of(st.st_mode), NULL, NULL);
    if (rc == 0 && veto)
        rc = veto(&st, why);
    if (rc == 0 && S_ISREG(st.st_mode)) {
        int rw = reopen_rw(dir, name, &st);
        rc = may_replace(rw, &st, kind, flags, why);
        if (rw >= 0 && rc == 0) {
            close(fd);
            fd = rw;
        } else if (rw >= 0) {
            close(rw);
        }
    }
    if (rc == 0 && S_ISREG(st.st_mode) &&
        ((!(flags & TF_FILES_KEEP) && ftruncate(fd, 0) != 0) || fchmod(fd, 0600) != 0))
        rc = fail_errno(why, errno);
    if (rc != 0) {
        close(fd);
        return -1;
    }
    return ready(fd, flags);
}

static int open_at(int dir, const char *name, tf_file_kind kind, unsigned flags, veto_fn *veto, char *why)
{
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return fail(why, "it names a directory", NULL, NULL);
    int fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                    0600);
    if (fd >= 0)
        return ready(fd, flags);
    if (errno != EEXIST)
        return fail_errno(why, errno);
    return replace_at(dir, name, kind, flags, veto, why);
}

int tf__file_at(int dir, const char *name, tf_file_kind kind, unsigned flags, char *why)
{
    int saved = errno, fd = open_at(dir, name, kind, flags, NULL, why);
    errno = saved;
    return fd;
}

/* /dev/stdout and /dev/stderr are symbolic links into /proc that TF would
 * refuse; they mean the process's own streams, whatever those are (a pipe,
 * say), so TF writes to a copy of that descriptor. -1: not one of them. */
static int standard_stream(const char *path)
{
    int fd = strcmp(path, "/dev/stdout") == 0 ? 1 : strcmp(path, "/dev/stderr") == 0 ? 2 : -1;
    return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

static int is_standard(const char *path)
{
    return strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0;
}

static int open_path(const char *path, tf_file_kind kind, unsigned flags, veto_fn *veto, char *why)
{
    int fd = standard_stream(path);
    if (fd >= 0)
        return fd;
    const char *last;
    int dir = open_parent(path, &last, why);
    if (dir < 0)
        return -1;
    fd = open_at(dir, last, kind, flags, veto, why);
    close(dir);
    return fd;
}

int tf__file_open(const char *path, tf_file_kind kind, unsigned flags, char *why)
{
    int saved = errno, fd = open_path(path, kind, flags, NULL, why);
    errno = saved;
    return fd;
}

/* ---- directories ------------------------------------------------------------- */

/* The file name in dir is a regular file of ours that TF wrote as kind. */
static int tf_file_in(int dir, const char *name, tf_file_kind kind)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
              st.st_nlink == 1 && (st.st_size == 0 || written_by_tf(fd, &st, kind) == 1);
    close(fd);
    return yes;
}

/* Whether name in dir is a file of a recording TF wrote: a stream, a ring
 * file (a process that did not finish), the metadata being replaced. */
static int recording_file(int dir, const char *name)
{
    return tf_file_in(dir, name, TF_FILE_CTF_STREAM) || tf_file_in(dir, name, TF_FILE_CTF_RINGS) ||
           tf_file_in(dir, name, TF_FILE_CTF_METADATA);
}

/* How many entries of the directory fd are not files of a recording TF
 * wrote (one cut short before its metadata); -1 on error. */
static int foreign_entries(int fd)
{
    char buf[1024];
    int n = 0;
    lseek(fd, 0, SEEK_SET);
    for (ssize_t got; (got = getdents64(fd, buf, sizeof buf)) != 0;) {
        if (got < 0)
            return -1;
        for (ssize_t at = 0; at < got;) {
            struct dirent64 *e = (struct dirent64 *)(void *)(buf + at);
            at += e->d_reclen;
            n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                 !recording_file(fd, e->d_name);
        }
    }
    return n;
}

static int existing_dir(int fd, unsigned flags, char *why)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fail_errno(why, errno);
    if (st.st_uid != geteuid())
        return fail_uid(why, "it", (unsigned long)st.st_uid);
    if (st.st_mode & 077)
        return fail(why, "it is open to group or others (TF wants 0700)", NULL, NULL);
    if ((flags & TF_FILES_OVERWRITE) || tf_file_in(fd, "metadata", TF_FILE_CTF_METADATA))
        return 0;
    int others = foreign_entries(fd);
    if (others < 0)
        return fail_errno(why, errno);
    if (others)
        return refused_content(why, "it holds files and is no recording TF wrote (it has no "
                                    "metadata of TF's), which is all TF writes into");
    return 0;
}

static int open_dir(const char *path, unsigned flags, char *why)
{
    const char *last;
    int parent = open_parent(path, &last, why);
    if (parent < 0)
        return -1;
    const char *name = *last ? last : ".";
    int made = !(flags & TF_FILES_EXISTING) && mkdirat(parent, name, 0700) == 0;
    if (!made && !(flags & TF_FILES_EXISTING) && errno != EEXIST) {
        close(parent);
        return fail_errno(why, errno);
    }
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    struct stat st;
    if (fd < 0 && fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        fail(why, S_ISLNK(st.st_mode) ? "it is a symbolic link, which TF never follows"
                                      : "it is not a directory", NULL, NULL);
    else if (fd < 0)
        fail_errno(why, err);
    close(parent);
    if (fd < 0)
        return -1;
    if (made ? fchmod(fd, 0700) != 0 && fail_errno(why, errno) : existing_dir(fd, flags, why) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int tf__file_dir(const char *path, unsigned flags, char *why)
{
    int saved = errno, fd = open_dir(path, flags, why);
    errno = saved;
    return fd;
}

/* One pass over dir; the number of files removed. */
static int clean_pass(int dir, const char *prefix, tf_file_kind kind)
{
    char buf[2048];
    size_t k = strlen(prefix);
    int removed = 0;
    lseek(dir, 0, SEEK_SET);
    for (ssize_t n; (n = getdents64(dir, buf, sizeof buf)) > 0;) {
        for (ssize_t at = 0; at < n;) {
            struct dirent64 *e = (struct dirent64 *)(void *)(buf + at);
            at += e->d_reclen;
            if (strncmp(e->d_name, prefix, k) == 0 && tf_file_in(dir, e->d_name, kind) &&
                unlinkat(dir, e->d_name, 0) == 0)
                removed++;
        }
    }
    return removed;
}

void tf__file_clean(int dir, const char *prefix, tf_file_kind kind)
{
    int saved = errno;
    while (clean_pass(dir, prefix, kind) > 0)
        ; /* a listing changed under it may skip names: again until none goes */
    errno = saved;
}

/* ---- stdio files of libtf, and the files in use --------------------------------- */

struct in_use {
    dev_t dev;
    ino_t ino;
    const char *var;
    pid_t pid;    /* who opened it; a forked child writes it only if shared */
    int shared;
    int fd;       /* its descriptor, to forget it when closed */
};
static struct in_use *used;
static size_t nused, cap_used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A child keeps no file its parent was still writing (a report a thread
 * of the parent had open: no thread of the child finishes it), so it may
 * write that path itself. */
static void drop_parents_files(void)
{
    for (size_t i = 0; i < nused;) {
        if (used[i].pid != getpid() && !used[i].shared) {
            close(used[i].fd);
            used[i] = used[--nused];
        } else {
            i++;
        }
    }
}

void tf__files_fork(int phase)
{
    if (phase == 0) {
        pthread_mutex_lock(&lock);
        return;
    }
    if (phase == 2)
        drop_parents_files();
    pthread_mutex_unlock(&lock);
}

static int in_use(const struct stat *st, char *why)
{
    for (size_t i = 0; i < nused; i++)
        if (used[i].dev == st->st_dev && used[i].ino == st->st_ino &&
            (used[i].shared || used[i].pid == getpid()))
            return fail(why, "it is the file ", used[i].var, " already writes to");
    return 0;
}

/* Adds fd's file to the list; -1 if out of memory. Devices are not kept. */
static int note_in_use(int fd, const char *var, unsigned flags)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    if (nused == cap_used) {
        size_t cap = cap_used ? 2 * cap_used : 8;
        struct in_use *bigger = realloc(used, cap * sizeof *bigger);
        if (!bigger)
            return -1;
        used = bigger;
        cap_used = cap;
    }
    used[nused++] = (struct in_use){st.st_dev, st.st_ino, var, getpid(), !!(flags & TF_FILES_SHARED), fd};
    return 0;
}

static void forget(int fd)
{
    for (size_t i = 0; i < nused; i++)
        if (used[i].fd == fd && used[i].pid == getpid()) {
            used[i] = used[--nused];
            return;
        }
}

FILE *tf__create_file(const char *var, const char *path, tf_file_kind kind, unsigned flags, char *reason)
{
    int saved = errno;
    char said[TF_FILES_WHY], *why = reason ? reason : said;
    pthread_mutex_lock(&lock);
    int fd = open_path(path, kind, flags, in_use, why);
    if (fd >= 0 && !is_standard(path) && note_in_use(fd, var, flags) != 0) {
        close(fd);
        fd = fail_errno(why, ENOMEM);
    }
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (fd >= 0 && !f) {
        fail_errno(why, errno);
        forget(fd);
        close(fd);
    }
    pthread_mutex_unlock(&lock);
    if (!f && !reason) {
        char who[128] = "tf: ";
        strncat(who, var, sizeof who - 5);
        tf__file_say(who, path, why);
    }
    errno = saved;
    return f;
}

int tf__close_file(FILE *f)
{
    pthread_mutex_lock(&lock);
    forget(fileno(f));
    pthread_mutex_unlock(&lock);
    return fclose(f);
}
