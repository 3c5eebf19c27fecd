/*
 * client.c: the checked connection to a control socket, and one request
 * read whole (client.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "escape.h"

void tf_ctl_socket_dir(char *out, size_t max)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/')
        snprintf(out, max, "%s/tf", xdg);
    else
        snprintf(out, max, "/tmp/tf-%u", (unsigned)geteuid());
}

int tf_ctl_canonical_pid(const char *s)
{
    size_t n = strspn(s, "0123456789");
    return n && !s[n] && s[0] != '0' && (n < 10 || (n == 10 && strcmp(s, "2147483647") <= 0));
}

int tf_ctl_open_dir(const char *dir, int *absent, char *why, size_t len)
{
    char shown[512];
    tf__escape_str(shown, sizeof shown, dir);
    *absent = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        *absent = errno == ENOENT;
        snprintf(why, len, "not using %s: %s", shown,
                 errno == ELOOP || errno == ENOTDIR ? "it is a symbolic link or not a directory"
                 : *absent                          ? "it does not exist"
                                                    : "it cannot be opened");
        return -1;
    }
    why[0] = 0;
    if (fstat(fd, &st) != 0)
        snprintf(why, len, "not using %s: %s", shown, strerror(errno));
    else if (st.st_uid != geteuid())
        snprintf(why, len, "not using %s: it belongs to uid %u, not to you (uid %u)", shown,
                 (unsigned)st.st_uid, (unsigned)geteuid());
    else if (st.st_mode & 077)
        snprintf(why, len, "not using %s: it is open to group or others (mode %04o; the server "
                           "makes it 0700)", shown, (unsigned)(st.st_mode & 07777));
    if (why[0]) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The server must run as we do: a socket another user could have put there
 * is refused before anything is sent. */
static int server_ok(int fd, const char *pid, char *why, size_t len)
{
    struct ucred cred;
    socklen_t n = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &n) != 0) {
        snprintf(why, len, "process %s: cannot tell who serves its socket: %s", pid, strerror(errno));
        return 0;
    }
    if (cred.uid == geteuid())
        return 1;
    snprintf(why, len, "process %s: its socket is served by uid %u (pid %ld), not by you (uid %u); "
                       "refused", pid, (unsigned)cred.uid, (long)cred.pid, (unsigned)geteuid());
    return 0;
}

/* Connects to <dir>/<pid>.sock through the checked directory's descriptor
 * (/proc/self/fd/N/...), so a directory swapped after the check is not the
 * one used. */
int tf_ctl_connect(const char *pid, char *why, size_t len)
{
    char dir[256], shown[512];
    if (!tf_ctl_canonical_pid(pid)) {
        tf__escape_str(shown, sizeof shown, pid);
        snprintf(why, len, "'%s' is not a process id (decimal digits, no sign, blanks or leading zeros)",
                 shown);
        return -1;
    }
    tf_ctl_socket_dir(dir, sizeof dir);
    tf__escape_str(shown, sizeof shown, dir);
    int absent, dfd = tf_ctl_open_dir(dir, &absent, why, len);
    if (dfd < 0) {
        if (absent)
            snprintf(why, len, "process %s serves no control socket: no directory %s (was it "
                               "started with TF_CONTROL=1?)", pid, shown);
        return -1;
    }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "/proc/self/fd/%d/%s.sock", dfd, pid);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
    int err = errno;
    close(dfd);
    if (ok && server_ok(fd, pid, why, len))
        return fd;
    if (!ok)
        snprintf(why, len, "process %s serves no control socket at %s/%s.sock: %s (was it started "
                           "with TF_CONTROL=1?)", pid, shown, pid, strerror(err));
    if (fd >= 0)
        close(fd);
    return -1;
}

int tf_ctl_send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Reads until the server closes; NULL if that takes longer than wait_ms or
 * the answer passes TF_CTL_ASK_MAX (*big then set). */
static char *receive(int fd, int wait_ms, int *big)
{
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    long long deadline = now_ms() + wait_ms;
    struct pollfd p = {fd, POLLIN, 0};
    *big = 0;
    while (buf && now_ms() < deadline && poll(&p, 1, (int)(deadline - now_ms())) == 1) {
        if (n + 1 == cap) {
            char *bigger = cap < TF_CTL_ASK_MAX ? realloc(buf, cap *= 2) : NULL;
            *big = cap >= TF_CTL_ASK_MAX;
            if (!bigger)
                break;
            buf = bigger;
        }
        ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            buf[n] = 0;
            return buf;
        }
        n += (size_t)r;
    }
    free(buf);
    return NULL;
}

char *tf_ctl_ask(const char *pid, const char *line, int wait_ms, char *why, size_t len)
{
    int fd = tf_ctl_connect(pid, why, len);
    if (fd < 0)
        return NULL;
    /* A refused peer is answered without being read: the answer still comes. */
    int sent = tf_ctl_send_all(fd, line, strlen(line));
    int send_errno = errno, big;
    shutdown(fd, SHUT_WR);
    char *answer = receive(fd, wait_ms, &big);
    close(fd);
    if (answer && answer[0])
        return answer;
    free(answer);
    if (big)
        snprintf(why, len, "process %s answered more than %u MiB", pid, TF_CTL_ASK_MAX >> 20);
    else if (answer && sent == 0)
        snprintf(why, len, "process %s closed the connection without answering", pid);
    else if (sent < 0)
        snprintf(why, len, "process %s: cannot send: %s", pid, strerror(send_errno));
    else
        snprintf(why, len, "process %s did not answer within %d %s", pid,
                 wait_ms % 1000 ? wait_ms : wait_ms / 1000, wait_ms % 1000 ? "ms" : "s");
    return NULL;
}
