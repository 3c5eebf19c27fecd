/* runtime/locks.h's table against the code: a fork while any row's locks
 * are held by another thread must wait for them, so the child can take
 * every lock (docs/design.md .lock.fork); and every file of libtf that
 * defines a mutex has a row. Links libtf's objects, for the hidden table. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
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
#include <tf/record.h>

#include "../../runtime/internal.h"
#include "../../runtime/locks.h"
#include "fake_tu.h"

static const tf__lock_row *held_row;
static int holding;

static void *holder(void *arg)
{
    held_row->fork(TF_FORK_PREPARE);
    __atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
    usleep(300000);
    held_row->fork(TF_FORK_PARENT);
    return NULL;
}

/* Every row in use: the registry, dprint, the recorder and TF_MONITORS'
 * timing manager have state, so their rows take real locks. */
static int setup(void **state)
{
    char why[256];
    int unknown;
    tf_tu_register(&iostream_tu);
    tf_register("io_write", tf_dprint(fopen("/dev/null", "w")));
    tf_register("io_read", tf__factory_named("timing", &unknown, why, sizeof why));
    tf_register("io", tf_record());
    read_int(1);
    write_long(2);
    return 0;
}

/* The child takes and releases every row within its alarm: a row inherited
 * locked would hang it there. */
static void child_takes_every_row(void)
{
    alarm(10);
    for (int i = 0; i < tf__nlock_rows; i++) {
        tf__lock_rows[i].fork(TF_FORK_PREPARE);
        tf__lock_rows[i].fork(TF_FORK_PARENT);
    }
    read_int(3);
    _exit(0);
}

static void fork_while_each_row_is_held(void **state)
{
    for (int i = 0; i < tf__nlock_rows; i++) {
        held_row = &tf__lock_rows[i];
        __atomic_store_n(&holding, 0, __ATOMIC_RELEASE);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, holder, NULL), 0);
        while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
            usleep(1000);
        pid_t pid = fork();
        if (pid == 0)
            child_takes_every_row();
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        pthread_join(t, NULL);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            print_message("row %s: the child %s\n", held_row->name,
                          WIFSIGNALED(status) ? "hung (killed by its alarm)" : "failed");
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
}

/* Does the row table name path (relative to runtime/)? */
static int has_row(const char *path)
{
    for (int i = 0; i < tf__nlock_rows; i++) {
        const char *f = tf__lock_rows[i].files;
        size_t n = strlen(path);
        for (const char *p = strstr(f, path); p; p = strstr(p + 1, path))
            if ((p == f || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
                return 1;
    }
    return 0;
}

/* A line that defines a mutex (a variable or a member), not one that takes
 * a pointer to one. */
static int defines_mutex(const char *path)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, "pthread_mutex_t ") && !strstr(line, "pthread_mutex_t *") &&
                !strstr(line, "(");
    if (f)
        fclose(f);
    return found;
}

/* Files under dir (relative name rel) that define a mutex without a row. */
static int unlisted(const char *dir, const char *rel)
{
    char path[4096], name[4096];
    int missing = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(name, sizeof name, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        size_t n = strlen(e->d_name);
        if (e->d_type == DT_DIR) {
            missing += unlisted(path, name);
        } else if (n > 2 && (strcmp(e->d_name + n - 2, ".c") == 0 || strcmp(e->d_name + n - 2, ".h") == 0) &&
                   defines_mutex(path) && !has_row(name)) {
            print_message("%s defines a mutex that runtime/locks.h has no row for\n", name);
            missing++;
        }
    }
    if (d)
        closedir(d);
    return missing;
}

static void every_mutex_has_a_row(void **state)
{
    assert_int_equal(unlisted(TF_SOURCE_DIR "/runtime", ""), 0);
    assert_int_equal(unlisted(TF_SOURCE_DIR "/registry", "../registry"), 0);
    assert_true(has_row("env.c") && !has_row("nosuch.c")); /* the scan can tell */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fork_while_each_row_is_held),
        cmocka_unit_test(every_mutex_has_a_row),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
