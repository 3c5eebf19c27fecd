/* Safe string reads (docs/design.md .rel.values): a `char *` value that is no
 * string is shown, never read into a crash. Each case runs the fault-probe path
 * (libtf's own handler) and the syscall path (after the program installs its
 * own SIGSEGV handler); sanitizer builds use the syscall path throughout. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <tf/monitors.h>

static char *page_pair; /* a readable page, then an inaccessible one */
static long page;

static const char *show(const char *s)
{
    static char buf[256];
    tf_value v = {"s", TF_K_STR, sizeof s, {.s = s}, NULL};
    tf_value_format(buf, sizeof buf, &v);
    return buf;
}

static void expect_pointer(const char *s)
{
    char want[32];
    snprintf(want, sizeof want, "%p", (const void *)s);
    assert_string_equal(show(s), want);
}

static void check_every_case(void)
{
    expect_pointer((const char *)1);
    expect_pointer((const char *)5);
    expect_pointer((const char *)0xfff0);
    expect_pointer((const char *)~(uintptr_t)0);
    expect_pointer(page_pair + page); /* the first byte is inaccessible */
    char *edge = page_pair + page - 3;
    memcpy(edge, "abc", 3);
    assert_string_equal(show(edge), "\"abc\"...");
    page_pair[page - 1] = 0;
    assert_string_equal(show(edge), "\"ab\"");
    assert_string_equal(show("fine"), "\"fine\"");
    assert_string_equal(show(NULL), "NULL");
}

static void probed_by_fault(void **state)
{
    for (int i = 0; i < 1000; i++) /* recovery leaves the thread able to fault again */
        expect_pointer(page_pair + page);
    check_every_case();
}

static int program_handler_ran;
static void program_handler(int sig) { program_handler_ran = sig; }

static void probed_by_syscall_once_the_program_owns_sigsegv(void **state)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = program_handler;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGSEGV, &sa, &old), 0);
    check_every_case();
    assert_int_equal(program_handler_ran, 0); /* no fault reached the program */
    sigaction(SIGSEGV, &old, NULL);
}

static void *in_thread(void *arg)
{
    check_every_case();
    return arg;
}

static void probed_in_another_thread(void **state)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, in_thread, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
}

int main(void)
{
    page = sysconf(_SC_PAGESIZE);
    page_pair = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page_pair == MAP_FAILED || mprotect(page_pair + page, (size_t)page, PROT_NONE) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probed_by_fault),
        cmocka_unit_test(probed_in_another_thread),
        cmocka_unit_test(probed_by_syscall_once_the_program_owns_sigsegv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
