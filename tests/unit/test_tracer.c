/* Operation tracer: context across nesting, after C++-style unwinding, after
 * longjmp skipped frames (real setjmp/longjmp through real calls), per thread,
 * and the crash handler's report in a dying child. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <tf/monitors.h>

#include "fake_tu.h"

enum { ID_INNER, ID_MIDDLE, ID_OUTER, ID_SIBLING };
static tf_monitor *ops_holder;
static const tf_name ops_names[] = {
    {"inner", TF_NAME_MONITOR, 0, "ops.c", 1, 0},
    {"middle", TF_NAME_MONITOR, 0, "ops.c", 2, 0},
    {"outer", TF_NAME_MONITOR, 0, "ops.c", 3, 0},
    {"sibling", TF_NAME_MONITOR, 0, "ops.c", 4, 0},
};
static const tf_tu_group ops_groups[] = {{"ops", &ops_holder}};
static const tf_group_decl ops_decls[] = {{"ops", NULL, 0, 0}};
static tf_tu ops_tu = {TF_TU_ABI, sizeof(tf_tu), "ops.c", "ops", 4, 1, 1, 0,
                       ops_names, ops_groups, ops_decls, NULL, NULL};

static char ctx[2048], scratch[2048], seen_after_jump[2048];
static jmp_buf jump_back;
static int jump_from_inner;

static const char *context(void)
{
    tf_operation_context(scratch, sizeof scratch);
    return scratch;
}

/* Monitored functions as the plugin generates them, kept out of line so that
 * each has its own frame, as real code would. */
#define MONITORED(id, args, n, body)                                           \
    tf_monitor *mm = hook_load(&ops_holder);                                   \
    if (mm)                                                                    \
        hook_enter(mm, id, args, n);                                           \
    body;                                                                      \
    hook_exit(mm, id, NULL)

__attribute__((noinline)) static void inner(const char *what)
{
    tf_value v[] = {VSTR("what", what)};
    MONITORED(ID_INNER, v, 1, {
        strcpy(ctx, context());
        if (!jump_from_inner)
            strcpy(seen_after_jump, ctx);
        if (jump_from_inner)
            longjmp(jump_back, 1);
    });
}

__attribute__((noinline)) static void middle(int n)
{
    tf_value v[] = {VINT("n", n)};
    MONITORED(ID_MIDDLE, v, 1, inner("deep"));
}

__attribute__((noinline)) static void sibling(void)
{
    MONITORED(ID_SIBLING, NULL, 0, strcpy(ctx, context()));
}

__attribute__((noinline)) static void outer(void)
{
    MONITORED(ID_OUTER, NULL, 0, {
        if (setjmp(jump_back) == 0) {
            middle(7);
        } else {
            /* The same call again: its frame sits exactly where the skipped
             * middle(7) was, which only the jump target tells apart. */
            jump_from_inner = 0;
            middle(8);
            sibling();
        }
    });
}

static int setup(void **state)
{
    tf_tu_register(&ops_tu);
    assert_int_equal(tf_register("ops", tf_operation_tracer()), TF_OK);
    jump_from_inner = 0;
    return 0;
}

static int teardown(void **state)
{
    tf_clear_all();
    tf_tu_unregister(&ops_tu);
    return 0;
}

static void nesting(void **state)
{
    outer();
    assert_string_equal(ctx, "  ops.outer()\n"
                             "  ops.middle(n=7)\n"
                             "  ops.inner(what=\"deep\")\n");
    assert_string_equal(context(), ""); /* all returned */
}

static void longjmp_skips_frames(void **state)
{
    jump_from_inner = 1;
    outer(); /* inner jumps back into outer, which calls middle(8), then sibling */
    assert_string_equal(ctx, "  ops.outer()\n"
                             "  ops.sibling()\n");
    assert_string_equal(context(), "");
}

