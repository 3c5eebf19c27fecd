/* Scale (docs/design.md .rel.limit): group look-ups were a linear walk, so
 * 100,000 groups in TF_MONITORS took 101 s to start. Not a timed assertion:
 * ctest's TIMEOUT (60 s) fails it if anything quadratic comes back; at
 * 1,000,000 groups a linear look-up would need hours. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <tf/monitors.h>

#include "fake_tu.h"

#ifndef REGISTERED
#define REGISTERED 1000000
#define NAMED 100000
#endif

/* The path a rules file or a control tool takes: one tf_register per group. */
static void million_groups_registered(void **state)
{
    char name[32];
    tf_factory *noop = tf_noop();
    for (int i = 0; i < REGISTERED; i++) {
        snprintf(name, sizeof name, "group_%d", i);
        assert_int_equal(tf_register(name, noop), TF_OK);
    }
    for (int i = 0; i < REGISTERED; i += 997) {
        snprintf(name, sizeof name, "group_%d", i);
        assert_ptr_equal(tf_registered_factory(name), noop);
    }
    assert_null(tf_registered_factory("group_x"));
    tf_tu_register(&iostream_tu); /* the TU's groups join the million */
    assert_true(tf_group_known("io_read"));
    assert_false(tf_group_known("group_7")); /* registered on, declared by none */
    tf_tu_unregister(&iostream_tu);
}

/* NAMED (100,000) items in TF_MONITORS (set by dl_probe before libtf loads), all
 * applied; each is reported at exit as declared by no loaded code, and the
 * one group the module has is traced. */
static void hundred_thousand_groups_in_tf_monitors(void **state)
{
    pid_t pid = fork();
    if (pid == 0) {
        freopen("scale.out", "w", stdout);
        freopen("scale.err", "w", stderr);
        setenv("TF_MONITORS", "io_read=dprint", 1);
        unsetenv("TF_OUTPUT");
        char count[16];
        snprintf(count, sizeof count, "%d", NAMED);
        execl(DL_PROBE, "dl_probe", count, (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    FILE *f = fopen("scale.err", "r");
    assert_non_null(f);
    char line[256];
    int traced = 0, undeclared = 0, other = 0, g;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "(dl_probe): iostream.read_int"))
            traced++;
        else if (sscanf(line, "tf: TF_MONITORS: no loaded code declares group 'g%d'", &g) == 1)
            undeclared++;
        else
            other++;
    }
    fclose(f);
    unlink("scale.err");
    unlink("scale.out");
    assert_int_equal(traced, 100);
    assert_int_equal(undeclared, NAMED);
    assert_int_equal(other, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(million_groups_registered),
        cmocka_unit_test(hundred_thousand_groups_in_tf_monitors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
