/* runtime/files.c, the one creator of TF's files, through its API (files.h):
 * what it replaces (recognised by content), what it refuses and why, its
 * directories, cleaning, files in use and a fork in the middle of a report
 * (docs/design.md .files.walk, .files.replace, .files.dir). Built from the
 * sources, as tf-dump builds them; runs in a fresh directory under the build
 * tree. */
#define _GNU_SOURCE
#include <fcntl.h>
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

#include "files.h"

static char why[TF_FILES_WHY];

static void put(const char *path, const char *text, mode_t mode)
{
    unlink(path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void put_bytes(const char *path, const void *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, p, n), (ssize_t)n);
    close(fd);
}

static const char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return st.st_mode & 07777;
}

/* Opens path as kind, writes "new", closes: 0, or -1 with why. */
static int write_as(const char *path, tf_file_kind kind, unsigned flags)
{
    int fd = tf__file_open(path, kind, flags, why);
    if (fd < 0)
        return -1;
    assert_int_equal(write(fd, "new", 3), 3);
    close(fd);
    return 0;
}

static char dir[64];

static int fresh_dir(void **state)
{
    static int n;
    snprintf(dir, sizeof dir, "files.%d.%d", (int)getpid(), n++);
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(chdir(dir), 0);
    tf__files_overwrite_hint = "set TF_OVERWRITE=1";
    return 0;
}

static int leave_dir(void **state)
{
    char rm[96];
    assert_int_equal(chdir(".."), 0);
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    return system(rm);
}

/* What TF wrote is recognised by its first bytes, per kind; anything else
 * is kept unless the overwrite flag says otherwise. */
