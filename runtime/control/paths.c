/*
 * paths.c: where a request on the control socket may have the program write
 * (`report FILE`, `snapshot DIR`, and the same actions of a trigger added
 * through the socket); docs/design.md .ctl.paths, README "Live control".
 *
 * The socket is a way into a process that may run as root with a working
 * directory and files of its own; a client of the same uid should not be
 * able to make it create files anywhere it can. So, unless the program was
 * started with TF_CONTROL=anywhere, a path must lie
 * - in the working directory: a relative path without a ".." component
 *   (files.c follows no symbolic link, so it cannot leave it), or an
 *   absolute one below getcwd(); a working directory of "/" (a daemon's)
 *   grants nothing;
 * - or in a directory the environment already gave TF: the parent
 *   directories of TF_RECORD, TF_REPORT, TF_TIMING_TRACE and TF_OUTPUT
 *   (never "/" and nothing under /dev: TF_OUTPUT=/dev/null grants nothing).
 * What files.c then refuses (links, other users' files, files TF did not
 * write) it refuses as for any file.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../config.h"
#include "control.h"

static int has_dotdot(const char *p)
{
    for (;;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (!n)
            return 0;
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 1;
        p += n;
    }
}

/* path without "." components and repeated slashes, into out. */
static void tidy(const char *path, char *out, size_t max)
{
    size_t at = 0;
    for (const char *p = path; *p && at + 2 < max;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n && !(n == 1 && *p == '.') && at + n + 2 < max) {
            out[at++] = '/';
            memcpy(out + at, p, n);
            at += n;
        }
        p += n;
    }
    out[at] = 0;
    if (!at && max > 1)
        strcpy(out, "/");
}

/* path (tidy) lies at or below dir (a real path). */
static int below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strcmp(dir, "/") != 0 && strncmp(path, dir, n) == 0 && (!path[n] || path[n] == '/');
}

/* The real parent directory of what the variable names, or "" if none. */
static void parent_of(const char *var, char *out)
{
    const char *v = tf__config_get(var);
    out[0] = 0;
    if (!v || strcmp(v, "-") == 0 || strncmp(v, "/dev/", 5) == 0)
        return;
    char *copy = strdup(v);
    if (!copy)
        return;
    char *slash = strrchr(copy, '/');
    const char *dir = !slash ? "." : slash == copy ? "/" : (*slash = 0, copy);
    if (!realpath(dir, out) || strncmp(out, "/dev/", 5) == 0 || strcmp(out, "/dev") == 0)
        out[0] = 0;
    free(copy);
}

static int in_tf_directory(const char *tidied)
{
    static const char *const vars[] = {"TF_RECORD", "TF_REPORT", "TF_TIMING_TRACE", "TF_OUTPUT"};
    char dir[PATH_MAX];
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        parent_of(vars[i], dir);
        if (dir[0] && below(tidied, dir))
            return 1;
    }
    return 0;
}

int tf__control_path_allowed(tf_cursor *c, const char *path)
{
    if (strcmp(tf__config_get("TF_CONTROL"), "anywhere") == 0)
        return 0;
    char shown[96], tidied[PATH_MAX], cwd[PATH_MAX];
    tf__escape(shown, sizeof shown, path);
    if (has_dotdot(path))
        return tf__cur_fail(c, "'%s' has a '..' component; a request may use one only if the "
                               "program runs with TF_CONTROL=anywhere", shown);
    int here = getcwd(cwd, sizeof cwd) && strcmp(cwd, "/") != 0; /* "/" grants nothing */
    tidy(path, tidied, sizeof tidied);
    if (path[0] != '/' ? here : (here && below(tidied, cwd)) || in_tf_directory(tidied))
        return 0;
    return tf__cur_fail(c, "'%s' is outside the working directory and TF's directories (those of "
                           "TF_RECORD, TF_REPORT, TF_TIMING_TRACE, TF_OUTPUT); allowed only with "
                           "TF_CONTROL=anywhere", shown);
}