static void longjmp_then_same_call(void **state)
{
    jump_from_inner = 1;
    outer();
    assert_string_equal(seen_after_jump, "  ops.outer()\n"
                                         "  ops.middle(n=8)\n"
                                         "  ops.inner(what=\"deep\")\n");
}

static void unwinding_pops_frames(void **state)
{
    tf_monitor *mm = hook_load(&ops_holder);
    hook_enter(mm, ID_OUTER, NULL, 0);
    hook_enter(mm, ID_MIDDLE, NULL, 0);
    tf_exception e = {TF_EXC_UNWIND, 0, NULL, NULL};
    mm->ops->exception(mm, ID_MIDDLE, &e); /* what the unwind cleanup does */
    hook_exit(mm, ID_MIDDLE, NULL);
    assert_string_equal(context(), "  ops.outer()\n");
    hook_exit(mm, ID_INNER, NULL); /* unmatched: ignored */
    assert_string_equal(context(), "  ops.outer()\n");
    hook_exit(mm, ID_OUTER, NULL);
    assert_string_equal(context(), "");
}

static void strings_are_copied_and_cut(void **state)
{
    char s[80];
    memset(s, 'q', 79);
    s[79] = 0;
    tf_monitor *mm = hook_load(&ops_holder);
    tf_value v[] = {VSTR("s", s)};
    hook_enter(mm, ID_INNER, v, 1);
    memset(s, 'X', 79); /* the caller's buffer changes; the context must not */
    char want[128];
    snprintf(want, sizeof want, "  ops.inner(s=\"%.64s\"...)\n", "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq");
    assert_string_equal(context(), want);
    hook_exit(mm, ID_INNER, NULL);
    char tiny[8];
    hook_enter(mm, ID_OUTER, NULL, 0);
    assert_int_equal(tf_operation_context(tiny, sizeof tiny), strlen("  ops.outer()\n"));
    assert_string_equal(tiny, "  op..."); /* 7 characters and the NUL */
    hook_exit(mm, ID_OUTER, NULL);
}

/* Values passed by address are kept as they were at entry; one too big to
 * keep is shown unknown, never read from a dead frame. */
static void wide_values_are_copied(void **state)
{
    __int128 x = -((__int128)1 << 100);
    int vec[4] = {1, 2, 3, 4};
    int big[32] = {0};
    tf_monitor *mm = hook_load(&ops_holder);
    tf_value v[] = {{"x", TF_K_INT128, 16, {.p = &x}, NULL}, {"vec", TF_K_VECTOR, 16, {.p = vec}, "i4*4"},
                    {"big", TF_K_VECTOR, sizeof big, {.p = big}, "i4*32"}};
    hook_enter(mm, ID_INNER, v, 3);
    x = 0, vec[0] = 9; /* the function changes its parameters; the context must not */
    assert_string_equal(context(), "  ops.inner(x=-1267650600228229401496703205376, vec={1, 2, 3, 4}, big=?)\n");
    hook_exit(mm, ID_INNER, NULL);
}

static void *other_thread(void *arg)
{
    middle(1);
    return strdup(ctx);
}

static void stacks_are_per_thread(void **state)
{
    tf_monitor *mm = hook_load(&ops_holder);
    hook_enter(mm, ID_OUTER, NULL, 0);
    pthread_t t;
    void *seen;
    pthread_create(&t, NULL, other_thread, NULL);
    pthread_join(t, &seen);
    assert_string_equal(seen, "  ops.middle(n=1)\n  ops.inner(what=\"deep\")\n");
    free(seen);
    assert_string_equal(context(), "  ops.outer()\n");
    hook_exit(mm, ID_OUTER, NULL);
}

/* The hooks keep errno: on a new thread (the first enter allocates its
 * stack), through two stack growths, and on the way out. */
