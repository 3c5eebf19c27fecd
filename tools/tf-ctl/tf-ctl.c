/*
 * tf-ctl: switch tracing of a running program that serves a control socket
 * (TF_CONTROL=1; docs/design.md .ctl). It sends one request line and prints
 * the answer; the program does all the work, so tf-ctl links nothing of TF
 * but its escaper (runtime/escape.c).
 *
 * It trusts the server no more than the server trusts it (docs/design.md
 * .ctl.client): the connection is client.c's, checked (the directory ours
 * and closed to others, the server's uid ours); what it answers is printed
 * escaped (no terminal escape, OSC or C1 control gets through) and read as
 * a stream, never buffered whole, up to ANSWER_MAX bytes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"
#include "escape.h"
#include "nearest.h"

#define ANSWER_WAIT_MS 10000             /* the longest the server may be silent */
#define ANSWER_MAX (256ull << 20)        /* bytes of an answer shown; more is cut, said */
#define FIRST_LINE_MAX 65536             /* "ok", or the error line */

static const char help[] =
    "usage: tf-ctl list\n"
    "       tf-ctl PID COMMAND [ARGUMENTS...]\n"
    "\n"
    "Drives a program started with TF_CONTROL=1. Commands:\n"
    "  status                          pid, program, socket, counts\n"
    "  groups                          every group, its factory and subgroups\n"
    "  functions [GLOB]                monitored functions <tu>.<name>, group, on/off\n"
    "  select [+|-]GLOB[,...]          which monitored functions follow their group\n"
    "  deselect GLOB[,...]             ... and which do not (appends -GLOB items)\n"
    "  selection [clear]               the selection items and counts (clear: none)\n"
    "  register GROUP=FACTORY[+FACTORY...] [if CONDITION]\n"
    "  clear GROUP\n"
    "  snapshot [DIR]                  write the flight recorder now\n"
    "  report [FILE]                   the timing report (to FILE, or printed)\n"
    "  trigger 'FUNCTION:EVENT [if CONDITION] -> ACTION [ARG] [once|every DURATION]'\n"
    "  triggers                        the triggers, numbered, with fire counts\n"
    "  untrigger N\n"
    "  stacks                          every thread's open monitored calls now (a watchdog runs)\n"
    "  watchdog DURATION[,ACTION...]|off  start, change or stop the watchdog (TF_WATCHDOG)\n"
    "  heartbeat                       the watchdog, calls entered and left so far, open now\n"
    "  budget [PERCENT|off]            the overhead budget (TF_BUDGET): what it switched off; set, stop\n"
    "CONDITION: time|depth|ARGUMENT OP VALUE [and ...], OP one of == != < <= > >=\n"
    "  e.g. 'if time > 10ms', 'if depth <= 2 and fd == 3', 'if path == \"/etc\"'\n"
    "EVENT: enter, exit, throw. ACTION: register GROUP=..., clear GROUP, snapshot, report\n"
    "See README.md, 'Turning tracing on'.\n";

static void say_escaped(FILE *out, const char *s, size_t n, unsigned flags)
{
    while (n) {
        char one[TF_ESC_MAX];
        size_t used, k = tf__escape_char(s, n, one, &used, flags | TF_ESC_FINAL);
        fwrite(one, 1, k, out);
        s += used;
        n -= used;
    }
}

/* "tf-ctl: " + a + escaped b + c, on stderr. */
static void complain(const char *a, const char *b, const char *c)
{
    fprintf(stderr, "tf-ctl: %s", a);
    say_escaped(stderr, b, strlen(b), 0);
    fprintf(stderr, "%s\n", c);
}

static int list(void)
{
    char dir[256], why[TF_CTL_WHY];
    tf_ctl_socket_dir(dir, sizeof dir);
    int absent, fd = tf_ctl_open_dir(dir, &absent, why, sizeof why);
    if (fd < 0 && !absent)
        fprintf(stderr, "tf-ctl: %s\n", why);
    if (fd < 0)
        return absent ? 0 : 1; /* nothing serves: an empty list */
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 1;
    }
    for (struct dirent *e; (e = readdir(d));) {
        char name[32], exe[512] = "?", link[64];
        size_t len = strlen(e->d_name);
        struct stat st;
        if (len < 6 || len - 5 >= sizeof name || strcmp(e->d_name + len - 5, ".sock") != 0)
            continue;
        memcpy(name, e->d_name, len - 5);
        name[len - 5] = 0;
        if (!tf_ctl_canonical_pid(name) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISSOCK(st.st_mode) || st.st_uid != geteuid() || kill((pid_t)atol(name), 0) != 0)
            continue;
        snprintf(link, sizeof link, "/proc/%s/exe", name);
        ssize_t n = readlink(link, exe, sizeof exe - 1);
        if (n > 0)
            exe[n] = 0;
        printf("%s\t", name);
        say_escaped(stdout, exe, strlen(exe), 0);
        putchar('\n');
    }
    closedir(d);
    return 0;
}

/* The request: the words joined by blanks, one line. */
static char *request(int argc, char **argv)
{
    size_t len = 2;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *line = malloc(len);
    if (!line)
        return NULL;
    line[0] = 0;
    for (int i = 0; i < argc; i++) {
        if (strpbrk(argv[i], "\r\n")) {
            fprintf(stderr, "tf-ctl: argument %d contains a line break\n", i + 2);
            free(line);
            return NULL;
        }
        strcat(strcat(line, i ? " " : ""), argv[i]);
    }
    return strcat(line, "\n");
}

