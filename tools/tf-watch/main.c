/*
 * tf-watch: the failure detector outside the process (README.md here;
 * docs/design.md .wd.outside). It runs a program (or attaches to one that
 * serves TF_CONTROL), stays outside it and reports what the process cannot
 * report about itself: its death by a signal, and whether the OOM killer
 * did it; a non-zero exit; a hang (--hang: no answer on the control socket,
 * or no monitored call moving). Each verdict names the flight recording and
 * whether tf-dump can read it, and goes to --log as one JSON object. The
 * program's exit status is passed through (a death by signal N: 128+N).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "watch.h"
#include "../../runtime/config.h"
#include "../../runtime/internal.h"
#include "../../runtime/files.h"

#define TICK_MS 100
#define OWN_FAILURE 125 /* tf-watch's own trouble, as timeout(1) has it */

static const char usage[] =
    "usage: tf-watch [OPTIONS] -- PROGRAM [ARGS...]\n"
    "       tf-watch [OPTIONS] --pid PID\n"
    "\n"
    "Runs PROGRAM (or watches process PID, which serves TF_CONTROL=1) from outside and says\n"
    "how it ended: killed by a signal (and whether the kernel's OOM killer did it), a non-zero\n"
    "exit, a hang; then whether its flight recording is readable, and where. The exit status\n"
    "is PROGRAM's (128+N after signal N).\n"
    "  --hang DURATION        a hang: no answer on its control socket, or no monitored call\n"
    "                         entered or left while calls are open, for DURATION (2s, 500ms);\n"
    "                         PROGRAM runs with TF_CONTROL=1 and TF_WATCHDOG=DURATION\n"
    "  --on-hang=report|kill|abort   after a hang's report (and a snapshot): nothing more,\n"
    "                         SIGKILL, or SIGABRT (a core dump); default report\n"
    "  --log FILE             append one JSON object per verdict\n"
    "PROGRAM also runs with TF_SAMPLE=1s (unless set): resource counters in its recording.\n"
    "See README.md, 'When it hangs or dies'.\n";

static pid_t child_pid;
static struct sigaction int_before, quit_before; /* what PROGRAM gets back */

/* SIGTERM and SIGHUP sent to tf-watch are the program's; SIGINT and SIGQUIT
 * from the terminal reach it directly (one process group), so tf-watch
 * ignores them as a shell waiting for its job does. */
static void forward(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

static int duration_arg(const char *s, uint64_t *ns)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t unit = strcmp(end, "ns") == 0 ? 1 : strcmp(end, "us") == 0 ? 1000
                  : strcmp(end, "ms") == 0 ? 1000000 : strcmp(end, "s") == 0 ? 1000000000 : 0;
    if (end == s || !unit || *s == '-' || v > UINT64_MAX / unit / 4 || v * unit < 10000000u)
        return -1;
    *ns = v * unit;
    return 0;
}

/* ---- the process's settings ---------------------------------------------------------- */

/* Does TF_MONITORS name the factory record? (an item "g=a+record if ...") */
static int asks_record(const char *monitors)
{
    for (const char *p = monitors ? strstr(monitors, "record") : NULL; p; p = strstr(p + 1, "record")) {
        char before = p == monitors ? ',' : p[-1], after = p[6];
        if (strchr("=+", before) && strchr("+, \t", after))
            return 1;
    }
    return 0;
}

/* The recording's directory as the recorder names it, made absolute from
 * the process's working directory at start. */
static void record_dir(watch *w, const char *dir, const char *cwd)
{
    char name[PATH_MAX];
    if (dir && *dir)
        snprintf(name, sizeof name, "%s", dir);
    else
        snprintf(name, sizeof name, "tf-record-%d", (int)w->pid);
    if (name[0] == '/' || !cwd)
        snprintf(w->record_dir, sizeof w->record_dir, "%s", name);
    else
        snprintf(w->record_dir, sizeof w->record_dir, "%s/%s", cwd, name);
}

