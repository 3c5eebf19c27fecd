/*
 * verdict.c: what tf-watch says, on stderr and in --log: the lines a user
 * reads (README "When it hangs or dies") and one JSON object per verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "watch.h"
#include "../../runtime/config.h"

#define DUMP_WAIT_S 60 /* a tf-dump that reads longer is stopped: the recording is in doubt */

uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

const char *signal_name(int sig)
{
    static char other[16];
    const char *abbrev = sigabbrev_np(sig);
    if (!abbrev) {
        snprintf(other, sizeof other, "signal %d", sig);
        return other;
    }
    snprintf(other, sizeof other, "SIG%s", abbrev);
    return other;
}

void put_program(FILE *out, const watch *w)
{
    tf__config_escaped(out, w->program);
    fprintf(out, " (pid %d)", (int)w->pid);
}

void say(const watch *w, const char *fmt, ...)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return;
    fputs("tf-watch: ", out);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fclose(out);
    fputs(text, stderr); /* one line, whole */
    free(text);
    (void)w;
}

/* ---- the recording ---------------------------------------------------------------- */

/* tf-dump beside tf-watch (installed), in the build tree, or on PATH. */
static void find_dump(const watch *w, char *out, size_t len)
{
    const char *places[] = {"%s/tf-dump", "%s/../tf-dump/tf-dump"};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        snprintf(out, len, places[i], w->self_dir);
        if (access(out, X_OK) == 0)
            return;
    }
    snprintf(out, len, "tf-dump");
}

extern char **environ;

static void no_tf_environment(void)
{
    for (size_t i = 0; environ[i];) {
        size_t n = strcspn(environ[i], "=");
        char name[256];
        if (strncmp(environ[i], "TF_", 3) == 0 && n < sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)n, environ[i]);
            unsetenv(name);
        } else {
            i++;
        }
    }
}

/* Runs tf-dump DIR, its output dropped; its first line of stderr in err.
 * Returns its exit status, -1 if it could not run or took too long. */
static int run_dump(const char *dump, const char *dir, char *err, size_t len)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(pipefd[1], 2);
        no_tf_environment(); /* tf-dump links libtf: the program's settings are not its own */
        execlp(dump, dump, dir, (char *)NULL);
        dprintf(2, "cannot run %s: %s\n", dump, strerror(errno));
        _exit(127);
    }
    close(pipefd[1]);
    size_t n = 0;
    int late = 0;
    err[0] = 0;
    struct pollfd p = {pipefd[0], POLLIN, 0};
    for (uint64_t deadline = now_ns() + DUMP_WAIT_S * 1000000000ull; pid > 0;) {
        if (now_ns() >= deadline) {
            late = 1;
            break;
        }
        int ready = poll(&p, 1, 100);
        if (ready <= 0) {
            if (ready < 0 && errno != EINTR)
                break;
            continue;
        }
        char buf[512];
        ssize_t r = read(pipefd[0], buf, sizeof buf);
        if (r <= 0)
            break; /* it closed stderr: it is ending */
        for (ssize_t i = 0; i < r && n + 1 < len; i++)
            err[n++] = buf[i];
        err[n] = 0;
    }
    close(pipefd[0]);
    int status = 0;
    if (pid > 0 && late)
        kill(pid, SIGKILL);
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || late)
        return -1;
    err[strcspn(err, "\n")] = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int check_recording(const watch *w, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (w->records)
            say(w, "no recording left (none at %s)", dir);
        return 0;
    }
    char dump[PATH_MAX + 32], err[512];
    find_dump(w, dump, sizeof dump);
    int rc = run_dump(dump, dir, err, sizeof err);
    if (rc == 0)
        say(w, "recording readable at %s (tf-dump %s)", dir, dir);
    else if (rc == 127)
        say(w, "recording at %s not checked: %s", dir, err);
    else if (rc < 0)
        say(w, "recording at %s not checked: tf-dump did not finish in %d s", dir, DUMP_WAIT_S);
    else
        say(w, "recording at %s is damaged: %s", dir, err[0] ? err : "tf-dump failed");
    return rc == 0;
}

void format_duration(char *out, size_t len, uint64_t ns)
{
    if (ns >= 1000000000u)
        snprintf(out, len, "%.2f s", (double)ns / 1e9);
    else
        snprintf(out, len, "%.1f ms", (double)ns / 1e6);
}

/* ---- --log ------------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void log_verdict(watch *w, const char *verdict, int status, int sig, int oom, const char *detail,
                 const char *trace, int readable)
{
    if (!w->logf)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    fprintf(f, "{\"time\": \"%s.%03ldZ\", \"pid\": %d, \"program\": ", when, ts.tv_nsec / 1000000, (int)w->pid);
    json_string(f, w->program);
    fprintf(f, ", \"verdict\": \"%s\", ", verdict);
    status >= 0 ? fprintf(f, "\"status\": %d, ", status) : fputs("\"status\": null, ", f);
    if (sig)
        fprintf(f, "\"signal\": \"%s\", \"signal_number\": %d, ", signal_name(sig), sig);
    else
        fputs("\"signal\": null, \"signal_number\": null, ", f);
    fprintf(f, "\"oom\": %s, \"detail\": ", oom ? "true" : "false");
    detail ? json_string(f, detail) : (void)fputs("null", f);
    fputs(", \"trace\": ", f);
    struct stat st;
    if (trace && stat(trace, &st) != 0)
        trace = NULL; /* none was left */
    trace ? json_string(f, trace) : (void)fputs("null", f);
    fprintf(f, ", \"trace_readable\": %s}\n", !trace ? "null" : readable ? "true" : "false");
    fclose(f);
    fputs(text, w->logf);
    fflush(w->logf);
    free(text);
}