/* Reads up to max bytes into buf: their number, 0 at the end (a server
 * that closes before reading all of a refused request resets the
 * connection: also the end), -1 when it is silent for ANSWER_WAIT_MS. */
static ssize_t receive(int fd, char *buf, size_t max)
{
    struct pollfd p = {fd, POLLIN, 0};
    for (;;) {
        if (poll(&p, 1, ANSWER_WAIT_MS) != 1)
            return -1;
        ssize_t r = recv(fd, buf, max, 0);
        if (r >= 0 || errno == ECONNRESET)
            return r > 0 ? r : 0;
        if (errno != EINTR)
            return -1;
    }
}

/* Prints buf[*from, n) escaped, at most *left bytes of it; a UTF-8 sequence
 * cut at the end waits for its next bytes unless final. */
static void show(FILE *out, const char *buf, size_t *from, size_t n, unsigned long long *left, int final)
{
    while (*from < n && *left) {
        char one[TF_ESC_MAX];
        size_t used, k = tf__escape_char(buf + *from, n - *from, one, &used,
                                         TF_ESC_LINES | (final ? TF_ESC_FINAL : 0));
        if (!k)
            return;
        fwrite(one, 1, k, out);
        *from += used;
        *left = *left > used ? *left - used : 0;
    }
}

/* Prints the answer as it comes: after "ok", the output on stdout; else
 * the error on stderr; escaped, at most ANSWER_MAX bytes, never held whole.
 * Returns the exit status. */
static int relay(int fd, const char *pid)
{
    static char buf[FIRST_LINE_MAX];
    size_t n = 0;
    ssize_t r = 1;
    while (n < sizeof buf && !memchr(buf, '\n', n) && (r = receive(fd, buf + n, sizeof buf - n)) > 0)
        n += (size_t)r;
    if (!n) {
        if (r < 0)
            fprintf(stderr, "tf-ctl: process %s did not answer within %d s\n", pid, ANSWER_WAIT_MS / 1000);
        else
            fprintf(stderr, "tf-ctl: process %s: no answer\n", pid);
        return 1;
    }
    int ok = n >= 3 && memcmp(buf, "ok\n", 3) == 0;
    FILE *out = ok ? stdout : stderr;
    if (!ok)
        fprintf(stderr, "tf-ctl: process %s: ", pid);
    size_t from = ok ? 3 : 0;
    unsigned long long left = ANSWER_MAX;
    for (;;) {
        show(out, buf, &from, n, &left, r <= 0);
        if (r <= 0 || !left)
            break;
        memmove(buf, buf + from, n - from); /* what waits for more bytes */
        n -= from;
        from = 0;
        if ((r = receive(fd, buf + n, sizeof buf - n)) > 0)
            n += (size_t)r;
    }
    fflush(out);
    if (!left && (from < n || receive(fd, buf, 1) > 0)) {
        fprintf(stderr, "\ntf-ctl: process %s: the answer is longer than %llu MiB (ANSWER_MAX); "
                        "the rest is not shown\n", pid, ANSWER_MAX >> 20);
        return 1;
    }
    if (r < 0) {
        fprintf(stderr, "\ntf-ctl: process %s stopped answering for %d s; the answer is cut\n", pid,
                ANSWER_WAIT_MS / 1000);
        return 1;
    }
    return ok ? 0 : 1;
}

static int command(const char *pid, int argc, char **argv)
{
    char *line = request(argc, argv);
    if (!line)
        return 2;
    char why[TF_CTL_WHY];
    int fd = tf_ctl_connect(pid, why, sizeof why);
    if (fd < 0) {
        fprintf(stderr, "tf-ctl: %s\n", why);
        free(line);
        return 1;
    }
    /* A refused or too long request is answered without being read whole:
     * the answer still comes. */
    int sent = tf_ctl_send_all(fd, line, strlen(line));
    int send_errno = errno;
    free(line);
    shutdown(fd, SHUT_WR);
    int rc = relay(fd, pid);
    close(fd);
    if (rc && sent < 0 && send_errno != EPIPE)
        fprintf(stderr, "tf-ctl: process %s: cannot send: %s\n", pid, strerror(send_errno));
    return rc;
}

/* Bad usage: what is wrong (with the nearest word meant), then how to ask. */
static int usage_error(const char *what, const char *word)
{
    static const char *const words[] = {"list", "--help"};
    char hint[128] = "";
    if (word) {
        tf_nearest near;
        tf_nearest_begin(&near, word);
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            tf_nearest_offer(&near, words[i]);
        tf_nearest_say(&near, hint, sizeof hint);
        tf_nearest_end(&near);
    }
    fprintf(stderr, "tf-ctl: %s%s%s (tf-ctl --help says how)\n", what, *hint ? "; " : "", hint);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(help, stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "list") == 0)
        return list();
    if (argc >= 3 && tf_ctl_canonical_pid(argv[1]))
        return command(argv[1], argc - 2, argv + 2);
    if (argc == 1) {
        fputs(help, stderr);
        return 2;
    }
    if (tf_ctl_canonical_pid(argv[1]))
        return usage_error("a command is needed after the process id", NULL);
    if (strcmp(argv[1], "list") == 0)
        return usage_error("list takes no arguments", NULL);
    if (argv[1][0] && strchr(" +-0123456789", argv[1][0])) { /* meant as a pid, not written as one */
        complain("'", argv[1], "' is not a process id (decimal digits, no sign, blanks or "
                              "leading zeros)");
        return 2;
    }
    char what[512], shown[400];
    tf__escape_str(shown, sizeof shown, argv[1]);
    snprintf(what, sizeof what, "'%s' is neither a process id nor 'list'", shown);
    return usage_error(what, argv[1]);
}
