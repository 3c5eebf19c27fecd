/*
 * timing_env.c: `timing` in TF_MONITORS (DESIGN.md section 3). One manager
 * for the process; its report goes at exit to TF_REPORT (".json" JSON,
 * ".csv" CSV, "-" or unset stderr, else text), and the event log to
 * TF_TIMING_TRACE as Chrome trace JSON when that is set. Files are created
 * as TF creates every file (tf__create_file: no symlinks, mode 0600).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "timing_internal.h"

static tt_manager *env_manager;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void env_write(const char *path, tf_timing_format format)
{
    if (strcmp(path, "-") == 0) {
        tf_timing_report((tf_timing_manager *)env_manager, stderr, format);
        return;
    }
    FILE *f = tf__create_file(path);
    if (!f) {
        fprintf(stderr, "tf: timing report: cannot create %s: %s\n", path, strerror(errno));
        return;
    }
    tf_timing_report((tf_timing_manager *)env_manager, f, format);
    fclose(f);
}

static void env_at_exit(void)
{
    int saved = errno;
    tf__in_monitor = 1; /* nothing monitored runs while we report */
    const char *report = tf__env_report();
    env_write(report ? report : "-", report ? tf_timing_format_for_path(report) : TF_TIMING_TEXT);
    const char *trace = secure_getenv("TF_TIMING_TRACE");
    if (trace && *trace)
        env_write(trace, TF_TIMING_CHROME_TRACE);
    tf__in_monitor = 0;
    errno = saved;
}

static void env_init(void)
{
    env_manager = tt_manager_new(1);
    if (!env_manager)
        return;
    const char *trace = secure_getenv("TF_TIMING_TRACE");
    if (trace && *trace)
        tf_timing_event_log((tf_timing_manager *)env_manager, 1u << 16);
    atexit(env_at_exit);
}

tf_factory *tf__timing_env_factory(void)
{
    pthread_once(&env_once, env_init);
    return env_manager ? &env_manager->factory : NULL;
}