static void replaces_only_what_tf_wrote(void **state)
{
    static const unsigned char magic[] = {0xc1, 0x1f, 0xfc, 0xc1, 1, 2};
    static const struct {
        tf_file_kind kind;
        const char *ours, *name;
    } cases[] = {
        {TF_FILE_DPRINT, "(main): app.f->(x=1)\n", "dprint output"},
        {TF_FILE_REPORT, "TF timing report: 3 of 3 timing points entered, 1 thread\n", "timing report"},
        {TF_FILE_REPORT, "{\n  \"format\": \"tf-timing-report\", \"version\": 1,\n", "timing report"},
        {TF_FILE_REPORT, "timer,tu,function,kind,group,count,total_ns,self_ns,min_ns\n", "timing report"},
        {TF_FILE_CHROME, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"tf timing\",", "timing trace"},
        {TF_FILE_CTF_METADATA, "/* CTF 1.8 */\n\ntrace {};\nenv {\n\ttracer_name = \"tf\";\n", "recording's metadata"},
        {TF_FILE_DUMP, "[12.000000001] (main): app.f->(x=1)\n", "tf-dump output"},
        {TF_FILE_DUMP, "{\"traceEvents\":[\n{}\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"origin_ns\":5}}\n",
         "tf-dump output"},
        {TF_FILE_DUMP, "# suggested by tf-dump --suggest-rules from r.json\n", "tf-dump output"},
        {TF_FILE_MANIFEST, "{\n  \"abi\": 3,\n  \"compiler\": \"gcc\",\n", "TF manifest"},
        {TF_FILE_MANIFEST, "{\n  \"abi\": 3,\n  \"tool\": \"tf-scan\",\n", "TF manifest"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        put("f", cases[i].ours, 0644);
        assert_int_equal(write_as("f", cases[i].kind, 0), 0);
        assert_string_equal(slurp("f"), "new");
        assert_int_equal(mode_of("f"), 0600);
        put("f", "someone's notes\n", 0600);
        assert_int_equal(write_as("f", cases[i].kind, 0), -1);
        char said[TF_FILES_WHY];
        snprintf(said, sizeof said, "it exists and is no %s TF wrote, which is all TF replaces "
                                    "(remove it first, or set TF_OVERWRITE=1)", cases[i].name);
        assert_string_equal(why, said);
        assert_string_equal(slurp("f"), "someone's notes\n");
        assert_int_equal(write_as("f", cases[i].kind, TF_FILES_OVERWRITE), 0);
        assert_string_equal(slurp("f"), "new");
    }
    put_bytes("f", magic, sizeof magic);
    assert_int_equal(write_as("f", TF_FILE_CTF_STREAM, 0), 0);
    put("f", "", 0644); /* empty: nothing to lose */
    assert_int_equal(write_as("f", TF_FILE_REPORT, 0), 0);
    assert_int_equal(mode_of("f"), 0600);
    /* dprint's mark is a line's opening, not any '(' */
    put("f", "(setq x 1)\n", 0600);
    assert_int_equal(write_as("f", TF_FILE_DPRINT, 0), -1);
    unlink("f");
}

static void refusals(void **state)
{
    assert_int_equal(write_as("new.txt", TF_FILE_REPORT, 0), 0);
    assert_int_equal(mode_of("new.txt"), 0600);
    assert_int_equal(link("new.txt", "second"), 0);
    assert_int_equal(write_as("new.txt", TF_FILE_REPORT, TF_FILES_OVERWRITE), -1);
    assert_string_equal(why, "it has other names (hard links), which TF never writes through");
    unlink("second");
    put("shared", "", 0620);
    assert_int_equal(write_as("shared", TF_FILE_REPORT, TF_FILES_OVERWRITE), -1);
    assert_string_equal(why, "others may write it (mode has group or other write permission)");
    assert_int_equal(symlink("new.txt", "link"), 0);
    assert_int_equal(write_as("link", TF_FILE_REPORT, TF_FILES_OVERWRITE), -1);
    assert_string_equal(why, "it is a symbolic link, which TF never follows");
    assert_int_equal(mkdir("sub", 0700), 0);
    assert_int_equal(symlink("sub", "sublink"), 0);
    assert_int_equal(write_as("sublink/x", TF_FILE_REPORT, 0), -1);
    assert_string_equal(why, "directory 'sublink' on the way is a symbolic link, which TF never follows");
    assert_int_equal(write_as("sub/../sub/x", TF_FILE_REPORT, 0), 0);
    assert_int_equal(mkdir("open", 0777), 0);
    assert_int_equal(chmod("open", 0777), 0);
    assert_int_equal(write_as("open/x", TF_FILE_REPORT, 0), -1);
    assert_string_equal(why, "directory 'open' on the way may be written by others and is not sticky");
    assert_int_equal(chmod("open", 01777), 0); /* as /tmp */
    assert_int_equal(write_as("open/x", TF_FILE_REPORT, 0), 0);
    assert_int_equal(write_as("sub/", TF_FILE_REPORT, 0), -1);
    assert_string_equal(why, "it names a directory");
    if (geteuid() != 0)
        return;
    /* as root: another user's directory on the way, a group root is not in */
    assert_int_equal(mkdir("theirs", 0755), 0);
    assert_int_equal(chown("theirs", 65534, 65534), 0);
    assert_int_equal(write_as("theirs/x", TF_FILE_REPORT, 0), -1);
    assert_string_equal(why, "directory 'theirs' on the way belongs to uid 65534, neither this "
                             "process's user nor root");
    assert_int_equal(chdir("theirs"), 0);
    assert_int_equal(write_as("x", TF_FILE_REPORT, 0), -1);
    assert_string_equal(why, "the working directory belongs to uid 65534, neither this process's "
                             "user nor root");
    assert_int_equal(chdir(".."), 0);
    assert_int_equal(mkdir("group", 0775), 0);
    assert_int_equal(chown("group", 0, 65534), 0);
    assert_int_equal(chmod("group", 0775), 0);
    assert_int_equal(write_as("group/x", TF_FILE_REPORT, 0), -1);
    assert_string_equal(why, "directory 'group' on the way may be written by a group this "
                             "process is not in, and is not sticky");
    assert_int_equal(chown("group", 0, 0), 0); /* root's own group */
    assert_int_equal(write_as("group/x", TF_FILE_REPORT, 0), 0);
}

/* A directory is TF's when empty or holding TF's metadata or streams; only
 * TF's own streams are cleaned out of it. */
static void directories(void **state)
{
    static const unsigned char magic[] = {0xc1, 0x1f, 0xfc, 0xc1, 9};
    mode_t old = umask(0277);
    int fd = tf__file_dir("t", 0, why);
    umask(old);
    assert_true(fd >= 0);
    assert_int_equal(mode_of("t"), 0700);
    close(fd);
    put_bytes("t/thread-1", magic, sizeof magic);
    put("t/thread-2", "junk\n", 0600);
    put_bytes("t/other-3", magic, sizeof magic);
    assert_int_equal(tf__file_dir("t", 0, why), -1);
    assert_string_equal(why, "it holds files and is no recording TF wrote (it has no metadata of "
                             "TF's), which is all TF writes into (remove it first, or set TF_OVERWRITE=1)");
    put("t/metadata", "/* CTF 1.8 */\nenv {\n\ttracer_name = \"tf\";\n", 0644);
    fd = tf__file_dir("t", 0, why);
    assert_true(fd >= 0);
    tf__file_clean(fd, "thread-", TF_FILE_CTF_STREAM);
    assert_int_equal(access("t/thread-1", F_OK), -1);
    assert_int_equal(access("t/thread-2", F_OK), 0);
    assert_int_equal(access("t/other-3", F_OK), 0);
    int m = tf__file_at(fd, "metadata", TF_FILE_CTF_METADATA, 0, why);
    assert_true(m >= 0);
    close(m);
    assert_int_equal(mode_of("t/metadata"), 0600);
    close(fd);
    assert_int_equal(chmod("t", 0750), 0);
    assert_int_equal(tf__file_dir("t", 0, why), -1);
    assert_string_equal(why, "it is open to group or others (TF wants 0700)");
    assert_int_equal(tf__file_dir("missing", TF_FILES_EXISTING, why), -1);
    assert_int_equal(access("missing", F_OK), -1);
    assert_int_equal(symlink("t", "tlink"), 0);
    assert_int_equal(tf__file_dir("tlink", 0, why), -1);
    assert_string_equal(why, "it is a symbolic link, which TF never follows");
}

/* Two writers of one file would interleave; a closed report is no longer
 * in use; a child drops the files its parent's threads were writing. */
static void files_in_use_and_fork(void **state)
{
    FILE *a = tf__create_file("TF_OUTPUT", "one.txt", TF_FILE_DPRINT, TF_FILES_SHARED, NULL);
    assert_non_null(a);
    assert_null(tf__create_file("TF_REPORT", "one.txt", TF_FILE_REPORT, TF_FILES_OVERWRITE, why));
    assert_string_equal(why, "it is the file TF_OUTPUT already writes to");
    FILE *r = tf__create_file("tf-ctl report", "r.txt", TF_FILE_REPORT, 0, why);
    assert_non_null(r);
    fputs("TF timing report: ", r);
    assert_int_equal(tf__close_file(r), 0);
    r = tf__create_file("tf-ctl report", "r.txt", TF_FILE_REPORT, 0, why);
    assert_non_null(r); /* again: it was closed */
    fputs("TF timing report: ", r);
    fflush(r);
    tf__files_fork(0); /* as runtime/init.c does */
    pid_t pid = fork();
    if (pid == 0) {
        tf__files_fork(2);
        FILE *c = tf__create_file("tf-ctl report", "r.txt", TF_FILE_REPORT, 0, why);
        FILE *o = tf__create_file("TF_REPORT", "one.txt", TF_FILE_REPORT, TF_FILES_OVERWRITE, why);
        _exit(!c ? 1 : o ? 2 : strcmp(why, "it is the file TF_OUTPUT already writes to") ? 3 : 0);
    }
    tf__files_fork(1);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_null(tf__create_file("TF_REPORT", "r.txt", TF_FILE_REPORT, 0, why));
    assert_string_equal(why, "it is the file tf-ctl report already writes to");
    tf__close_file(r);
    tf__close_file(a);
}

/* One line on stderr, the path and the reason escaped. */
static void said_escaped(void **state)
{
    int pipe_fds[2], saved = dup(2);
    assert_int_equal(pipe(pipe_fds), 0);
    dup2(pipe_fds[1], 2);
    tf__file_say("tf: TF_REPORT", "a\x1b[31mb", "directory 'a\x1b[31mb' \xc2\x9b");
    dup2(saved, 2);
    close(pipe_fds[1]);
    char got[256] = "";
    ssize_t n = read(pipe_fds[0], got, sizeof got - 1);
    got[n > 0 ? n : 0] = 0;
    close(pipe_fds[0]);
    close(saved);
    assert_string_equal(got, "tf: TF_REPORT: cannot write 'a\\x1b[31mb': directory 'a\\x1b[31mb' \\xc2\\x9b\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(replaces_only_what_tf_wrote, fresh_dir, leave_dir),
        cmocka_unit_test_setup_teardown(refusals, fresh_dir, leave_dir),
        cmocka_unit_test_setup_teardown(directories, fresh_dir, leave_dir),
        cmocka_unit_test_setup_teardown(files_in_use_and_fork, fresh_dir, leave_dir),
        cmocka_unit_test(said_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
