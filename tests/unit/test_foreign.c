/* Foreign code that forks while libtf runs it: a factory's create, a
 * monitor's hook, and the constructor of a factory library libtf loads, each
 * asked for by TF_MONITORS, tf_register and the control socket
 * (foreign_probe.c says what each run checks). Every run must end, and the
 * child of every fork must find all of libtf's locks free. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <sys/stat.h>

static char dir[] = "/tmp/tf-foreign.XXXXXX";

/* The probe's status within 60 s (it arms its own 40 s alarm); its output
 * is shown when it fails. */
static int run(const char *site, const char *way)
{
    char out[4200], run_dir[4096], xdg[4200];
    snprintf(run_dir, sizeof run_dir, "%s/%s-%s", dir, site, way);
    snprintf(xdg, sizeof xdg, "%s/xdg", run_dir);
    snprintf(out, sizeof out, "%s/probe.out", run_dir);
    if (mkdir(run_dir, 0700) != 0 || mkdir(xdg, 0700) != 0)
        return -1;
    const char *factory = strcmp(site, "create") == 0 ? "io=fork_create"
                          : strcmp(site, "hook") == 0 ? "io=fork_hook" : "io=forkdl";
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        freopen(out, "w", stdout);
        dup2(1, 2);
        setenv("FOREIGN_DIR", run_dir, 1);
        setenv("XDG_RUNTIME_DIR", xdg, 1);
        setenv("TSAN_OPTIONS", "die_after_fork=0", 1);
        unsetenv("TF_MONITORS");
        unsetenv("TF_CONTROL");
        if (strcmp(way, "env") == 0)
            setenv("TF_MONITORS", factory, 1);
        /* libtf forks in its own constructor for env dlopen, before it serves */
        if (!(strcmp(way, "env") == 0 && strcmp(site, "dlopen") == 0))
            setenv("TF_CONTROL", "1", 1);
        execl(FOREIGN_PROBE, "foreign_probe", site, way, (char *)NULL);
        _exit(127);
    }
    int status = -1;
    for (int i = 0; i < 600 && waitpid(pid, &status, WNOHANG) == 0; i++)
        usleep(100000);
    if (waitpid(pid, &status, WNOHANG) == 0) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        status = -1;
    }
    int rc = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc != 0) {
        char text[8192];
        FILE *f = fopen(out, "r");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        text[n] = 0;
        if (f)
            fclose(f);
        print_message("foreign_probe %s %s: status %d%s\n%s\n", site, way, rc,
                      rc == -1 ? " (hung: killed after 60 s)" : "", text);
    }
    return rc;
}

#define CASE(site, way)                                                        \
    static void site##_##way(void **state)                                     \
    {                                                                          \
        assert_int_equal(run(#site, #way), 0);                                 \
    }
CASE(create, env)
CASE(create, register)
CASE(create, ctl)
CASE(hook, env)
CASE(hook, register)
CASE(hook, ctl)
CASE(dlopen, env)
CASE(dlopen, register)
CASE(dlopen, ctl)

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_env), cmocka_unit_test(create_register), cmocka_unit_test(create_ctl),
        cmocka_unit_test(hook_env),   cmocka_unit_test(hook_register),   cmocka_unit_test(hook_ctl),
        cmocka_unit_test(dlopen_env), cmocka_unit_test(dlopen_register), cmocka_unit_test(dlopen_ctl),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!failed && system(cmd) != 0)
        return 1;
    return failed;
}
