/*
 * server.c: the control socket (docs/design.md .ctl, a contract). With
 * TF_CONTROL=1, libtf serves $XDG_RUNTIME_DIR/tf/<pid>.sock, or
 * /tmp/tf-<uid>/<pid>.sock, from one thread that exists only then and is
 * started again in a fork()ed child for the child's own pid.
 *
 * Security: the directory is created 0700 and used only if it is a real
 * directory (never through a symlink) owned by us with no group or other
 * access; a peer of another uid (SO_PEERCRED) is refused and the refusal
 * recorded as a permission denial (tf_denials).
 * Robustness: one request line per connection, read and answered with a
 * deadline each on a non-blocking socket; every connection has its own, so
 * a slow, silent or vanished client costs other clients nothing (the server
 * polls them all) and never the program, whose threads never wait for this
 * one. Limits are named below, checked, and said to the client when hit
 * (docs/design.md .ctl.limits).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../config.h"
#include "control.h"

#define READ_MS 1000      /* a client's request line must come within this */
#define WRITE_MS 2000     /* and it must take its answer within this */
#define REQUEST_MAX 4096  /* bytes of a request line, its newline included */
#define CONN_MAX 256      /* connections open at once; more are told to retry */
#define BACKLOG 128       /* connections the kernel queues before accept */
#define DRAIN_MAX 65536   /* unread request bytes read away before a close */
#define STR_(x) #x
#define STR(x) STR_(x)

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
    fputs("tf: TF_CONTROL: not serving: ", stderr);
    tf__config_escaped(stderr, dir);
    fprintf(stderr, " %s\n", why);
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
        int unready = e->d_name[0] == '.'; /* open_socket's name before listen */
        long pid = strtol(e->d_name + unready, &end, 10);
        struct stat st;
        if (pid <= 0 || strcmp(end, unready ? ".sock-new" : ".sock") != 0 ||
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
    /* bound and listening under another name, then renamed: a client that
     * sees PID.sock can connect (bind alone would refuse it until listen) */
    struct sockaddr_un unready = addr;
    int u = snprintf(unready.sun_path, sizeof unready.sun_path, "%s/.%ld.sock-new", dir,
                     (long)getpid());
    if (n >= (int)sizeof addr.sun_path || u >= (int)sizeof unready.sun_path)
        return refuse_dir(dir, "makes a socket path too long");
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&unready, sizeof unready) != 0 ||
        chmod(unready.sun_path, 0600) != 0 || listen(fd, BACKLOG) != 0 ||
        rename(unready.sun_path, addr.sun_path) != 0) {
        int err = errno;
        unlink(unready.sun_path);
        fputs("tf: TF_CONTROL: cannot serve ", stderr);
        tf__config_escaped(stderr, addr.sun_path);
        fprintf(stderr, ": %s\n", strerror(err));
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

/* ---- connections ----------------------------------------------------------
 * One thread serves every connection at once: each has its own deadline,
 * so silent or slow clients cost others nothing. A connection reads one
 * request line, then is written its whole answer, then closed. */

struct conn {
    int fd;
    uint64_t deadline;  /* tf__now_ns: for the request, then for the answer */
    size_t n;           /* bytes of the request read */
    int answered;       /* out holds the answer (NULL: out of memory) */
    char *out;
    size_t out_len, out_at;
    char req[REQUEST_MAX];
};

static struct conn *conns[CONN_MAX];
static int nconns;
/* Guards the table against fork (a child closes the parent's connections),
 * never held while a command runs. */
static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* c is answered text (a copy is kept), within WRITE_MS. Out of memory, it
 * is closed without an answer: tf-ctl says the program did not answer. */
static void reply(struct conn *c, const char *text, size_t len)
{
    char *copy = malloc(len ? len : 1);
    if (copy)
        memcpy(copy, text, len);
    free(c->out);
    c->out = copy;
    c->out_len = copy ? len : 0;
    c->out_at = 0;
    c->answered = 1;
    c->deadline = tf__now_ns() + WRITE_MS * 1000000ull;
}

static void reply_error(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply_error(struct conn *c, const char *fmt, ...)
{
    char line[256] = "error: ";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + 7, sizeof line - 8, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    reply(c, line, strlen(line));
}

static void run_request(struct conn *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) {
        reply_error(c, "out of memory");
        return;
    }
    tf__control_command(c->req, out, (unsigned)geteuid());
    fclose(out);
    reply(c, text, len);
    free(text);
}

/* The request in c->req[0, c->n) is whole (a newline, or the end): checked
 * and run. */
static void request_done(struct conn *c, size_t len)
{
    char *nul = memchr(c->req, 0, len);
    if (nul) {
        reply_error(c, "the request line holds a NUL byte (at byte %zu)", (size_t)(nul - c->req) + 1);
        return;
    }
    c->req[len] = 0;
    run_request(c);
}

/* Reads what c's client sent; 0 while the request is not whole, -1 when the
 * client is gone without one. */
static int on_readable(struct conn *c)
{
    ssize_t r = recv(c->fd, c->req + c->n, REQUEST_MAX - c->n, 0);
    if (r < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    if (r == 0) { /* a last line without its newline is still a line */
        if (!c->n)
            return -1;
        request_done(c, c->n);
        return 0;
    }
    char *nl = memchr(c->req + c->n, '\n', (size_t)r);
    c->n += (size_t)r;
    if (nl)
        request_done(c, (size_t)(nl - c->req));
    else if (c->n == REQUEST_MAX)
        reply_error(c, "the request line is longer than %d bytes (REQUEST_MAX)", REQUEST_MAX - 1);
    return 0;
}

/* Writes what c's answer has left; -1 when done or the client is gone. */
static int on_writable(struct conn *c)
{
    while (c->out_at < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_at, c->out_len - c->out_at, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return 0;
        if (w <= 0)
            return -1;
        c->out_at += (size_t)w;
    }
    return -1;
}

/* Unread bytes at close make the kernel reset the connection, and a client
 * may then lose the answer it was reading: what a refused request left is
 * read first (what is there now, at most DRAIN_MAX bytes). */
static void drain(int fd)
{
    char scratch[4096];
    for (size_t left = DRAIN_MAX; left;) {
        ssize_t r = recv(fd, scratch, sizeof scratch < left ? sizeof scratch : left, MSG_DONTWAIT);
        if (r <= 0)
            return;
        left -= (size_t)r;
    }
}

static void conn_free(struct conn *c)
{
    drain(c->fd);
    close(c->fd);
    free(c->out);
    free(c);
}

static void accept_all(void)
{
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        struct conn *c = nconns < CONN_MAX ? calloc(1, sizeof *c) : NULL;
        if (!c) { /* a short line fits any socket's buffer: sent at once */
            static const char busy[] = "error: the server has " STR(CONN_MAX)
                                       " connections open (CONN_MAX); try again\n";
            if (send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL) < 0)
                errno = 0;
            close(fd);
            continue;
        }
        c->fd = fd;
        c->deadline = tf__now_ns() + READ_MS * 1000000ull;
        if (!peer_ok(fd))
            reply_error(c, "permission denied");
        pthread_mutex_lock(&conns_lock);
        conns[nconns++] = c;
        pthread_mutex_unlock(&conns_lock);
    }
}

