/* Environment activation, as a user meets it: env_probe run with TF_MONITORS,
 * TF_OUTPUT and TF_REPORT; every malformed form reported once, naming the item,
 * with the rest still applied; files created 0600 without following links. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <tf/monitors.h>

static char out[8192], err[8192];

static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

/* Runs env_probe with TF_MONITORS=monitors (NULL: unset) and up to three
 * extra "K=V" settings (NULL ones are none). */
static int probe3(const char *monitors, const char *extra1, const char *extra2, const char *extra3)
{
    pid_t pid = fork();
    if (pid == 0) {
        freopen("probe.out", "w", stdout);
        freopen("probe.err", "w", stderr);
        unsetenv("TF_MONITORS");
        unsetenv("TF_OUTPUT");
        unsetenv("TF_REPORT");
        if (monitors)
            setenv("TF_MONITORS", monitors, 1);
        if (extra1)
            putenv((char *)extra1);
        if (extra2)
            putenv((char *)extra2);
        if (extra3)
            putenv((char *)extra3);
        execl(ENV_PROBE, "env_probe", (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    slurp("probe.out", out, sizeof out);
    slurp("probe.err", err, sizeof err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int probe(const char *monitors, const char *extra1, const char *extra2)
{
    return probe3(monitors, extra1, extra2, NULL);
}

static void unset_means_nothing(void **state)
{
    assert_int_equal(probe(NULL, NULL, NULL), 0);
    assert_string_equal(out, "io=-\nio_read=-\nio_write=-\n");
    assert_string_equal(err, "");
}

static void one_group_dprint_to_stderr(void **state)
{
    assert_int_equal(probe("io=dprint", NULL, NULL), 0);
    assert_string_equal(out, "io=dprint\nio_read=-[dprint]\nio_write=-[dprint]\n");
    assert_string_equal(err, "(env_probe): iostream.read_int->(x=2)\n"
                             "(env_probe): iostream.read_int<-(4)\n"
                             "(env_probe): iostream.write_long->(value=7)\n"
                             "(env_probe): iostream.write_long::(odd_value)(msg=\"An odd value\", v=7)\n"
                             "(env_probe): iostream.write_long<-\n");
}

static void several_items_and_factories(void **state)
{
    assert_int_equal(probe(" io_read = noop+tracer , io_write=noop", NULL, NULL), 0);
    assert_string_equal(out, "io=-\nio_read=compose[noop+tracer]\nio_write=noop[noop]\n");
    assert_string_equal(err, "");
    /* the same group twice: both apply, each monitor once */
    assert_int_equal(probe("io=noop,io=tracer,io=noop", NULL, NULL), 0);
    assert_string_equal(out, "io=compose\nio_read=-[noop+tracer]\nio_write=-[noop+tracer]\n");
    /* subgroup and parent: composed in the holder */
    assert_int_equal(probe("io_read=tracer,io=noop", NULL, NULL), 0);
    assert_string_equal(out, "io=noop\nio_read=tracer[tracer+noop]\nio_write=-[noop]\n");
}

static void empty_items_are_nothing(void **state)
{
    assert_int_equal(probe("", NULL, NULL), 0);
    assert_string_equal(err, "");
    assert_int_equal(probe(" , ,", NULL, NULL), 0);
    assert_string_equal(out, "io=-\nio_read=-\nio_write=-\n");
    assert_string_equal(err, "");
}

static void malformed_items_are_named_and_the_rest_applies(void **state)
{
    static const struct {
        const char *value, *message;
    } cases[] = {
        {"io", "tf: TF_MONITORS: item 1 'io': expected group=factory[+factory...]\n"},
        {"=dprint", "tf: TF_MONITORS: item 1 '=dprint': empty group name\n"},
        {"i-o=noop", "tf: TF_MONITORS: item 1 'i-o=noop': bad group name 'i-o'\n"},
        {"9io=noop", "tf: TF_MONITORS: item 1 '9io=noop': bad group name '9io'\n"},
        {"io=", "tf: TF_MONITORS: item 1 'io=': empty factory name\n"},
        {"io=noop+", "tf: TF_MONITORS: item 1 'io=noop+': empty factory name\n"},
        {"io=+noop", "tf: TF_MONITORS: item 1 'io=+noop': empty factory name\n"},
        {"io=noop++tracer", "tf: TF_MONITORS: item 1 'io=noop++tracer': empty factory name\n"},
        {"io=dprnt", "tf: TF_MONITORS: item 1 'io=dprnt': unknown factory (known: "
                     "dprint, noop, timing, tracer) 'dprnt'\n"},
        {"io=noop=tracer", "tf: TF_MONITORS: item 1 'io=noop=tracer': unknown factory (known: "
                           "dprint, noop, timing, tracer) 'noop=tracer'\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char value[128], want[512];
        /* a good item after the bad one still applies */
        snprintf(value, sizeof value, "%s,io_write=noop", cases[i].value);
        assert_int_equal(probe(value, NULL, NULL), 0);
        snprintf(want, sizeof want, "%s", cases[i].message);
        assert_string_equal(err, want);
        assert_non_null(strstr(out, "io_write=noop[noop]\n"));
    }
    /* two bad items: two reports, numbered */
    assert_int_equal(probe("io=x,io_read=noop,io_write=", NULL, NULL), 0);
    assert_non_null(strstr(err, "item 1 'io=x': unknown factory"));
    assert_non_null(strstr(err, "item 3 'io_write=': empty factory name"));
    assert_non_null(strstr(out, "io_read=noop[noop]\n"));
}

/* Once there were at most 8 factories an item, the rest silently dropped. */
static void any_number_of_factories(void **state)
{
    assert_int_equal(probe("io_read=noop+noop+noop+noop+noop+noop+noop+noop+tracer", NULL, NULL), 0);
    assert_string_equal(out, "io=-\nio_read=compose[noop+tracer]\nio_write=-\n");
    assert_string_equal(err, "");
}

/* A bad value cannot write control characters to the terminal raw. */
static void bad_values_are_shown_escaped(void **state)
{
    assert_int_equal(probe("io=\033[2J\n", NULL, NULL), 0);
    assert_string_equal(err, "tf: TF_MONITORS: item 1 'io=\\x1b[2J': unknown factory (known: dprint, "
                             "noop, timing, tracer) '\\x1b[2J'\n");
    assert_int_equal(probe("io=noop", "TF_OUTPUT_BUFFER=\ttab'", NULL), 0);
    assert_string_equal(err, "tf: TF_OUTPUT_BUFFER: '\\ttab'' is neither 'line' nor 'full'; "
                             "using 'full'\n");
}

/* An unknown NAME loads libtf-NAME.so from libtf's directory, which publishes
 * NAME; a library that is there but fails says why. */
static void factory_library_beside_libtf(void **state)
{
    assert_int_equal(probe("io_read=counter+noop", NULL, NULL), 0);
    assert_string_equal(out, "io=-\nio_read=compose[counter+noop]\nio_write=-\n");
    assert_string_equal(err, "");

    assert_int_equal(probe("io_read=broken,io_write=noop", NULL, NULL), 0);
    assert_non_null(strstr(err, "tf: TF_MONITORS: item 1 'io_read=broken': unknown factory (known: "
                                "dprint, noop, timing, tracer) 'broken'; "));
    assert_non_null(strstr(err, "libtf-broken.so: undefined symbol: tf_test_symbol_nobody_defines\n"));
    assert_non_null(strstr(out, "io_write=noop[noop]\n"));

    assert_int_equal(probe("io_read=silent", NULL, NULL), 0);
    assert_non_null(strstr(err, "unknown factory (known: dprint, noop, timing, tracer) 'silent'; "));
    assert_non_null(strstr(err, "libtf-silent.so registered no factory 'silent'\n"));
}

/* A factory the program publishes after libtf started still serves the
 * items that named it; one never published is reported at exit. */
static void factory_published_later(void **state)
{
    assert_int_equal(probe("io_read=late+tracer,io_write=noop", "PROBE_FACTORY=late", NULL), 0);
    assert_string_equal(out, "io=-\nio_read=compose[late+tracer]\nio_write=noop[noop]\n");
    assert_string_equal(err, "");
    assert_int_equal(probe("io_read=late", "PROBE_FACTORY=other", NULL), 0);
    assert_string_equal(out, "io=-\nio_read=-\nio_write=-\n");
    assert_string_equal(err, "tf: TF_MONITORS: item 1 'io_read=late': unknown factory (known: "
                             "dprint, noop, other, timing, tracer) 'late'\n");
}

static tf_factory *make_nothing(const char *name)
{
    return NULL;
}

static void add_factory_checks_its_arguments(void **state)
{
    assert_int_equal(tf_env_add_factory("", make_nothing, "h"), TF_EINVAL);
    assert_int_equal(tf_env_add_factory(NULL, make_nothing, "h"), TF_EINVAL);
    assert_int_equal(tf_env_add_factory("a+b", make_nothing, "h"), TF_EINVAL);
    assert_int_equal(tf_env_add_factory("../x", make_nothing, "h"), TF_EINVAL);
    assert_int_equal(tf_env_add_factory("9lives", make_nothing, "h"), TF_EINVAL);
    assert_int_equal(tf_env_add_factory("mine", NULL, "h"), TF_EINVAL);
    assert_int_equal(tf_env_add_factory("dprint", make_nothing, "h"), TF_EPERM);
    assert_int_equal(tf_env_add_factory("my-own_2", make_nothing, NULL), TF_OK);
    assert_int_equal(tf_env_add_factory("my-own_2", make_nothing, "h"), TF_EPERM);
}

static void help_lists_variables_and_factories(void **state)
{
    assert_int_equal(probe(NULL, "TF_HELP=1", NULL), 0);
    assert_non_null(strstr(err, "\n  TF_MONITORS "));
    assert_non_null(strstr(err, "\n  TF_OUTPUT_BUFFER "));
    assert_non_null(strstr(err, " [default: full]\n"));
    assert_non_null(strstr(err, "\n  dprint "));
    assert_non_null(strstr(err, "\n  tracer "));
}

static void undeclared_group_is_reported_at_exit(void **state)
{
    assert_int_equal(probe("oi=dprint", NULL, NULL), 0);
    assert_string_equal(err, "tf: TF_MONITORS: no loaded code declares group 'oi': "
                             "nothing was traced for it\n");
}

static void output_file_is_private_and_never_a_link(void **state)
{
    unlink("trace.txt");
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=trace.txt", NULL), 0);
    assert_string_equal(err, "");
    char trace[1024];
    slurp("trace.txt", trace, sizeof trace);
    assert_string_equal(trace, "(env_probe): iostream.read_int->(x=2)\n"
                               "(env_probe): iostream.read_int<-(4)\n");
    struct stat st;
    assert_int_equal(stat("trace.txt", &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    unlink("victim.txt");
    unlink("link.txt");
    assert_int_equal(symlink("victim.txt", "link.txt"), 0);
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=link.txt", NULL), 0);
    assert_int_equal(access("victim.txt", F_OK), -1); /* not followed */
    assert_non_null(strstr(err, "tf: TF_OUTPUT: cannot create 'link.txt': "));
    assert_non_null(strstr(err, "(env_probe): iostream.read_int->(x=2)\n")); /* still traced */
    unlink("link.txt");
}

/* TF_OUTPUT is fully buffered (TF_OUTPUT_BUFFER=line: a write per line), yet
 * abort() and fork lose or repeat no line; _exit does lose the buffer, which
 * is what line mode is for. */
static void output_file_buffering(void **state)
{
    char trace[1024];
    const char *two = "(env_probe): iostream.read_int->(x=2)\n(env_probe): iostream.read_int<-(4)\n";

    unlink("trace.txt");
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=trace.txt", "PROBE_END=abort"), -1);
    slurp("trace.txt", trace, sizeof trace);
    assert_string_equal(trace, two);

    /* A fault: flushed, then handed on with its own siginfo (under ASan, whose
     * handler was there first, ASan reports it and exits 1). */
    unlink("trace.txt");
    assert_int_not_equal(probe("io_read=dprint", "TF_OUTPUT=trace.txt", "PROBE_END=segv"), 0);
    slurp("trace.txt", trace, sizeof trace);
    assert_string_equal(trace, two);

    unlink("trace.txt");
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=trace.txt", "PROBE_END=fork"), 0);
    slurp("trace.txt", trace, sizeof trace);
    assert_string_equal(trace, "(env_probe): iostream.read_int->(x=2)\n(env_probe): iostream.read_int<-(4)\n"
                               "(env_probe): iostream.read_int->(x=5)\n(env_probe): iostream.read_int<-(10)\n"
                               "(env_probe): iostream.read_int->(x=6)\n(env_probe): iostream.read_int<-(12)\n");

    unlink("trace.txt");
    assert_int_equal(probe3("io_read=dprint", "TF_OUTPUT=trace.txt", "TF_OUTPUT_BUFFER=line",
                            "PROBE_END=_exit"), 0);
    slurp("trace.txt", trace, sizeof trace);
    assert_string_equal(trace, two);

    unlink("trace.txt");
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=trace.txt", "TF_OUTPUT_BUFFER=sometimes"), 0);
    assert_string_equal(err, "tf: TF_OUTPUT_BUFFER: 'sometimes' is neither 'line' nor 'full'; using 'full'\n");
    slurp("trace.txt", trace, sizeof trace);
    assert_string_equal(trace, two);
    unlink("trace.txt");
}

/* A set-uid program run by another user must not obey the environment. */
static void setuid_ignores_environment(void **state)
{
    if (geteuid() != 0)
        skip();
    char dir[] = "/tmp/tf-suid-XXXXXX", copy[64], cmd[256];
    assert_non_null(mkdtemp(dir));
    chmod(dir, 0755);
    snprintf(copy, sizeof copy, "%s/env_probe", dir);
    snprintf(cmd, sizeof cmd, "cp %s %s && chmod 4755 %s", ENV_PROBE, copy, copy);
    assert_int_equal(system(cmd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        freopen("probe.out", "w", stdout);
        freopen("probe.err", "w", stderr);
        setenv("TF_MONITORS", "io=dprint", 1);
        if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
            _exit(126);
        execl(copy, "env_probe", (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    slurp("probe.out", out, sizeof out);
    slurp("probe.err", err, sizeof err);
    unlink(copy);
    rmdir(dir);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal(out, "io=-\nio_read=-\nio_write=-\n");
    assert_string_equal(err, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unset_means_nothing),
        cmocka_unit_test(one_group_dprint_to_stderr),
        cmocka_unit_test(several_items_and_factories),
        cmocka_unit_test(empty_items_are_nothing),
        cmocka_unit_test(malformed_items_are_named_and_the_rest_applies),
        cmocka_unit_test(any_number_of_factories),
        cmocka_unit_test(bad_values_are_shown_escaped),
        cmocka_unit_test(factory_library_beside_libtf),
        cmocka_unit_test(factory_published_later),
        cmocka_unit_test(add_factory_checks_its_arguments),
        cmocka_unit_test(help_lists_variables_and_factories),
        cmocka_unit_test(undeclared_group_is_reported_at_exit),
        cmocka_unit_test(output_file_is_private_and_never_a_link),
        cmocka_unit_test(output_file_buffering),
        cmocka_unit_test(setuid_ignores_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
