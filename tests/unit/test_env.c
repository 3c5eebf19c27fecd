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
#include <fcntl.h>
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
        const char *program = getenv("PROBE_PROGRAM");
        execl(program ? program : ENV_PROBE, "env_probe", (char *)NULL);
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
                     "dprint, noop, record, timing, tracer) 'dprnt'; did you mean 'dprint'?\n"},
        /* A name no factory can have is said at once, and how items are separated. */
        {"io=noop=tracer", "tf: TF_MONITORS: item 1 'io=noop=tracer': bad factory name "
                           "'noop=tracer'; items are separated by ','\n"},
        {"io=dprint;work=timing", "tf: TF_MONITORS: item 1 'io=dprint;work=timing': bad factory "
                                  "name 'dprint;work=timing'; items are separated by ','\n"},
        {"io=DPRINT", "tf: TF_MONITORS: item 1 'io=DPRINT': unknown factory (known: "
                      "dprint, noop, record, timing, tracer) 'DPRINT'; did you mean 'dprint'?\n"},
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
    assert_string_equal(err, "tf: TF_MONITORS: item 1 'io=\\x1b[2J': bad factory name '\\x1b[2J'; "
                             "a factory name is letters, digits, '_' and '-'\n");
    assert_int_equal(probe("io=noop", "TF_OUTPUT_BUFFER=\ttab'", NULL), 0);
    assert_string_equal(err, "tf: TF_OUTPUT_BUFFER: '\\ttab'' is neither 'line' nor 'full'; "
                             "using 'full'\n");
    /* C1 controls (CSI as U+009B) and bytes that are not UTF-8 are escaped
     * too (docs/design.md .msg.escape); well-formed UTF-8 text is shown as it
     * is. */
    assert_int_equal(probe("\xc3\xa9t\xc3\xa9=noop,io=\xc2\x9b" "2J\xff\xe2\x82", NULL, NULL), 0);
    assert_string_equal(err, "tf: TF_MONITORS: item 1 '\xc3\xa9t\xc3\xa9=noop': bad group name "
                             "'\xc3\xa9t\xc3\xa9'\n"
                             "tf: TF_MONITORS: item 2 'io=\\xc2\\x9b" "2J\\xff\\xe2\\x82': bad factory name "
                             "'\\xc2\\x9b" "2J\\xff\\xe2\\x82'; a factory name is letters, digits, '_' and '-'\n");
    assert_int_equal(probe("io_read=timing", "TF_REPORT=/no/such/\xc2\x85", NULL), 0);
    assert_string_equal(err, "tf: TF_REPORT: cannot write '/no/such/\\xc2\\x85': "
                             "No such file or directory\n");
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
                                "dprint, noop, record, timing, tracer) 'broken'; "));
    assert_non_null(strstr(err, "libtf-broken.so: undefined symbol: tf_test_symbol_nobody_defines\n"));
    assert_non_null(strstr(out, "io_write=noop[noop]\n"));

    assert_int_equal(probe("io_read=silent", NULL, NULL), 0);
    assert_non_null(strstr(err, "unknown factory (known: dprint, noop, record, timing, tracer) 'silent'; "));
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
                             "dprint, noop, other, record, timing, tracer) 'late'\n");
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

/* The recorder's variables are checked at start like every other: each bad
 * one named with its value and the default that applies instead. */