/* An attached process's environment variable, from /proc/PID/environ. */
static char *environ_of(pid_t pid, const char *name, char *out, size_t len)
{
    char path[64], buf[65536];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    size_t k = strlen(name);
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
        buf[n] = 0;
        if (strncmp(buf + i, name, k) == 0 && buf[i + k] == '=') {
            snprintf(out, len, "%s", buf + i + k + 1);
            return out;
        }
    }
    return NULL;
}

/* ---- starting or attaching ---------------------------------------------------------- */

static void child_env(const watch *w)
{
    char hang[32];
    setenv("TF_SAMPLE", "1s", 0);
    if (w->hang_ns) {
        snprintf(hang, sizeof hang, "%llums", (unsigned long long)(w->hang_ns / 1000000u));
        setenv("TF_CONTROL", "1", 1);
        setenv("TF_WATCHDOG", hang, 0);
    }
}

/* Forks and execs argv; an exec failure comes back through a pipe. */
static int start(watch *w, char **argv)
{
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0)
        return -1;
    snprintf(w->program, sizeof w->program, "%s", argv[0]);
    w->records = asks_record(getenv("TF_MONITORS"));
    w->pid = fork();
    if (w->pid == 0) {
        close(report[0]);
        sigaction(SIGINT, &int_before, NULL);
        sigaction(SIGQUIT, &quit_before, NULL);
        child_env(w);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t unused = write(report[1], &e, sizeof e);
        (void)unused;
        _exit(e == ENOENT ? 127 : 126);
    }
    close(report[1]);
    int e = 0;
    ssize_t got = w->pid > 0 ? read(report[0], &e, sizeof e) : -1;
    close(report[0]);
    if (w->pid < 0 || got == (ssize_t)sizeof e) {
        fprintf(stderr, "tf-watch: cannot run ");
        tf__config_escaped(stderr, argv[0]);
        fprintf(stderr, ": %s\n", strerror(w->pid < 0 ? errno : e));
        if (w->pid > 0)
            waitpid(w->pid, NULL, 0);
        return e == ENOENT ? 127 : 126;
    }
    child_pid = w->pid;
    char cwd[PATH_MAX];
    record_dir(w, getenv("TF_RECORD"), getcwd(cwd, sizeof cwd));
    return 0;
}

static int attach(watch *w, const char *pid_text)
{
    char *end, exe[64], value[PATH_MAX], cwd[PATH_MAX], cwdlink[64];
    long pid = strtol(pid_text, &end, 10);
    if (*end || pid <= 0 || kill((pid_t)pid, 0) != 0) {
        fprintf(stderr, "tf-watch: --pid %s: no such process of yours\n", pid_text);
        return OWN_FAILURE;
    }
    w->pid = (pid_t)pid;
    snprintf(exe, sizeof exe, "/proc/%ld/exe", pid);
    ssize_t n = readlink(exe, w->program, sizeof w->program - 1);
    w->program[n > 0 ? n : 0] = 0;
    snprintf(cwdlink, sizeof cwdlink, "/proc/%ld/cwd", pid);
    n = readlink(cwdlink, cwd, sizeof cwd - 1);
    cwd[n > 0 ? n : 0] = 0;
    w->records = asks_record(environ_of(w->pid, "TF_MONITORS", value, sizeof value));
    record_dir(w, environ_of(w->pid, "TF_RECORD", value, sizeof value), n > 0 ? cwd : NULL);
    return 0;
}

/* ---- the end ------------------------------------------------------------------------ */

/* The wait status of an attached process, read from its zombie's
 * /proc/PID/stat (exit_code, field 52) before its parent reaps it; -1 if
 * it is gone already. */
static int zombie_status(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 52; field++)
        p = strchr(p + 1, ' ');
    return p ? atoi(p + 1) : -1;
}

