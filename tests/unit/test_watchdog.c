/* The watchdog (runtime/watchdog): the spelling of TF_WATCHDOG and its
 * exact messages; the GOT rerouting of the lock functions, present only
 * while a watchdog runs; a stalled call on the fake iostream TU reported
 * with its arguments and stack, once, and its return; a lock cycle between
 * two threads of this test named with both locks. The watchdog is libtf's
 * hidden code, so this test links libtf's objects in instead of libtf.so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../runtime/config.h"
#include "../../runtime/watchdog/watchdog.h"
#include "fake_tu.h"

/* ---- TF_WATCHDOG's spelling ---------------------------------------------------- */

static void parses(const char *text, uint64_t ns, unsigned actions)
{
    wd_spec s;
    char why[256];
    const char *problem = wd_parse(text, &s, why, sizeof why);
    if (problem)
        fail_msg("'%s': %s", text, problem);
    assert_int_equal(s.ns, ns);
    assert_int_equal(s.actions, actions);
}

static void refused(const char *text, const char *expected)
{
    char why[256];
    const char *problem = tf__parse_watchdog(text, NULL, why, sizeof why);
    assert_non_null(problem);
    assert_string_equal(problem, expected);
}

static void test_spelling(void **state)
{
    parses("2s", 2000000000u, WD_ACT_REPORT | WD_ACT_SNAPSHOT);
    parses("500ms,report", 500000000u, WD_ACT_REPORT);
    parses("10ms,abort,report", 10000000u, WD_ACT_ABORT | WD_ACT_REPORT);
    parses("86400s,snapshot", 86400000000000ull, WD_ACT_SNAPSHOT);
    parses("off", 0, 0); /* tf-ctl's spelling */
    refused("2", "does not start with a duration: a number and a unit (ns, us, ms, s), e.g. 2s");
    refused("s", "does not start with a duration: a number and a unit (ns, us, ms, s), e.g. 2s");
    refused("2 s", "does not start with a duration: a number and a unit (ns, us, ms, s), e.g. 2s");
    refused("-2s", "does not start with a duration: a number and a unit (ns, us, ms, s), e.g. 2s");
    refused("9ms", "is not a duration from 10ms to 86400s");
    refused("86401s", "is not a duration from 10ms to 86400s");
    refused("99999999999999999999s", "is not a duration from 10ms to 86400s");
    refused("2s,abrt", "has an unknown action 'abrt' (known: abort, report, snapshot)");
    refused("2s,re\x1bport", "has an unknown action 're?port' (known: abort, report, snapshot)");
    refused("2s,,report", "has an empty action (two commas, or one at the end)");
    refused("2s,", "has an empty action (two commas, or one at the end)");
    refused("off", "is not DURATION[,ACTION...] ('off' is for tf-ctl; leave TF_WATCHDOG unset)");
}

/* ---- helpers ---------------------------------------------------------------------- */

static void start(const char *text)
{
    wd_spec s;
    char why[256];
    assert_null(wd_parse(text, &s, why, sizeof why));
    assert_int_equal(wd_set(&s, why, sizeof why), 0);
}

static void stop(void)
{
    start("off");
}

