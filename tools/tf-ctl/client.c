/*
 * client.c: one request to a control socket (client.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client.h"

void tf_ctl_socket_dir(char *out, size_t max)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/')
        snprintf(out, max, "%s/tf", xdg);
    else
        snprintf(out, max, "/tmp/tf-%u", (unsigned)geteuid());
}

static int connect_to(const char *pid, char *why, size_t len)
{
    char dir[256];
    tf_ctl_socket_dir(dir, sizeof dir);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (snprintf(addr.sun_path, sizeof addr.sun_path, "%s/%s.sock", dir, pid) >=
        (int)sizeof addr.sun_path) {
        snprintf(why, len, "socket path too long under %s", dir);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
        return fd;
    snprintf(why, len, "process %s serves no control socket at %s: %s "
                       "(was it started with TF_CONTROL=1?)", pid, addr.sun_path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

static int send_all(int fd, const char *p, size_t n)
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

/* Reads until the server closes; NULL if that takes longer than wait_ms. */
static char *receive(int fd, int wait_ms)
{
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    long long deadline = now_ms() + wait_ms;
    struct pollfd p = {fd, POLLIN, 0};
    while (buf && now_ms() < deadline && poll(&p, 1, (int)(deadline - now_ms())) == 1) {
        if (n + 1 == cap) {
            char *bigger = realloc(buf, cap *= 2);
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
    int fd = connect_to(pid, why, len);
    if (fd < 0)
        return NULL;
    /* A refused peer is answered without being read: the answer still comes. */
    int sent = send_all(fd, line, strlen(line));
    int send_errno = errno;
    char *answer = receive(fd, wait_ms);
    close(fd);
    if (answer && answer[0])
        return answer;
    if (answer && sent == 0)
        snprintf(why, len, "process %s closed the connection without answering", pid);
    free(answer);
    if (answer && sent == 0)
        return NULL;
    if (sent < 0)
        snprintf(why, len, "process %s: cannot send: %s", pid, strerror(send_errno));
    else
        snprintf(why, len, "process %s did not answer within %d %s", pid,
                 wait_ms % 1000 ? wait_ms : wait_ms / 1000, wait_ms % 1000 ? "ms" : "s");
    return NULL;
}