/* sent: the signal tf-watch sent (--on-hang), or 0. */
static int ended(watch *w, int status, int sent)
{
    char line[1024];
    int readable;
    if (status < 0) {
        FILE *f = fmemopen(line, sizeof line, "w");
        put_program(f, w);
        fclose(f);
        say(w, "%s ended; its exit status went to its parent", line);
        readable = check_recording(w, w->record_dir);
        log_verdict(w, "ended", -1, 0, 0, NULL, w->record_dir, readable);
        return OWN_FAILURE;
    }
    if (WIFEXITED(status)) {
        int code = WEXITSTATUS(status);
        if (code == 0) {
            log_verdict(w, "exit", 0, 0, 0, NULL, NULL, 0);
            return 0;
        }
        FILE *f = fmemopen(line, sizeof line, "w");
        put_program(f, w);
        fclose(f);
        say(w, "%s exited with status %d", line, code);
        readable = check_recording(w, w->record_dir);
        log_verdict(w, "exit", code, 0, 0, NULL, w->record_dir, readable);
        return code;
    }
    int sig = WTERMSIG(status), oom = 0;
    char why[PATH_MAX + 128] = "";
    if (sig == SIGKILL && sent != SIGKILL)
        oom = oom_killed(why, sizeof why);
    FILE *f = fmemopen(line, sizeof line, "w");
    put_program(f, w);
    fprintf(f, " killed by %s%s", signal_name(sig), WCOREDUMP(status) ? " (core dumped)" : "");
    if (sent == sig)
        fprintf(f, ", sent by tf-watch (--on-hang=%s)", sig == SIGKILL ? "kill" : "abort");
    else if (oom)
        fprintf(f, ", by the kernel's OOM killer (%s)", why);
    else
        fprintf(f, "; not by the OOM killer");
    fclose(f);
    say(w, "%s", line);
    readable = check_recording(w, w->record_dir);
    log_verdict(w, oom ? "oom" : "killed", 128 + sig, sig, oom, oom ? why : NULL, w->record_dir, readable);
    return 128 + sig;
}

/* ---- watching ------------------------------------------------------------------------ */

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    return -1;
#endif
}

/* Waits a tick for the process to end; 1 if it has. Without a pidfd
 * (Linux before 5.3) a child is polled; an attached process cannot be. */
