/*
 * server.c: the control socket (DESIGN.md section 10, a contract). With
 * TF_CONTROL=1, libtf serves $XDG_RUNTIME_DIR/tf/<pid>.sock, or
 * /tmp/tf-<uid>/<pid>.sock, from one thread that exists only then and is
 * started again in a fork()ed child for the child's own pid.
 *
 * Security: the directory is created 0700 and used only if it is a real
 * directory (never through a symlink) owned by us with no group or other
 * access; a peer of another uid (SO_PEERCRED) is refused and the refusal
 * recorded as a permission denial (tf_denials).
 * Robustness: one request line per connection, read and answered with
 * deadlines on a non-blocking socket; a slow, silent or vanished client
 * costs the server at most READ_MS + WRITE_MS and never the program, whose
 * threads never wait for this one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../config.h"
#include "control.h"

#define READ_MS 1000
#define WRITE_MS 2000
#define REQUEST_MAX 4096

static int listen_fd = -1;
static struct sockaddr_un addr;
static pid_t owner; /* the process whose socket addr names */
static int wanted;

const char *tf__control_path(void)
{
    return owner == getpid() ? addr.sun_path : NULL;
}

static int refuse_dir(const char *dir, const char *why)
{
    fprintf(stderr, "tf: TF_CONTROL: not serving: %s %s\n", dir, why);
    return -1;
}

/* The directory must be ours alone: made 0700, never reached through a
 * symlink, owned by our uid, no access for group or others. */
static int safe_dir(const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return refuse_dir(dir, strerror(errno));
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return refuse_dir(dir, errno == ELOOP || errno == ENOTDIR
                                   ? "is a symlink or not a directory"
                                   : strerror(errno));
    struct stat st;
    int rc = fstat(fd, &st);
    close(fd);
    if (rc != 0)
        return refuse_dir(dir, strerror(errno));
    if (st.st_uid != geteuid())
        return refuse_dir(dir, "belongs to another user");
    if (st.st_mode & 077)
        return refuse_dir(dir, "is open to group or others (want mode 0700)");
    return 0;
}

static int socket_dir(char *out, size_t max)
{
    const char *xdg = tf__config_get("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/')
        snprintf(out, max, "%s/tf", xdg);
    else
        snprintf(out, max, "/tmp/tf-%u", (unsigned)geteuid());
    return safe_dir(out);
}

/* Sockets of processes that are gone, and a leftover of our own pid. */
static void clean_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        struct stat st;
        if (pid <= 0 || strcmp(end, ".sock") != 0 ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        if (pid == getpid() || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

static int open_socket(void)
{
    char dir[sizeof addr.sun_path];
    if (socket_dir(dir, sizeof dir) < 0)
        return -1;
    clean_stale(dir);
    addr.sun_family = AF_UNIX;
    int n = snprintf(addr.sun_path, sizeof addr.sun_path, "%s/%ld.sock", dir, (long)getpid());
    if (n >= (int)sizeof addr.sun_path)
        return refuse_dir(dir, "makes a socket path too long");
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        chmod(addr.sun_path, 0600) != 0 || listen(fd, 128) != 0) {
        fprintf(stderr, "tf: TF_CONTROL: cannot serve %s: %s\n", addr.sun_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    owner = getpid();
    return fd;
}

static void remove_socket(void)
{
    if (owner == getpid())
        unlink(addr.sun_path);
}

/* ---- one connection ------------------------------------------------------- */

static int peer_ok(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return 0;
    if (cred.uid == geteuid())
        return 1;
    char who[96];
    snprintf(who, sizeof who, "control socket peer uid %u pid %ld", (unsigned)cred.uid,
             (long)cred.pid);
    tf__deny_external(who, "connect");
    return 0;
}

/* Waits for fd to be ready for events until deadline (tf__now_ns). */
static int wait_for(int fd, short events, uint64_t deadline)
{
    uint64_t now = tf__now_ns();
    if (now >= deadline)
        return 0;
    struct pollfd p = {fd, events, 0};
    int ms = (int)((deadline - now) / 1000000) + 1;
    return poll(&p, 1, ms) == 1 && !(p.revents & POLLNVAL);
}

/* Reads one line; returns its length, or -1 (closed, too slow, too long). */
static ssize_t read_request(int fd, char *buf, size_t max)
{
    uint64_t deadline = tf__now_ns() + READ_MS * 1000000ull;
    size_t n = 0;
    while (n + 1 < max && wait_for(fd, POLLIN, deadline)) {
        ssize_t r = recv(fd, buf + n, max - 1 - n, 0);
        if (r < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
        char *nl = memchr(buf, '\n', n);
        if (nl) {
            *nl = 0;
            return nl - buf;
        }
    }
    return -1;
}

static void write_all(int fd, const char *p, size_t n)
{
    uint64_t deadline = tf__now_ns() + WRITE_MS * 1000000ull;
    while (n && wait_for(fd, POLLOUT, deadline)) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void answer(int fd, const char *line)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return;
    if (line)
        tf__control_command(line, out, (unsigned)geteuid());
    else
        fputs("error: expected one request line (of at most 4095 bytes) within 1 s\n", out);
    fclose(out);
    write_all(fd, text, len);
    free(text);
}

static void serve(int fd)
{
    if (!peer_ok(fd)) {
        write_all(fd, "error: permission denied\n", 25);
        return;
    }
    char buf[REQUEST_MAX];
    answer(fd, read_request(fd, buf, sizeof buf) >= 0 ? buf : NULL);
}

static void *run(void *arg)
{
    tf__in_monitor = 1; /* nothing this thread calls is traced */
    for (;;) {
        struct pollfd p = {listen_fd, POLLIN, 0};
        if (poll(&p, 1, -1) < 0)
            continue;
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            continue;
        serve(fd);
        close(fd);
    }
    return arg;
}

/* The server never takes the program's signals. */
static void start(void)
{
    listen_fd = open_socket();
    if (listen_fd < 0)
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(&t, &attr, run, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        fprintf(stderr, "tf: TF_CONTROL: cannot start the server thread: %s\n", strerror(rc));
        remove_socket();
        close(listen_fd);
        listen_fd = -1;
        return;
    }
    pthread_setname_np(t, "tf-control");
}

void tf__control_init(void)
{
    const char *triggers = tf__config_get("TF_TRIGGERS");
    if (triggers)
        tf__trigger_env(triggers, stderr);
    if (strcmp(tf__config_get("TF_CONTROL"), "1") != 0)
        return;
    wanted = 1;
    tf__at_exit(remove_socket);
    tf__term_arm(); /* the socket is removed on SIGTERM and friends too */
    start();
}

void tf__control_fork(int phase)
{
    tf__trigger_fork(phase);
    if (phase != TF_FORK_CHILD || !wanted)
        return;
    if (listen_fd >= 0)
        close(listen_fd); /* the parent's socket: it keeps serving it */
    listen_fd = -1;
    start();
}
