/*
 * timing_env.c: `timing` in TF_MONITORS (docs/design.md .use.env). One manager
 * for the process; its report goes at exit to TF_REPORT (".json" JSON,
 * ".csv" CSV, "-" or unset stderr, else text), and the event log to
 * TF_TIMING_TRACE as Chrome trace JSON when that is set. Files are created
 * as TF creates every file (tf__create_file: no symlinks, mode 0600).
 *
 * A forked child reports only what it did, to "<TF_REPORT>.<pid>" (and
 * "<TF_TIMING_TRACE>.<pid>"), so it never overwrites its parent's report.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../config.h"
#include "timing_internal.h"

static tt_manager *env_manager;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
#define ENV_TRACE_EVENTS 65536u /* per thread, for TF_TIMING_TRACE */

static pid_t env_pid; /* the process that set the report up */

static void env_write(const char *var, const char *path, tf_timing_format format)
{
    if (strcmp(path, "-") == 0) {
        tf_timing_report((tf_timing_manager *)env_manager, stderr, format);
        return;
    }
    char forked[4096];
    if (getpid() != env_pid) {
        snprintf(forked, sizeof forked, "%s.%ld", path, (long)getpid());
        path = forked;
    }
    tf_file_kind kind = format == TF_TIMING_CHROME_TRACE ? TF_FILE_CHROME : TF_FILE_REPORT;
    FILE *f = tf__create_file(var, path, kind, tf__env_file_flags(), NULL);
    if (!f)
        return;
    tf_timing_report((tf_timing_manager *)env_manager, f, format);
    int failed = fflush(f) != 0 || ferror(f);
    int err = errno;
    if (tf__close_file(f) != 0 || failed) {
        fprintf(stderr, "tf: %s: writing '", var);
        tf__config_escaped(stderr, path);
        fprintf(stderr, "' failed: %s; the report is incomplete\n", strerror(failed ? err : errno));
    }
}

/* .req.nosilentcap: the trace's ring bound is said where people look, not
 * only inside the file. */
static void say_dropped(const char *trace)
{
    tt_manager *m = (tt_manager *)env_manager;
    tf__lock(&m->lock);
    uint64_t dropped = tt_dropped_events(m);
    tf__unlock(&m->lock);
    if (!dropped)
        return;
    fputs("tf: TF_TIMING_TRACE ", stderr);
    tf__config_escaped(stderr, trace);
    fprintf(stderr, " keeps the last %u calls of each thread: %llu older calls are not in it (the "
            "report counts them all; TF_MONITORS=...=record keeps every call)\n", ENV_TRACE_EVENTS,
            (unsigned long long)dropped);
}

static void env_at_exit(void)
{
    int saved = errno;
    tf__in_monitor = 1; /* nothing monitored runs while we report */
    const char *report = tf__config_get("TF_REPORT");
    env_write("TF_REPORT", report ? report : "-", report ? tf_timing_format_for_path(report) : TF_TIMING_TEXT);
    const char *trace = tf__config_get("TF_TIMING_TRACE");
    if (trace) {
        env_write("TF_TIMING_TRACE", trace, TF_TIMING_CHROME_TRACE);
        say_dropped(trace);
    }
    tf__in_monitor = 0;
    errno = saved;
}

/* The process-wide manager's locks, in their order (managers a program made
 * itself are its own to keep quiet across fork). */
void tf__timing_fork(int phase)
{
    tt_manager *m = __atomic_load_n(&env_manager, __ATOMIC_ACQUIRE);
    if (phase == TF_FORK_PREPARE) {
        tt_stack_fork(phase);
        if (m)
            tf__lock(&m->lock);
        return;
    }
    if (m)
        tf__unlock(&m->lock);
    tt_stack_fork(phase);
    if (m && phase == TF_FORK_CHILD)
        tt_forget_stats(m);
}

static void env_init(void)
{
    tt_manager *m = tt_manager_new(1);
    if (!m)
        return;
    env_pid = getpid();
    __atomic_store_n(&env_manager, m, __ATOMIC_RELEASE); /* fork reads it unlocked */
    if (tf__config_get("TF_TIMING_TRACE"))
        tf_timing_event_log((tf_timing_manager *)env_manager, ENV_TRACE_EVENTS);
    tf__at_exit(env_at_exit);
    tf__term_arm(); /* the report on SIGTERM and friends too */
}

static tf_factory *make_timing(const char *name)
{
    pthread_once(&env_once, env_init);
    return env_manager ? &env_manager->factory : NULL;
}
TF_ENV_FACTORY(timing, "timing", "timing points, reported at exit to TF_REPORT", make_timing)

tf_timing_manager *tf__timing_env_existing(void)
{
    return (tf_timing_manager *)__atomic_load_n(&env_manager, __ATOMIC_ACQUIRE);
}
