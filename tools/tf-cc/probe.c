/* probe.c: see probe.h. GCC's first line ends with its version ("gcc (Debian
 * 12.2.0-14) 12.2.0"); Clang's says "clang version 14.0.6". */
#include "probe.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Runs cmd --version with stdout into buf. */
static int run_version(char *const *cmd, char *buf, size_t size)
{
    int n = 0, fds[2];
    while (cmd[n])
        n++;
    char *argv[n + 2];
    memcpy(argv, cmd, (size_t)n * sizeof *argv);
    argv[n] = "--version";
    argv[n + 1] = NULL;
    if (pipe(fds) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    size_t len = 0;
    ssize_t got;
    while (rc == 0 && len + 1 < size && (got = read(fds[0], buf + len, size - len - 1)) > 0)
        len += (size_t)got;
    buf[len] = 0;
    close(fds[0]);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return 0;
}

static void copy_version(const char *from, tf_cc_compiler *out)
{
    size_t n = strspn(from, "0123456789.");
    if (n >= sizeof out->version)
        n = sizeof out->version - 1;
    memcpy(out->version, from, n);
    out->version[n] = 0;
}

/* The first line, for messages about what TF_CC turned out to be. */
static void keep_first_line(const char *text, tf_cc_compiler *out)
{
    size_t n = strcspn(text, "\n");
    if (n >= sizeof out->said)
        n = sizeof out->said - 1;
    for (size_t i = 0; i < n; i++)
        out->said[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? '?' : text[i];
    out->said[n] = 0;
}

int tf_cc_probe(char *const *cmd, tf_cc_compiler *out)
{
    char text[4096];
    out->kind = TF_CC_UNKNOWN;
    out->version[0] = 0;
    out->said[0] = 0;
    if (run_version(cmd, text, sizeof text) != 0)
        return -1;
    keep_first_line(text, out);
    const char *clang = strstr(text, "clang version ");
    if (clang) {
        out->kind = TF_CC_CLANG;
        copy_version(clang + strlen("clang version "), out);
        return 0;
    }
    /* GCC's second paragraph; other GNU programs (coreutils' true) have the
     * Foundation's copyright and a version too, but say "you are free to
     * change and redistribute it". */
    char *eol = strchr(text, '\n');
    if (!eol || !strstr(text, "Free Software Foundation") ||
        !strstr(text, "see the source for copying conditions"))
        return 0;
    *eol = 0;
    const char *last = strrchr(text, ' ');
    out->kind = TF_CC_GCC;
    copy_version(last ? last + 1 : text, out);
    return 0;
}
