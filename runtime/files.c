/*
 * files.c: the one way TF creates a file (TF_OUTPUT, TF_REPORT,
 * TF_TIMING_TRACE, and their "<path>.<pid>" in a forked child). What it
 * promises (README "Reliability and security"):
 *
 * - No symbolic link is followed, in the last component or in any directory
 *   on the way: the path is walked one directory at a time with
 *   openat(O_PATH | O_DIRECTORY | O_NOFOLLOW).
 * - An existing regular file is written only if the effective user owns it
 *   and neither group nor others may write it (a file another user planted
 *   in a sticky /tmp is refused); it is opened without truncation, checked,
 *   then truncated and made 0600, so a trace is never readable by others.
 * - Nothing blocks: the open is O_NONBLOCK, so a FIFO without a reader fails
 *   at once and one with a reader is refused after fstat. Only regular files
 *   and character devices (/dev/null, a terminal) are written, and
 *   /dev/stdout, /dev/stderr: the process's own streams, whatever they are.
 * - Two variables naming one file (TF_OUTPUT and TF_REPORT) would interleave:
 *   the second is refused, naming the first.
 * - Files are O_APPEND, so a parent and its forked child, sharing the file,
 *   never write over each other's lines. tf__append_file keeps what a file
 *   holds (tf-watch's --log), with the same checks.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "config.h"
#include "locks.h"

#define MAX_OPEN 8

static struct opened {
    dev_t dev;
    ino_t ino;
    const char *var;
} opened[MAX_OPEN];
static int nopened;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* why may quote part of path: escaped as well. */
static void say(const char *var, const char *path, const char *why)
{
    fprintf(stderr, "tf: %s: cannot write '", var);
    tf__config_escaped(stderr, path);
    fprintf(stderr, "': ");
    tf__config_escaped(stderr, why);
    fprintf(stderr, "\n");
}

/* Opens the directory that holds path's last component, following no link;
 * *last points to that component. -1 (said) on failure. */
static int open_parent(const char *var, const char *path, const char **last)
{
    int dir = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    const char *p = path;
    while (dir >= 0) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (!p[n]) {
            *last = p;
            return dir;
        }
        char part[256];
        if (n >= sizeof part) {
            close(dir);
            return say(var, path, "a directory name is too long"), -1;
        }
        memcpy(part, p, n);
        part[n] = 0;
        int next = openat(dir, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        char why[384];
        if (next < 0 && fstatat(dir, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            snprintf(why, sizeof why, "directory '%s' on the way is a symbolic link, "
                                      "which TF never follows", part);
        else if (next < 0)
            snprintf(why, sizeof why, "%s", strerror(errno));
        if (next < 0)
            say(var, path, why);
        close(dir);
        dir = next;
        p += n;
    }
    return -1;
}

static const char *kind_of(mode_t mode)
{
    return S_ISFIFO(mode) ? "it is a FIFO" : S_ISDIR(mode) ? "it is a directory"
         : S_ISSOCK(mode) ? "it is a socket" : S_ISBLK(mode) ? "it is a block device"
                          : "it is not a regular file";
}

/* NULL if TF may write the file fd refers to, else why not. */
static const char *refusal(const struct stat *st, char *why, size_t len)
{
    if (S_ISCHR(st->st_mode))
        return NULL;
    if (!S_ISREG(st->st_mode))
        return kind_of(st->st_mode);
    if (st->st_uid != geteuid())
        return snprintf(why, len, "it belongs to uid %ld, not to this process's uid %ld",
                        (long)st->st_uid, (long)geteuid()), why;
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return "others may write it (mode has group or other write permission)";
    for (int i = 0; i < nopened; i++)
        if (opened[i].dev == st->st_dev && opened[i].ino == st->st_ino)
            return snprintf(why, len, "it is the file %s already writes to", opened[i].var), why;
    return NULL;
}

/* keep: append to what the file holds (a log) instead of truncating it. */
static int open_checked(const char *var, const char *path, int keep)
{
    const char *last;
    int dir = open_parent(var, path, &last);
    if (dir < 0)
        return -1;
    if (!*last || strcmp(last, ".") == 0 || strcmp(last, "..") == 0) {
        close(dir);
        return say(var, path, "it names a directory"), -1;
    }
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    int fd = openat(dir, last, flags, 0600);
    int err = errno;
    struct stat st;
    close(dir);
    if (fd < 0) {
        const char *why = err == ELOOP ? "it is a symbolic link, which TF never follows"
                        : err == ENXIO ? "it is a FIFO (or socket) with no reader"
                                       : strerror(err);
        return say(var, path, why), -1;
    }
    char why[128];
    const char *no = fstat(fd, &st) != 0 ? strerror(errno) : refusal(&st, why, sizeof why);
    if (!no && S_ISREG(st.st_mode) && ((!keep && ftruncate(fd, 0) != 0) || fchmod(fd, 0600) != 0))
        no = strerror(errno);
    if (no) {
        close(fd);
        return say(var, path, no), -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK); /* a terminal may be slow */
    if (S_ISREG(st.st_mode) && nopened < MAX_OPEN)
        opened[nopened++] = (struct opened){st.st_dev, st.st_ino, var};
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

static FILE *open_file(const char *var, const char *path, int keep)
{
    int saved = errno;
    pthread_mutex_lock(&lock);
    int fd = standard_stream(path);
    if (fd < 0)
        fd = open_checked(var, path, keep);
    pthread_mutex_unlock(&lock);
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (fd >= 0 && !f) {
        say(var, path, strerror(errno));
        close(fd);
    }
    errno = saved;
    return f;
}

FILE *tf__create_file(const char *var, const char *path)
{
    return open_file(var, path, 0);
}

FILE *tf__append_file(const char *var, const char *path)
{
    return open_file(var, path, 1);
}

void tf__files_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&lock);
    else
        pthread_mutex_unlock(&lock);
}
