/*
 * tf-ctl: switch tracing of a running program that serves a control socket
 * (TF_CONTROL=1; DESIGN.md section 10). It sends one request line and prints
 * the answer; the program does all the work, so tf-ctl links nothing of TF.
 */
#define _GNU_SOURCE
#include <dirent.h>
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

#include "nearest.h"

#define ANSWER_WAIT_MS 10000

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
    "CONDITION: time|depth|ARGUMENT OP VALUE [and ...], OP one of == != < <= > >=\n"
    "  e.g. 'if time > 10ms', 'if depth <= 2 and fd == 3', 'if path == \"/etc\"'\n"
    "EVENT: enter, exit, throw. ACTION: register GROUP=..., clear GROUP, snapshot, report\n"
    "See README.md, 'Turning tracing on'.\n";

static void socket_dir(char *out, size_t max)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/')
        snprintf(out, max, "%s/tf", xdg);
    else
        snprintf(out, max, "/tmp/tf-%u", (unsigned)geteuid());
}

static int list(void)
{
    char dir[256];
    socket_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* nothing serves: an empty list */
    for (struct dirent *e; (e = readdir(d));) {
        char *end, exe[512] = "?", link[64];
        long pid = strtol(e->d_name, &end, 10);
        if (pid <= 0 || strcmp(end, ".sock") != 0 || kill((pid_t)pid, 0) != 0)
            continue;
        snprintf(link, sizeof link, "/proc/%ld/exe", pid);
        ssize_t n = readlink(link, exe, sizeof exe - 1);
        if (n > 0)
            exe[n] = 0;
        printf("%ld\t%s\n", pid, exe);
    }
    closedir(d);
    return 0;
}

static int connect_to(const char *pid)
{
    char dir[256];
    socket_dir(dir, sizeof dir);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (snprintf(addr.sun_path, sizeof addr.sun_path, "%s/%s.sock", dir, pid) >=
        (int)sizeof addr.sun_path) {
        fprintf(stderr, "tf-ctl: socket path too long under %s\n", dir);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
        return fd;
    fprintf(stderr, "tf-ctl: process %s serves no control socket at %s: %s "
                    "(was it started with TF_CONTROL=1?)\n", pid, addr.sun_path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
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

/* Reads the whole answer; NULL if the program did not answer in time. */
static char *receive(int fd)
{
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    struct pollfd p = {fd, POLLIN, 0};
    while (buf && poll(&p, 1, ANSWER_WAIT_MS) == 1) {
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

static int command(const char *pid, int argc, char **argv)
{
    char *line = request(argc, argv);
    if (!line)
        return 2;
    int fd = connect_to(pid);
    if (fd < 0) {
        free(line);
        return 1;
    }
    /* A refused peer is answered without being read: the answer still comes. */
    int sent = send_all(fd, line, strlen(line));
    int send_errno = errno;
    free(line);
    char *answer = receive(fd);
    close(fd);
    if (!answer || (sent < 0 && !answer[0])) {
        if (sent < 0)
            fprintf(stderr, "tf-ctl: process %s: cannot send: %s\n", pid, strerror(send_errno));
        else
            fprintf(stderr, "tf-ctl: process %s did not answer within %d s\n", pid,
                    ANSWER_WAIT_MS / 1000);
        free(answer);
        return 1;
    }
    int ok = strncmp(answer, "ok\n", 3) == 0;
    if (ok)
        fputs(answer + 3, stdout);
    else
        fprintf(stderr, "tf-ctl: process %s: %s", pid, answer[0] ? answer : "no answer\n");
    free(answer);
    return ok ? 0 : 1;
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
    char *end;
    int pid = argc >= 2 && strtol(argv[1], &end, 10) > 0 && !*end;
    if (pid && argc >= 3)
        return command(argv[1], argc - 2, argv + 2);
    if (argc == 1)
        return fputs(help, stderr), 2;
    if (pid)
        return usage_error("a command is needed after the process id", NULL);
    if (strcmp(argv[1], "list") == 0)
        return usage_error("list takes no arguments", NULL);
    char what[512], shown[400];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)argv[1]; *p && n + 8 < sizeof shown; p++)
        n += (size_t)snprintf(shown + n, sizeof shown - n, *p < 0x20 || *p == 0x7f ? "\\x%02x" : "%c", *p);
    snprintf(what, sizeof what, "'%s' is neither a process id nor 'list'", shown);
    return usage_error(what, argv[1]);
}
