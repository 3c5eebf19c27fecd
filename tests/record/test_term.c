/*
 * test_term.c: termination signals (runtime/term.c) through the monitor API,
 * each case in a forked child that registers the recorder: SIGTERM with its
 * default action writes the trace and still ends the child by SIGTERM; a
 * handler of the program's own replaces libtf's and the trace is written at
 * exit; SIG_DFL set again brings libtf's back; the program reads back the
 * dispositions it set (libtf's sigaction, not in sanitizer builds, whose
 * runtimes own sigaction).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <signal.h>

#include <tf/monitors.h>
#include <tf/record.h>

#include "fake_tu.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static volatile sig_atomic_t handled;

static void own_handler(int sig)
{
    handled = sig;
}

static void start_recording(void)
{
    tf_tu_register(&iostream_tu);
    if (tf_register("io", tf_record()) != TF_OK)
        _exit(90);
    read_int(5);
}

/* Runs fn in a child; its wait status. */
static int in_child(void (*fn)(void))
{
    assert_int_equal(system("rm -rf term-trace"), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        fn();
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

static void default_action(void)
{
    start_recording();
    raise(SIGTERM);
    _exit(91); /* not reached: SIGTERM ends the child */
}

static void test_default_action(void **state)
{
    int status = in_child(default_action);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGTERM);
    assert_true(exists("term-trace/metadata"));
    assert_true(exists("term-trace/thread-1"));
}

static void own(void)
{
    start_recording();
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = own_handler;
    if (!SANITIZED) { /* the program sees the default it never changed */
        if (sigaction(SIGTERM, NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            _exit(92);
    }
    if (sigaction(SIGTERM, &sa, &old) != 0 || (!SANITIZED && old.sa_handler != SIG_DFL))
        _exit(93);
    if (sigaction(SIGTERM, NULL, &old) != 0 || old.sa_handler != own_handler)
        _exit(94);
    raise(SIGTERM);
    _exit(handled == SIGTERM ? 7 : 95); /* the handler ran; _exit: no trace from here */
}

static void test_own_handler(void **state)
{
    int status = in_child(own);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 7);
    assert_false(exists("term-trace/metadata")); /* libtf left the signal to the program */
}

static void back_to_default(void)
{
    start_recording();
    signal(SIGTERM, own_handler);
    signal(SIGTERM, SIG_DFL);
    raise(SIGTERM);
    _exit(96);
}

static void test_default_again(void **state)
{
    if (SANITIZED)
        skip(); /* libtf does not interpose sigaction there */
    int status = in_child(back_to_default);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGTERM);
    assert_true(exists("term-trace/metadata"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_action),
        cmocka_unit_test(test_own_handler),
        cmocka_unit_test(test_default_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
