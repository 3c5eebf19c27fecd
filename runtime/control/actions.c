/*
 * actions.c: what tf-ctl's report and snapshot commands and the triggers of
 * the same names do.
 */
#include <string.h>

#include <tf/timing.h>

#include "control.h"

int tf__action_report(const char *path, FILE *out, char *err, size_t errlen)
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
    FILE *f = tf__create_file(path);
    if (!f) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    tf_timing_report(m, f, tf_timing_format_for_path(path));
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int tf__action_snapshot(const char *dir, char *err, size_t errlen)
{
    /* The flight recorder (DESIGN.md section 9) is not part of this build. */
    snprintf(err, errlen, "recording not available in this build");
    return -1;
}