static void *errno_thread(void *arg)
{
    tf_monitor *mm = hook_load(&ops_holder);
    errno = EBADF;
    for (int i = 0; i < 40; i++)
        hook_enter(mm, ID_INNER, NULL, 0);
    int inside = errno;
    for (int i = 0; i < 40; i++)
        hook_exit(mm, ID_INNER, NULL);
    return (void *)(intptr_t)(inside == EBADF && errno == EBADF);
}

static void errno_is_kept(void **state)
{
    pthread_t t;
    void *ok;
    pthread_create(&t, NULL, errno_thread, NULL);
    pthread_join(t, &ok);
    assert_true(ok);
}

__attribute__((noinline)) static void crash_inside(void)
{
    tf_value v[] = {VINT("n", 3)};
    MONITORED(ID_MIDDLE, v, 1, raise(SIGSEGV));
}

static void crash_handler_prints_context(void **state)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        signal(SIGSEGV, SIG_DFL); /* as in a plain program, not cmocka's catcher */
        tf_operation_tracer_crash_handler();
        tf_monitor *mm = hook_load(&ops_holder);
        hook_enter(mm, ID_OUTER, NULL, 0);
        crash_inside();
        _exit(0);
    }
    close(fds[1]);
    char report[4096] = {0};
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], report + got, sizeof report - 1 - got)) > 0)
        got += (size_t)n;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV); /* it still dies of its signal */
    assert_non_null(strstr(report, "tf: fatal signal 11 in thread "));
    assert_non_null(strstr(report, "; operation context (outermost first):\n"
                                   "  ops.outer()\n"
                                   "  ops.middle(n=3)\n"));
}

/* Runs fn in a child whose stderr is caught in report; returns its status. */
static int in_child(void (*fn)(void), char *report, size_t len)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        alarm(10); /* a handler that loops dies of SIGALRM instead */
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], report + got, len - 1 - got)) > 0)
        got += (size_t)n;
    report[got] = 0;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return status;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (; (s = strstr(s, what)); s++)
        n++;
    return n;
}

static volatile int *volatile no_memory = (volatile int *)16;

static void ignore_segv(int with_siginfo)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = with_siginfo ? SA_SIGINFO : 0;
    sigaction(SIGSEGV, &sa, NULL);
}

/* SIGSEGV ignored before the handler came: a kill is ignored (the handler
 * stays for a later fault, reported once more), a fault is still fatal. */
static void ignored_then_sent_then_fault(void)
{
    ignore_segv(0);
    tf_operation_tracer_crash_handler();
    raise(SIGSEGV);
    fprintf(stderr, "still running\n");
    *no_memory = 1;
}

/* The same, the ignoring sigaction with SA_SIGINFO set (SIG_IGN is no
 * function to call through sa_sigaction). */
static void ignored_with_siginfo_then_sent(void)
{
    ignore_segv(1);
    tf_operation_tracer_crash_handler();
    raise(SIGSEGV);
    fprintf(stderr, "still running\n");
}

static void previously_ignored_signal(void **state)
{
    char report[8192];
    int status = in_child(ignored_then_sent_then_fault, report, sizeof report);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
    assert_int_equal(count(report, "tf: fatal signal 11 "), 2);
    assert_non_null(strstr(report, "still running\n"));

    status = in_child(ignored_with_siginfo_then_sent, report, sizeof report);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(count(report, "tf: fatal signal 11 "), 1);
    assert_non_null(strstr(report, "still running\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(nesting, setup, teardown),
        cmocka_unit_test_setup_teardown(longjmp_skips_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(longjmp_then_same_call, setup, teardown),
        cmocka_unit_test_setup_teardown(unwinding_pops_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(strings_are_copied_and_cut, setup, teardown),
        cmocka_unit_test_setup_teardown(wide_values_are_copied, setup, teardown),
        cmocka_unit_test_setup_teardown(stacks_are_per_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(errno_is_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(crash_handler_prints_context, setup, teardown),
        cmocka_unit_test(previously_ignored_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
