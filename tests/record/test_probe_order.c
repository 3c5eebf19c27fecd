/*
 * test_probe_order.c: the recorder's fatal-signal handler, installed after
 * libtf's string probe handler (a string was read before recording began),
 * is the first to see a fault while the recorder copies a `char *` that leads
 * into an unmapped page. It must let the probe resume (tf__probe_recover),
 * not take the fault for a crash: no post-mortem dump, the event kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include <tf/monitors.h>
#include <tf/record.h>

#include "fake_tu.h"

static char *unreadable_page(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(two != MAP_FAILED);
    assert_int_equal(mprotect(two + page, (size_t)page, PROT_NONE), 0);
    return two + page;
}

static void test_fault_in_a_copy_is_no_crash(void **state)
{
    char *bad = unreadable_page();
    tf_value v[] = {VSTR("s", bad)};
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    /* dprint reads a string first: libtf's probe handler goes in now */
    assert_int_equal(tf_register("io_read", tf_dprint(sink)), TF_OK);
    hook_enter(hook_load(&holder_io_read), 0, v, 1);
    /* then the recorder starts and catches the fatal signals on top of it */
    assert_int_equal(tf_register("io_write", tf_record()), TF_OK);
    fflush(stderr);
    assert_non_null(freopen("order.err", "w", stderr));
    hook_enter(hook_load(&holder_io_write), 1, v, 1);
    assert_int_equal(tf_record_snapshot("order-trace"), 0);
    fflush(stderr);
    FILE *err = fopen("order.err", "r");
    char text[512] = "";
    size_t n = err ? fread(text, 1, sizeof text - 1, err) : 0;
    text[n] = 0;
    assert_null(strstr(text, "fatal signal"));
    /* the event is in the trace: its thread file holds more than a header */
    FILE *f = fopen("order-trace/thread-1", "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    assert_true(ftell(f) > 64);
    fclose(f);
}

int main(void)
{
    if (system("rm -rf order-trace order.err") != 0)
        return 1;
    tf_tu_register(&iostream_tu);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_in_a_copy_is_no_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
