/*
 * actions.c: what tf-ctl's report and snapshot commands and the triggers of
 * the same names do.
 */
#include <string.h>

#include <tf/record.h>
#include <tf/timing.h>

#include "control.h"

static int report(const char *path, FILE *out, char *err, size_t errlen)
{
    tf_timing_manager *m = tf__timing_env_existing();
    if (!m) {
        snprintf(err, errlen, "no timing report: no group has the timing monitor");
        return -1;
    }
    if (!path || strcmp(path, "-") == 0) {
        tf_timing_report(m, path ? stderr : out, TF_TIMING_TEXT);
        return 0;
    }
    char why[TF_FILES_WHY];
    FILE *f = tf__create_file("tf-ctl report", path, TF_FILE_REPORT, tf__env_file_flags(), why);
    if (!f) { /* refused as every file TF writes can be */
        snprintf(err, errlen, "cannot write '%s': %s", path, why);
        return -1;
    }
    tf_timing_report(m, f, tf_timing_format_for_path(path));
    if (tf__close_file(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int snapshot(const char *dir, char *err, size_t errlen)
{
    switch (tf_record_snapshot(dir)) {
    case TF_OK:
        return 0;
    case TF_EINVAL:
        snprintf(err, errlen, "nothing recorded yet: no group has the factory record");
        return -1;
    default:
        snprintf(err, errlen, "cannot write the snapshot into %s (libtf said why on stderr)",
                 dir ? dir : "the recorder's directory");
        return -1;
    }
}

/* A termination signal lets a report or snapshot in progress finish first
 * (runtime/term.c). */
int tf__action_report(const char *path, FILE *out, char *err, size_t errlen)
{
    tf__term_busy(1);
    int rc = report(path, out, err, errlen);
    tf__term_busy(-1);
    return rc;
}

int tf__action_snapshot(const char *dir, char *err, size_t errlen)
{
    tf__term_busy(1);
    int rc = snapshot(dir, err, errlen);
    tf__term_busy(-1);
    return rc;
}