/* What c waits for, and how long the server may sleep for it (ms). */
static short wanted_events(const struct conn *c)
{
    return c->answered ? POLLOUT : POLLIN;
}

static int sleep_ms(uint64_t now)
{
    uint64_t first = UINT64_MAX;
    for (int i = 0; i < nconns; i++)
        if (conns[i]->deadline < first)
            first = conns[i]->deadline;
    if (first == UINT64_MAX)
        return -1;
    return first <= now ? 0 : (int)((first - now) / 1000000) + 1;
}

/* One turn: waits for any connection or the deadline of one, serves what
 * is ready, closes what is done or too late. */
static void serve_turn(void)
{
    struct pollfd p[CONN_MAX + 1];
    int n = nconns;
    p[0] = (struct pollfd){listen_fd, POLLIN, 0};
    for (int i = 0; i < n; i++)
        p[i + 1] = (struct pollfd){conns[i]->fd, wanted_events(conns[i]), 0};
    if (poll(p, (nfds_t)n + 1, sleep_ms(tf__now_ns())) < 0)
        return;
    uint64_t now = tf__now_ns();
    char done[CONN_MAX] = {0};
    for (int i = 0; i < n; i++) {
        struct conn *c = conns[i];
        if (p[i + 1].revents && !c->answered)
            done[i] = on_readable(c) < 0;
        if (!done[i] && c->answered && (p[i + 1].revents || !c->out_at))
            done[i] = on_writable(c) < 0;
        if (!done[i] && now >= c->deadline && !c->answered)
            reply_error(c, "no request line within %d ms (READ_MS)", READ_MS);
        else if (!done[i] && now >= c->deadline)
            done[i] = 1; /* it does not read its answer */
    }
    pthread_mutex_lock(&conns_lock); /* a fork sees the table whole */
    int k = 0;
    for (int i = 0; i < nconns; i++) {
        if (i < n && done[i])
            conn_free(conns[i]);
        else
            conns[k++] = conns[i];
    }
    nconns = k;
    pthread_mutex_unlock(&conns_lock);
    if (p[0].revents & POLLIN)
        accept_all();
}

static void *run(void *arg)
{
    tf__in_monitor = 1; /* nothing this thread calls is traced */
    for (;;)
        serve_turn();
    return arg;
}

/* The server never takes the program's signals. */
static void start(void)
{
    listen_fd = open_socket();
    if (listen_fd < 0)
        return;
    pthread_t t;
    int rc = tf__thread_start(&t, run, "tf-control");
    if (rc != 0) {
        fprintf(stderr, "tf: TF_CONTROL: cannot start the server thread: %s\n", strerror(rc));
        remove_socket();
        close(listen_fd);
        listen_fd = -1;
        return;
    }
    pthread_detach(t);
}

void tf__control_init(void)
{
    const char *triggers = tf__config_get("TF_TRIGGERS");
    if (triggers)
        tf__trigger_env(triggers, stderr);
    if (strcmp(tf__config_get("TF_CONTROL"), "0") == 0)
        return; /* 1 or anywhere (paths.c) */
    wanted = 1;
    tf__at_exit(remove_socket);
    tf__term_arm(); /* the socket is removed on SIGTERM and friends too */
    start();
}

/* A child closes its copies of the parent's connections: a client reads its
 * answer until the end, which would not come while the child held one. Their
 * memory is left alone: the parent's thread may have been changing it. */
static void drop_parents_conns(void)
{
    for (int i = 0; i < nconns; i++)
        close(conns[i]->fd);
    nconns = 0;
}

void tf__control_fork(int phase)
{
    if (phase == TF_FORK_PREPARE) {
        pthread_mutex_lock(&conns_lock);
        tf__trigger_fork(phase);
        return;
    }
    tf__trigger_fork(phase);
    if (phase == TF_FORK_CHILD)
        drop_parents_conns();
    pthread_mutex_unlock(&conns_lock);
    if (phase != TF_FORK_CHILD || !wanted)
        return;
    if (listen_fd >= 0)
        close(listen_fd); /* the parent's socket: it keeps serving it */
    listen_fd = -1;
    start();
}