static void ms(int n)
{
    struct timespec t = {n / 1000, (n % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* fd 2 into a file while the watchdog writes; what it wrote. */
static int saved_fd = -1;
static FILE *captured;
static void capture(void)
{
    fflush(stderr);
    captured = tmpfile();
    saved_fd = dup(2);
    dup2(fileno(captured), 2);
}

static const char *captured_text(void)
{
    static char text[8192];
    dup2(saved_fd, 2);
    close(saved_fd);
    rewind(captured);
    size_t n = fread(text, 1, sizeof text - 1, captured);
    text[n] = 0;
    fclose(captured);
    return text;
}

/* Waits (at most 20 s: sanitizers are slow) until the captured text holds
 * what; whether it did. */
static int captured_soon(const char *what)
{
    for (int i = 0; i < 400; i++) {
        fflush(captured);
        char text[8192];
        size_t n = pread(fileno(captured), text, sizeof text - 1, 0);
        text[n] = 0;
        if (strstr(text, what))
            return 1;
        ms(50);
    }
    return 0;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* ---- the lock functions are rerouted only while a watchdog runs ---------------- */

/* What this program's GOT holds for pthread_mutex_lock, read anew each time. */
static int (*volatile lock_fn)(pthread_mutex_t *);
__attribute__((noinline)) static void *bound_lock(void)
{
    lock_fn = pthread_mutex_lock;
    return (void *)lock_fn;
}

static void test_rerouting(void **state)
{
    void *real = dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
    assert_ptr_equal(bound_lock(), real);
    start("1s");
    void *wrapped = bound_lock();
    assert_ptr_not_equal(wrapped, real);
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    assert_int_equal(lock_fn(&m), 0); /* the wrapper locks */
    assert_int_equal(pthread_mutex_trylock(&m), EBUSY);
    assert_int_equal(pthread_mutex_unlock(&m), 0);
    stop();
    assert_ptr_equal(bound_lock(), real);
}

/* ---- a stalled call --------------------------------------------------------------- */

static void test_stall(void **state)
{
    tf_tu_register(&iostream_tu);
    start("100ms,report");
    tf_monitor *outer = hook_load(&holder_io_write), *inner = hook_load(&holder_io_read);
    assert_non_null(outer); /* the watchdog's monitor, with nothing registered */
    assert_non_null(inner);
    tf_value wv[] = {VLONG("value", 7)};
    tf_value rv[] = {VSTR("s", "a \"quoted\"\n line"), VINT("n", 3)};
    capture();
    hook_enter(outer, ID_WRITE_LONG, wv, 1);
    hook_enter(inner, ID_READ_INT, rv, 2);
    int seen = captured_soon("has been open for ");
    ms(500); /* stalled from 100 ms on: reported once, not each period */
    tf_value r = VINT(NULL, 1);
    hook_exit(inner, ID_READ_INT, &r);
    hook_exit(outer, ID_WRITE_LONG, NULL);
    const char *text = captured_text();
    assert_true(seen);
    char head[128];
    snprintf(head, sizeof head, "tf: watchdog: thread %d (test_watchdog): iostream.read_int has been open for ",
             gettid());
    if (count(text, head) != 1 || !strstr(text, "iostream.write_long(value=7)\n") ||
        !strstr(text, "iostream.read_int(s=\"a \\\"quoted\\\"\\n line\", n=3)\n") ||
        strstr(text, "write_long(value=7)") > strstr(text, "read_int(s=") ||
        count(text, "iostream.read_int returned after ") != 1 ||
        count(text, "iostream.write_long returned after ") != 0 || strstr(text, "snapshot"))
        fail_msg("unexpected report:\n%s", text);
    stop();
    assert_null(hook_load(&holder_io_read)); /* the monitor left with the watchdog */
    iostream_teardown(state);
}

/* ---- a lock cycle ------------------------------------------------------------------ */

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *take(void *arg)
{
    int first = arg != NULL;
    pthread_mutex_lock(first ? &a : &b);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(first ? &b : &a); /* never returns */
    return arg;
}

static void test_cycle(void **state)
{
    start("100ms,report");
    pthread_barrier_init(&both, NULL, 2);
    pthread_t t1, t2;
    capture();
    pthread_create(&t1, NULL, take, &a);
    pthread_create(&t2, NULL, take, NULL);
    int seen = captured_soon("lock cycle");
    ms(300); /* the rest of the report */
    const char *text = captured_text();
    assert_true(seen);
    char holds_a[128], holds_b[128];
    snprintf(holds_a, sizeof holds_a, "holds mutex %p (taken outside monitored calls) and waits for mutex %p "
                                      "(outside monitored calls)\n", (void *)&a, (void *)&b);
    snprintf(holds_b, sizeof holds_b, "holds mutex %p (taken outside monitored calls) and waits for mutex %p "
                                      "(outside monitored calls)\n", (void *)&b, (void *)&a);
    if (count(text, "tf: watchdog: lock cycle: 2 threads blocked for ") != 1 || count(text, holds_a) != 1 ||
        count(text, holds_b) != 1 || count(text, ": no monitored call open\n") != 2)
        fail_msg("unexpected report:\n%s", text);
    stop(); /* the two threads stay blocked until the test exits */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spelling),
        cmocka_unit_test(test_rerouting),
        cmocka_unit_test(test_stall),
        cmocka_unit_test(test_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
