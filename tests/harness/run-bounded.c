/*
 * run-bounded: runs a test (or the whole suite) so that it ends by its own
 * deadline and leaves no process behind (docs/design.md .test.bounded).
 *
 *   run-bounded [--deadline SECONDS] [--grace SECONDS] -- COMMAND [ARGS...]
 *
 * - run-bounded is a child subreaper (PR_SET_CHILD_SUBREAPER): every process
 *   COMMAND starts stays below it, daemons that detach themselves included
 *   (lttng-sessiond --daemonize), so it can find them all in /proc.
 * - COMMAND dies if run-bounded is killed (PR_SET_PDEATHSIG), and runs in a
 *   process group of its own.
 * - At the deadline (shorter than ctest's TIMEOUT, so ctest's SIGKILL, which
 *   no trap sees, never comes): SIGTERM to COMMAND, whose trap cleans up;
 *   after the grace period (default 10 s), SIGKILL to everything below.
 *   Status 124, and a line saying so.
 * - When COMMAND ends, anything still running below is named on stderr
 *   ("left running: PID ARGS"), killed, and the status is 1 even if COMMAND
 *   passed: a test must clean up after itself.
 * - Otherwise the status is COMMAND's (77, a skip, passes through); death by
 *   signal N gives 128+N.
 * Without --deadline there is none (the suite as a whole under ./dev test).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SECONDS 86400

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The parent of pid from /proc/PID/stat, or -1. */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    char *close_paren = strrchr(buf, ')'); /* the command name may hold anything */
    int ppid;
    char state;
    if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2 || state == 'Z')
        return -1;
    return ppid;
}

/* The processes below us, at most max of them, in *out; their count. */
static int descendants(pid_t *out, int max)
{
    pid_t self = getpid();
    int n = 0;
    for (int grew = 1; grew;) { /* until no process has a parent in the set */
        grew = 0;
        DIR *d = opendir("/proc");
        for (struct dirent *e; d && (e = readdir(d)) && n < max;) {
            if (!isdigit((unsigned char)e->d_name[0]))
                continue;
            pid_t pid = (pid_t)atoi(e->d_name), ppid = parent_of(pid);
            int known = 0, below = ppid == self;
            for (int i = 0; i < n; i++) {
                known |= out[i] == pid;
                below |= out[i] == ppid;
            }
            if (below && !known) {
                out[n++] = pid;
                grew = 1;
            }
        }
        if (d)
            closedir(d);
    }
    return n;
}

static void say_process(pid_t pid)
{
    char path[64], args[256];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(args, 1, sizeof args - 1, f) : 0;
    if (f)
        fclose(f);
    for (size_t i = 0; i < n; i++)
        if (args[i] == 0)
            args[i] = ' ';
        else if (!isprint((unsigned char)args[i]))
            args[i] = '?';
    args[n] = 0;
    fprintf(stderr, "run-bounded: left running: %d %s\n", (int)pid, args);
}

/* Reaps what ended; the main child's status goes to *status. */
static void reap(pid_t child, int *status, int *done)
{
    int st;
    for (pid_t p; (p = waitpid(-1, &st, WNOHANG)) > 0;)
        if (p == child) {
            *status = st;
            *done = 1;
        }
}

/* Kills everything below (repeatedly: a dying script may start more). Said
 * first when quiet is 0. Returns how many were found the first time. */
static int kill_below(int say, pid_t child, int *status, int *done)
{
    pid_t v[4096];
    int first = -1;
    for (int round = 0; round < 50; round++) {
        int n = descendants(v, 4096);
        if (first < 0)
            first = n;
        if (n == 0)
            break;
        for (int i = 0; i < n; i++) {
            if (say && round == 0)
                say_process(v[i]);
            kill(v[i], SIGKILL);
        }
        usleep(20000);
        reap(child, status, done);
    }
    return first;
}

static int usage(void)
{
    fprintf(stderr, "usage: run-bounded [--deadline SECONDS] [--grace SECONDS] -- COMMAND [ARGS...]\n");
    return 2;
}

static int seconds(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0 && v <= MAX_SECONDS)) {
        fprintf(stderr, "run-bounded: '%s' is not a number of seconds (0 to %d)\n", s, MAX_SECONDS);
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    double deadline = 0, grace = 10;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        if (i + 1 >= argc)
            return usage();
        double *to = strcmp(argv[i], "--deadline") == 0 ? &deadline
                     : strcmp(argv[i], "--grace") == 0  ? &grace : NULL;
        if (!to)
            return usage();
        if (seconds(argv[i + 1], to) != 0)
            return 2;
    }
    if (i + 1 >= argc)
        return usage();
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        perror("run-bounded: PR_SET_CHILD_SUBREAPER");
        return 2;
    }
    pid_t self = getpid(), child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != self)
            _exit(125);
        setpgid(0, 0);
        execvp(argv[i + 1], argv + i + 1);
        fprintf(stderr, "run-bounded: cannot run %s: %s\n", argv[i + 1], strerror(errno));
        _exit(127);
    }
    if (child < 0) {
        perror("run-bounded: fork");
        return 2;
    }
    double start = now(), termed = 0;
    int status = 0, done = 0, late = 0;
    while (!done) {
        usleep(50000);
        reap(child, &status, &done);
        double t = now() - start;
        if (!done && deadline > 0 && t >= deadline && !termed) {
            fprintf(stderr, "run-bounded: %s still running after %g s: stopping it\n", argv[i + 1],
                    deadline);
            kill(-child, SIGTERM);
            termed = t;
            late = 1;
        } else if (!done && termed && t >= termed + grace) {
            kill_below(0, child, &status, &done);
        }
    }
    int left = kill_below(!late, child, &status, &done);
    if (late)
        return 124;
    if (left) {
        fprintf(stderr, "run-bounded: %d process%s left running by %s, killed\n", left,
                left == 1 ? "" : "es", argv[i + 1]);
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