static int gone(const watch *w, int pidfd)
{
    if (pidfd >= 0) {
        struct pollfd p = {pidfd, POLLIN, 0};
        return poll(&p, 1, TICK_MS) == 1;
    }
    struct timespec tick = {0, TICK_MS * 1000000L};
    nanosleep(&tick, NULL);
    siginfo_t info = {0};
    return waitid(P_PID, w->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == w->pid;
}

static void hung(watch *w, const heartbeat *h, const char *what, int *sent)
{
    char line[1024], where[sizeof w->record_dir + 128], dir[sizeof w->record_dir + 32];
    FILE *f = fmemopen(line, sizeof line, "w");
    put_program(f, w);
    fclose(f);
    int snapped = hang_snapshot(w, h, dir, sizeof dir, where, sizeof where);
    say(w, "%s hung: %s; %s", line, what, where);
    int readable = snapped && check_recording(w, dir);
    log_verdict(w, "hang", -1, 0, 0, what, snapped ? dir : NULL, readable);
    if (w->on_hang != ON_HANG_REPORT) {
        int sig = w->on_hang == ON_HANG_KILL ? SIGKILL : SIGABRT;
        say(w, "sending %s (--on-hang=%s)", signal_name(sig), sig == SIGKILL ? "kill" : "abort");
        kill(w->pid, sig);
        *sent = sig;
    }
}

static int watch_it(watch *w)
{
    int pidfd = open_pidfd(w->pid), sent = 0, said_silent = 0;
    if (pidfd < 0 && !w->child) {
        fprintf(stderr, "tf-watch: --pid: cannot watch process %d: pidfd_open: %s\n", (int)w->pid,
                strerror(errno));
        return OWN_FAILURE;
    }
    heartbeat h = {.started = now_ns()};
    h.answered = h.moved = h.started;
    uint64_t beat = w->hang_ns / 4 < 1000000000u ? w->hang_ns / 4 : 1000000000u, next = h.started + beat;
    oom_watch(w->pid);
    while (!gone(w, pidfd)) {
        oom_watch(w->pid);
        uint64_t now = now_ns();
        if (!w->hang_ns || now < next || sent)
            continue;
        next = now + beat;
        char what[512];
        int change = hang_check(w, &h, now, what, sizeof what);
        if (change == 1) {
            hung(w, &h, what, &sent);
        } else if (change == 2) {
            char line[1024];
            FILE *f = fmemopen(line, sizeof line, "w");
            put_program(f, w);
            fclose(f);
            say(w, "%s moves again", line);
        } else if (!h.ever && now - h.started >= w->hang_ns && !said_silent++) {
            char line[1024];
            FILE *f = fmemopen(line, sizeof line, "w");
            put_program(f, w);
            fclose(f);
            say(w, "--hang cannot judge %s: %s", line, h.why);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    int status = -1;
    if (w->child)
        waitpid(w->pid, &status, 0);
    else
        status = zombie_status(w->pid);
    return ended(w, status, sent);
}

int main(int argc, char **argv)
{
    watch w = {0};
    const char *pid = NULL;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--hang") == 0 && i + 1 < argc) {
            if (duration_arg(argv[++i], &w.hang_ns) != 0) {
                fprintf(stderr, "tf-watch: --hang ");
                tf__config_escaped(stderr, argv[i]);
                fprintf(stderr, ": not a duration of 10ms or more (a number and ns, us, ms or s)\n");
                return OWN_FAILURE;
            }
        } else if (strncmp(a, "--on-hang=", 10) == 0) {
            const char *v = a + 10;
            w.on_hang = strcmp(v, "kill") == 0 ? ON_HANG_KILL : strcmp(v, "abort") == 0 ? ON_HANG_ABORT : 0;
            if (strcmp(v, "report") != 0 && !w.on_hang) {
                fprintf(stderr, "tf-watch: --on-hang=");
                tf__config_escaped(stderr, v);
                fprintf(stderr, ": expected report, kill or abort\n");
                return OWN_FAILURE;
            }
        } else if (strcmp(a, "--log") == 0 && i + 1 < argc) {
            w.log = argv[++i];
        } else if (strcmp(a, "--pid") == 0 && i + 1 < argc) {
            pid = argv[++i];
        } else {
            fprintf(stderr, "tf-watch: unknown option '");
            tf__config_escaped(stderr, a);
            fprintf(stderr, "'\n%s", usage);
            return OWN_FAILURE;
        }
    }
    if ((pid && i < argc) || (!pid && i + 1 >= argc)) {
        fputs(pid ? "tf-watch: --pid takes no PROGRAM\n" : usage, stderr);
        return OWN_FAILURE;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    snprintf(w.self_dir, sizeof w.self_dir, "%.*s", (int)(strrchr(self, '/') ? strrchr(self, '/') - self : 1), n > 0 ? self : ".");
    if (w.log && !(w.logf = tf__create_file("tf-watch --log", w.log, TF_FILE_WATCH_LOG,
                                            TF_FILES_KEEP, NULL)))
        return OWN_FAILURE; /* files.c said why */
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigaction(SIGINT, &ignore, &int_before);
    sigaction(SIGQUIT, &ignore, &quit_before);
    struct sigaction fw = {.sa_handler = forward, .sa_flags = SA_RESTART};
    sigaction(SIGTERM, &fw, NULL);
    sigaction(SIGHUP, &fw, NULL);
    w.child = !pid;
    int rc = pid ? attach(&w, pid) : start(&w, argv + i + 1);
    return rc ? rc : watch_it(&w);
}