static void record_variables_are_checked(void **state)
{
    static const struct {
        const char *set, *said;
    } cases[] = {
        {"TF_RECORD_SIZE=3K", "tf: TF_RECORD_SIZE: '3K' is 3072 bytes, under the smallest size, "
                              "4K; using '1M'\n"},
        {"TF_RECORD_SIZE=1k", "tf: TF_RECORD_SIZE: '1k' is 1024 bytes, under the smallest size, "
                              "4K; using '1M'\n"},
        {"TF_RECORD_SIZE=1025G", "tf: TF_RECORD_SIZE: '1025G' is over the largest size, 1024G; "
                                 "using '1M'\n"},
        {"TF_RECORD_SIZE=4k", ""},
        {"TF_RECORD_SIZE=-4M", "tf: TF_RECORD_SIZE: '-4M' is not a size from 4K to 1024G "
                               "(a number with an optional K, M or G); using '1M'\n"},
        {"TF_RECORD_SIZE=64KB", "tf: TF_RECORD_SIZE: '64KB' is not a size from 4K to 1024G "
                                "(a number with an optional K, M or G); using '1M'\n"},
        {"TF_RECORD_SIZE=99999999999999999999", "tf: TF_RECORD_SIZE: '99999999999999999999' is "
         "not a size from 4K to 1024G (a number with an optional K, M or G); using '1M'\n"},
        {"TF_RECORD_SIZE=4096", ""},
        {"TF_RECORD_SIZE=1024g", ""},
        {"TF_RECORD_MODE=rings", "tf: TF_RECORD_MODE: 'rings' is neither 'ring' nor 'stream' "
                                 "(did you mean 'ring'?); using 'ring'\n"},
        {"TF_RECORD_VALUES=yes", "tf: TF_RECORD_VALUES: 'yes' is neither '0' nor '1'; using '1'\n"},
        {"TF_RECORD_WAIT=0", ""},
        {"TF_RECORD_WAIT=600000", ""},
        {"TF_RECORD_WAIT=600001", "tf: TF_RECORD_WAIT: '600001' is not a number of milliseconds "
                                  "from 0 to 600000; using '1000'\n"},
        {"TF_RECORD_WAIT=1s", "tf: TF_RECORD_WAIT: '1s' is not a number of milliseconds "
                              "from 0 to 600000; using '1000'\n"},
        {"TF_RECORD_WAIT=-1", "tf: TF_RECORD_WAIT: '-1' is not a number of milliseconds "
                              "from 0 to 600000; using '1000'\n"},
        {"TF_RECORD_WAIT=99999999999999999999999", "tf: TF_RECORD_WAIT: '99999999999999999999999' "
         "is not a number of milliseconds from 0 to 600000; using '1000'\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(probe("io=noop", cases[i].set, NULL), 0);
        assert_string_equal(err, cases[i].said);
    }
    assert_int_equal(probe(NULL, "TF_HELP=1", NULL), 0);
    assert_non_null(strstr(err, "\n  TF_RECORD_SIZE     record: bytes a thread, 4K to 1024G, "
                                "suffixes K, M, G [default: 1M]\n"));
    assert_non_null(strstr(err, "\n  record "));
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
                             "nothing was traced for it; did you mean 'io'?\n");
    /* Nothing near: no suggestion. */
    assert_int_equal(probe("nosuchgroup=dprint", NULL, NULL), 0);
    assert_string_equal(err, "tf: TF_MONITORS: no loaded code declares group 'nosuchgroup': "
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
    assert_non_null(strstr(err, "tf: TF_OUTPUT: cannot write 'link.txt': it is a symbolic link, "
                                "which TF never follows\n"));
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

static void write_file(const char *path, const char *text, mode_t mode)
{
    unlink(path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

/* Runs the probe with TF_OUTPUT=path and expects it refused with why. */
static void refused(const char *path, const char *why)
{
    char setting[256], said[512];
    snprintf(setting, sizeof setting, "TF_OUTPUT=%s", path);
    assert_int_equal(probe("io_read=dprint", setting, NULL), 0);
    snprintf(said, sizeof said, "tf: TF_OUTPUT: cannot write '%s': %s\n"
                                "tf: TF_OUTPUT: dprint writes to stderr instead\n", path, why);
    assert_non_null(strstr(err, said));
    assert_non_null(strstr(err, "(env_probe): iostream.read_int->(x=2)\n")); /* still traced */
}

/* A file TF does not own keeps its content, owner and mode (docs/design.md
 * .files.replace). */
static void output_never_goes_into_a_file_of_others(void **state)
{
    char text[256];
    struct stat st;
    write_file("planted.txt", "planted\n", 0666);
    refused("planted.txt", "others may write it (mode has group or other write permission)");
    slurp("planted.txt", text, sizeof text);
    assert_string_equal(text, "planted\n");
    if (geteuid() == 0) { /* as root: a 0644 file of another user */
        write_file("theirs.txt", "theirs\n", 0644);
        assert_int_equal(chown("theirs.txt", 65534, 65534), 0);
        refused("theirs.txt", "it belongs to uid 65534, not to this process's uid 0");
        slurp("theirs.txt", text, sizeof text);
        assert_string_equal(text, "theirs\n");
        unlink("theirs.txt");
    }
    unlink("planted.txt");

    /* A file of the user's own that TF did not write is kept too
     * (docs/design.md .files.replace), unless TF_OVERWRITE=1 says to replace it. */
    write_file("mine.txt", "old content, readable by all\n", 0644);
    refused("mine.txt", "it exists and is no dprint output TF wrote, which is all TF replaces "
                        "(remove it first, or set TF_OVERWRITE=1)");
    slurp("mine.txt", text, sizeof text);
    assert_string_equal(text, "old content, readable by all\n");
    assert_int_equal(stat("mine.txt", &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=mine.txt", "TF_OVERWRITE=1"), 0);
    assert_string_equal(err, "");
    slurp("mine.txt", text, sizeof text);
    assert_string_equal(text, "(env_probe): iostream.read_int->(x=2)\n(env_probe): iostream.read_int<-(4)\n");
    assert_int_equal(stat("mine.txt", &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    /* dprint output of an earlier run, made readable by all since: replaced,
     * and private again. */
    write_file("mine.txt", "(old): iostream.read_int->(x=1)\n", 0644);
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=mine.txt", NULL), 0);
    assert_string_equal(err, "");
    slurp("mine.txt", text, sizeof text);
    assert_string_equal(text, "(env_probe): iostream.read_int->(x=2)\n(env_probe): iostream.read_int<-(4)\n");
    assert_int_equal(stat("mine.txt", &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    unlink("mine.txt");
}

static void no_symlinked_directory_on_the_way(void **state)
{
    mkdir("realdir", 0700);
    unlink("realdir/t.txt");
    unlink("linkdir");
    assert_int_equal(symlink("realdir", "linkdir"), 0);
    refused("linkdir/t.txt", "directory 'linkdir' on the way is a symbolic link, which TF never follows");
    assert_int_equal(access("realdir/t.txt", F_OK), -1);
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=realdir/../realdir/t.txt", NULL), 0);
    assert_string_equal(err, "");
    assert_int_equal(access("realdir/t.txt", F_OK), 0);
    unlink("realdir/t.txt");
    unlink("linkdir");
    rmdir("realdir");
}

/* Item 5: nothing TF opens blocks the program; character devices are fine. */
static void fifos_and_directories_are_refused(void **state)
{
    unlink("fifo");
    assert_int_equal(mkfifo("fifo", 0600), 0);
    refused("fifo", "it is a FIFO (or socket) with no reader");
    int reader = open("fifo", O_RDONLY | O_NONBLOCK);
    assert_true(reader >= 0);
    refused("fifo", "it is a FIFO");
    assert_int_equal(probe("io_read=timing", "TF_REPORT=fifo", "TF_TIMING_TRACE=fifo"), 0);
    assert_non_null(strstr(err, "tf: TF_REPORT: cannot write 'fifo': it is a FIFO\n"));
    assert_non_null(strstr(err, "tf: TF_TIMING_TRACE: cannot write 'fifo': it is a FIFO\n"));
    close(reader);
    unlink("fifo");
    mkdir("adir", 0700);
    refused("adir", "Is a directory");
    rmdir("adir");
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=/dev/null", NULL), 0);
    assert_string_equal(err, "");
    /* links into /proc, to whatever the streams are (files here) */
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=/dev/stdout", NULL), 0);
    assert_string_equal(err, "");
    assert_non_null(strstr(out, "(env_probe): iostream.read_int->(x=2)\n(env_probe): iostream.read_int<-(4)\n"));
}

static void output_and_report_in_one_file_is_refused(void **state)
{
    unlink("same.txt");
    assert_int_equal(probe("io_read=dprint+timing", "TF_OUTPUT=same.txt", "TF_REPORT=same.txt"), 0);
    assert_string_equal(err, "tf: TF_REPORT: cannot write 'same.txt': "
                             "it is the file TF_OUTPUT already writes to\n");
    char trace[1024];
    slurp("same.txt", trace, sizeof trace);
    assert_string_equal(trace, "(env_probe): iostream.read_int->(x=2)\n(env_probe): iostream.read_int<-(4)\n");
    unlink("same.txt");
}

/* Item 10: a write error is said once, with what it lost. */
static void write_errors_are_reported_with_the_loss(void **state)
{
    const char *said = "tf: dprint: 2 lines (74 bytes) could not be written to TF_OUTPUT: "
                       "No space left on device\n";
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=/dev/full", NULL), 0);
    assert_string_equal(err, said);
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=/dev/full", "TF_OUTPUT_BUFFER=line"), 0);
    assert_string_equal(err, said);
    assert_int_equal(probe("io_read=timing", "TF_REPORT=/dev/full", NULL), 0);
    assert_string_equal(err, "tf: TF_REPORT: writing '/dev/full' failed: No space left on device; "
                             "the report is incomplete\n");
}

/* Item 9: a parent and its child tracing at once into one buffered file. */
static void forked_lines_stay_whole(void **state)
{
    unlink("trace.txt");
    assert_int_equal(probe("io_read=dprint", "TF_OUTPUT=trace.txt", "PROBE_END=forkmany"), 0);
    assert_string_equal(err, "");
    FILE *f = fopen("trace.txt", "r");
    assert_non_null(f);
    char line[256];
    int n = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        int x, end = 0;
        n++;
        if (!(sscanf(line, "(env_probe): iostream.read_int->(x=%d)\n%n", &x, &end) == 1 && end) &&
            !(sscanf(line, "(env_probe): iostream.read_int<-(%d)\n%n", &x, &end) == 1 && end))
            bad++;
    }
    fclose(f);
    assert_int_equal(bad, 0);
    assert_int_equal(n, 2 + 4 * 20000);
    unlink("trace.txt");
}

/* Item 6: libtf loaded only with an instrumented library, and unloaded with
 * it unless it never unloads: TF_OUTPUT was reopened (truncated, an fd
 * leaked) on every cycle, and a typo was never reported. */
static void libtf_loaded_by_dlopen_stays(void **state)
{
    unlink("trace.txt");
    assert_int_equal(probe3("io_read=dprint,oi=noop", "TF_OUTPUT=trace.txt",
                            "PROBE_PROGRAM=" DL_PROBE, NULL), 0);
    int before, after;
    assert_int_equal(sscanf(out, "fds %d %d", &before, &after), 2);
    assert_int_equal(after, before + 1); /* TF_OUTPUT, once */
    assert_string_equal(err, "tf: TF_MONITORS: no loaded code declares group 'oi': "
                             "nothing was traced for it; did you mean 'io'?\n");
    FILE *f = fopen("trace.txt", "r");
    assert_non_null(f);
    char line[128], want[128];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        snprintf(want, sizeof want, n % 2 ? "(dl_probe): iostream.read_int<-(%d)\n"
                                          : "(dl_probe): iostream.read_int->(x=%d)\n",
                 n % 2 ? 2 * (n / 2) : n / 2);
        assert_string_equal(line, want);
        n++;
    }
    fclose(f);
    assert_int_equal(n, 100);
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
        cmocka_unit_test(record_variables_are_checked),
        cmocka_unit_test(help_lists_variables_and_factories),
        cmocka_unit_test(undeclared_group_is_reported_at_exit),
        cmocka_unit_test(output_file_is_private_and_never_a_link),
        cmocka_unit_test(output_file_buffering),
        cmocka_unit_test(output_never_goes_into_a_file_of_others),
        cmocka_unit_test(no_symlinked_directory_on_the_way),
        cmocka_unit_test(fifos_and_directories_are_refused),
        cmocka_unit_test(output_and_report_in_one_file_is_refused),
        cmocka_unit_test(write_errors_are_reported_with_the_loss),
        cmocka_unit_test(forked_lines_stay_whole),
        cmocka_unit_test(libtf_loaded_by_dlopen_stays),
        cmocka_unit_test(setuid_ignores_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
