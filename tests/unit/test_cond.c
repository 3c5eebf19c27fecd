/* Conditions (docs/design.md .ctl.cond): the parser of the one syntax
 * (spelling, columns of errors, escaping of echoed input), deciding a condition
 * for every kind of value, and the condition monitor around a recording monitor
 * on the fake iostream TU: what passes, entries held back for `time`,
 * exceptions, info events, longjmp, `char *` arguments that point to no string,
 * threads. The parser and the monitor are libtf's hidden functions, so this
 * test links libtf's objects in instead of libtf.so. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "../../runtime/control/control.h"
#include "fake_tu.h"

/* Keeps a hook call out of tail position: generated code never jumps to a
 * hook, and a monitor tells calls apart by their caller's stack position. */
#define NOT_LAST() __asm__ volatile("" ::: "memory")

/* ---- a monitor that writes down what reaches it ---------------------------- */

static char log_text[4096];
static int counting; /* threads: count instead of writing */
static unsigned long n_enter, n_exit;
static const char *const fn_name[] = {"flush", "odd_value", "read_int", "write_long"};

static void put(const char *s)
{
    strncat(log_text, s, sizeof log_text - strlen(log_text) - 1);
}

static void put_value(const tf_value *v)
{
    char buf[128];
    tf_value_format(buf, sizeof buf, v);
    put(buf);
}

static void put_args(const tf_args *a)
{
    put("(");
    for (uint32_t k = 0; k < a->count; k++) {
        put(k ? ", " : "");
        put(a->values[k].name);
        put("=");
        put_value(&a->values[k]);
    }
    put(")");
}

static void r_enter(tf_monitor *s, int id, const tf_args *a)
{
    if (counting) {
        __atomic_add_fetch(&n_enter, 1, __ATOMIC_RELAXED);
        return;
    }
    put(">");
    put(fn_name[id]);
    if (a)
        put_args(a);
    put(" ");
}

static void r_exit(tf_monitor *s, int id, const tf_value *r)
{
    if (counting) {
        __atomic_add_fetch(&n_exit, 1, __ATOMIC_RELAXED);
        return;
    }
    put("<");
    put(fn_name[id]);
    if (r) {
        put("=");
        put_value(r);
    }
    put(" ");
}

static void r_exception(tf_monitor *s, int id, const tf_exception *e)
{
    put("!");
    put(fn_name[id]);
    put(" ");
}

static void r_info(tf_monitor *s, const tf_args *a, int caller, int id, tf_tp_type tp)
{
    put("i:");
    put(fn_name[id]);
    if (a)
        put_args(a);
    put(" ");
}

static void r_destroy(tf_monitor *s) { free(s); }
static const tf_monitor_ops rec_ops = {
    .enter = r_enter, .info = r_info, .exit = r_exit, .exception = r_exception,
    .destroy = r_destroy
};

static tf_monitor *rec_create(tf_factory *f, const tf_tu *tu)
{
    tf_monitor *m = calloc(1, sizeof *m);
    *m = (tf_monitor){&rec_ops, tu, f};
    return m;
}
static tf_factory rec = {"rec", rec_create, 0};

/* ---- parsing ----------------------------------------------------------------- */

/* Parses text, which must be a whole condition. */
static void parse(const char *text, tf_cond *cond)
{
    tf_cursor c = {.s = text};
    if (tf__cond_parse(&c, cond) < 0)
        fail_msg("'%s': column %zu: %s", text, c.errcol, c.err);
    assert_int_equal(c.s[c.i], 0);
}

static void spelled_back(void **state)
{
    static const char *const cases[][2] = {
        {"time > 10ms and depth <= 3 and fd == 4 and path == \"/etc/passwd\"",
         "if time > 10000000ns and depth <= 3 and fd == 4 and path == \"/etc/passwd\""},
        {"x==0x10", "if x == 16"},
        {"x\t<\t-3", "if x < -3"},
        {"name == bare", "if name == \"bare\""},
        {"time >= 1s and time < 2us", "if time >= 1000000000ns and time < 2000ns"},
        {"arg.time != 5 and arg.depth >= 1", "if arg.time != 5 and arg.depth >= 1"},
        {"s == \"a\\\"b\\\\c\"", "if s == \"a\\\"b\\\\c\""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tf_cond cond, again;
        char text[256], text2[256];
        parse(cases[k][0], &cond);
        tf__cond_format(&cond, text, sizeof text);
        assert_string_equal(text, cases[k][1]);
        parse(text + 3, &again); /* the spelling parses back to the same */
        tf__cond_format(&again, text2, sizeof text2);
        assert_string_equal(text2, text);
    }
}

/* A trigger's condition ends where its action begins. */
static void stops_after_the_last_term(void **state)
{
    tf_cursor c = {.s = "x == 1 and y != 2 -> report"};
    tf_cond cond;
    assert_int_equal(tf__cond_parse(&c, &cond), 0);
    assert_int_equal(cond.n, 2);
    assert_string_equal(c.s + c.i, "-> report");
}

static void errors_name_their_column(void **state)
{
    char nine[128] = "", long_name[80], long_str[80];
    for (int k = 0; k < 9; k++)
        strcat(nine, k ? " and a == 1" : "a == 1");
    memset(long_name, 'n', 64);
    strcpy(long_name + 64, " == 1");
    snprintf(long_str, sizeof long_str, "s == \"%065d\"", 0);
    static const char want_long_name[] = "name longer than 63 bytes";
    const struct { const char *text; size_t col; const char *err; } cases[] = {
        {"x = 2", 3, "'=' compares nothing: write '=='"},
        {"x ~ 1", 3, "expected a comparison: ==, !=, <, <=, > or >="},
        {"t. == 1", 2, "expected a comparison: ==, !=, <, <=, > or >="}, /* t.x is a captured field */
        {"time > 10", 10, "a duration needs a unit: ns, us, ms or s"},
        {"time > 5sec", 9, "a duration needs a unit: ns, us, ms or s"},
        {"time > -1ms", 8, "a duration cannot be negative"},
        {"depth < x", 9, "expected a number"},
        {"9x == 1", 1, "expected time, depth or an argument's name"},
        {"x == 1 and", 11, "expected time, depth or an argument's name"},
        {"x < \"a\"", 3, "strings compare with == and != only"},
        {"x >= abc", 3, "strings compare with == and != only"},
        {"s == \"abc", 10, "string not closed by '\"'"},
        {"x == ", 6, "expected a number or a string"},
        {"x == 99999999999999999999", 6, "number out of range"},
        {nine, 89, "more than 8 comparisons"},
        {long_name, 1, want_long_name},
        {long_str, 71, "string longer than 64 bytes"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tf_cursor c = {.s = cases[k].text};
        tf_cond cond;
        if (tf__cond_parse(&c, &cond) == 0)
            fail_msg("'%s' parsed", cases[k].text);
        if (c.errcol != cases[k].col || strcmp(c.err, cases[k].err) != 0)
            fail_msg("'%s': column %zu: %s", cases[k].text, c.errcol, c.err);
    }
}

static void echoed_input_is_escaped(void **state)
{
    char out[64];
    tf__escape(out, sizeof out, "a\tb\x1b[0m\xc3\xa9");
    assert_string_equal(out, "a\\x09b\\x1b[0m\\xc3\\xa9");
    tf__escape(out, 10, "abcdefghijkl");
    assert_string_equal(out, "abcde...");
}

/* README's example: TF_TRIGGERS written across lines. */
static void triggers_across_lines(void **state)
{
    FILE *err = tmpfile();
    assert_int_equal(tf__trigger_env("read_int:enter if x == 42 -> register io=noop once,\n"
                                     "             write_long:exit if time > 50ms -> clear io\n",
                                     err),
                     0);
    assert_int_equal(ftell(err), 0);
    fclose(err);
    assert_int_equal(tf__trigger_count(), 2);
    assert_int_equal(tf__trigger_remove(1), TF_OK);
    assert_int_equal(tf__trigger_remove(2), TF_OK);
    assert_int_equal(tf__trigger_count(), 0);
}

/* ---- deciding ---------------------------------------------------------------- */

static const tf_enumerator colors[] = {{0, "red"}, {1, "green"}};
static const tf_enum_type color_type = {"enum color", 2, 0, colors};

static int decide(const char *text, int depth, const tf_args *args)
{
    tf_cond cond;
    parse(text, &cond);
    return tf__cond_enter_ok(&cond, depth, args);
}

static void every_kind_of_value(void **state)
{
    char a64[65], a65[66];
    memset(a64, 'a', 64), a64[64] = 0;
    memset(a65, 'a', 65), a65[65] = 0;
    const tf_value v[] = {
        VINT("n", -5), VUINT("u", 7), {"b", TF_K_BOOL, 1, {.u = 1}, NULL},
        {"c", TF_K_ENUM, 4, {.i = 1}, &color_type}, {"p", TF_K_PTR, 8, {.p = (void *)0x10}, NULL},
        VSTR("s", "abc"), VSTR("null", NULL), VSTR("bad", (const char *)1),
        {"d", TF_K_FLOAT, 8, {.d = 1.0}, NULL}, VSTR("s64", a64), VSTR("s65", a65),
    };
    const tf_args args = {sizeof v / sizeof v[0], 0, v};
    char want64[80], want65[80];
    snprintf(want64, sizeof want64, "s64 == %s", a64);
    snprintf(want65, sizeof want65, "s65 == %s", a64);
    const struct { const char *text; int pass; } cases[] = {
        {"n == -5", 1}, {"n < -4", 1}, {"n > -5", 0}, {"n >= -5", 1}, {"n != -5", 0},
        {"u > -1", 1}, {"u < -1", 0}, {"u == 7", 1}, {"u != 7", 0}, {"u <= 7", 1},
        {"b == true", 1}, {"b == 1", 1}, {"b == false", 0},
        {"c == green", 1}, {"c == 1", 1}, {"c == red", 0}, {"c != red", 1},
        {"p == 0x10", 1}, {"p > 15", 1}, {"p < 16", 0},
        {"s == abc", 1}, {"s == \"abc\"", 1}, {"s == ab", 0}, {"s == abcd", 0}, {"s != abd", 1},
        /* what cannot be checked never passes, whichever the comparison */
        {"null == abc", 0}, {"null != abc", 0}, {"bad == abc", 0}, {"bad != abc", 0},
        {"n == abc", 0}, {"s == 3", 0}, {"d == 1", 0}, {"missing == 1", 0}, {"missing != 1", 0},
        {want64, 1}, {want65, 0}, /* a string longer than the constant is not equal */
        {"depth == 3", 1}, {"depth > 3", 0}, {"time > 1s", 1}, /* time: at the exit */
        {"n == -5 and u == 7", 1}, {"n == -5 and u == 8", 0}, {"n >= -5 and depth <= 2", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        if (decide(cases[k].text, 3, &args) != cases[k].pass)
            fail_msg("'%s' should %s", cases[k].text, cases[k].pass ? "pass" : "not pass");
    assert_int_equal(decide("n == -5", 1, NULL), 0); /* no values at all */
}

/* 128-bit integers by their whole value; complex and vector values are no
 * numbers and never pass. */
static void wide_values(void **state)
{
    __int128 big = (__int128)1 << 64, neg = -((__int128)1 << 64), small = -5;
    unsigned __int128 ubig = ~(unsigned __int128)0, usmall = 7;
    double z[2] = {1, 0};
    int vec[4] = {1, 2, 3, 4};
    const tf_value v[] = {
        {"big", TF_K_INT128, 16, {.p = &big}, NULL},       {"neg", TF_K_INT128, 16, {.p = &neg}, NULL},
        {"small", TF_K_INT128, 16, {.p = &small}, NULL},   {"ubig", TF_K_UINT128, 16, {.p = &ubig}, NULL},
        {"usmall", TF_K_UINT128, 16, {.p = &usmall}, NULL}, {"z", TF_K_COMPLEX, 16, {.p = z}, "f8*2"},
        {"vec", TF_K_VECTOR, 16, {.p = vec}, "i4*4"},
    };
    const tf_args args = {sizeof v / sizeof v[0], 0, v};
    const struct { const char *text; int pass; } cases[] = {
        /* low 64 bits 0: cut to a word, big would equal 0 */
        {"big == 0", 0}, {"big != 0", 1}, {"big > 9223372036854775807", 1}, {"big < 0", 0},
        {"neg == 0", 0}, {"neg < -9223372036854775807", 1}, {"neg > -1", 0},
        {"small == -5", 1}, {"small < -4", 1}, {"small >= -5", 1}, {"small > -5", 0},
        {"ubig > 9223372036854775807", 1}, {"ubig == -1", 0}, {"ubig > -1", 1}, {"ubig <= 5", 0},
        {"usmall == 7", 1}, {"usmall != 7", 0}, {"usmall < 8", 1}, {"usmall > -3", 1},
        {"z == 1", 0}, {"z != 1", 0}, {"vec == 1", 0}, {"vec != 1", 0}, {"big == abc", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        if (decide(cases[k].text, 3, &args) != cases[k].pass)
            fail_msg("'%s' should %s", cases[k].text, cases[k].pass ? "pass" : "not pass");
}

static void durations(void **state)
{
    tf_cond cond;
    parse("time > 10ms", &cond);
    assert_false(tf__cond_time_ok(&cond, 10000000));
    assert_true(tf__cond_time_ok(&cond, 10000001));
    parse("time >= 1us and time < 1ms and x == 1", &cond);
    assert_false(tf__cond_time_ok(&cond, 999));
    assert_true(tf__cond_time_ok(&cond, 1000));
    assert_true(tf__cond_time_ok(&cond, 999999));
    assert_false(tf__cond_time_ok(&cond, 1000000));
}

/* ---- the condition monitor on the fake TU ------------------------------------ */

static void watch_with(tf_factory *inner, const char *text)
{
    tf_cond cond;
    parse(text, &cond);
    tf_factory *f = tf__cond_factory(inner, &cond);
    assert_non_null(f);
    assert_int_equal(tf_register("io", f), TF_OK);
    log_text[0] = 0;
}

static void watch(const char *text) { watch_with(&rec, text); }

__attribute__((noinline)) static void read_call(int x)
{
    read_int(x);
    NOT_LAST();
}

/* write_long(value) calling read_int(x): a call one level up. */
__attribute__((noinline)) static void write_calling_read(long value, int x)
{
    tf_monitor *mm = hook_load(&holder_io_write);
    tf_value v[] = {VLONG("value", value)};
    hook_enter(mm, ID_WRITE_LONG, v, 1);
    read_call(x);
    hook_exit(mm, ID_WRITE_LONG, NULL);
    NOT_LAST();
}

static char seen_inside[sizeof log_text];

__attribute__((noinline)) static void slow_read(int x, long ms)
{
    tf_monitor *mm = hook_load(&holder_io_read);
    tf_value v[] = {VINT("x", x)};
    hook_enter(mm, ID_READ_INT, v, 1);
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
    nanosleep(&ts, NULL);
    strcpy(seen_inside, log_text);
    tf_value r = VINT(NULL, 2 * x);
    hook_exit(mm, ID_READ_INT, &r);
    NOT_LAST();
}

__attribute__((noinline)) static void throwing_read(int x)
{
    tf_monitor *mm = hook_load(&holder_io_read);
    tf_value v[] = {VINT("x", x)};
    hook_enter(mm, ID_READ_INT, v, 1);
    hook_exception(mm, ID_READ_INT, TF_EXC_UNWIND);
    hook_exit(mm, ID_READ_INT, NULL);
    NOT_LAST();
}

/* read_int(path) as if it took a string; overwrite is changed inside. */
__attribute__((noinline)) static void read_path(const char *path, char *overwrite)
{
    tf_monitor *mm = hook_load(&holder_io_read);
    tf_value v[] = {VSTR("path", path)};
    hook_enter(mm, ID_READ_INT, v, 1);
    if (overwrite)
        strcpy(overwrite, "after");
    hook_exit(mm, ID_READ_INT, NULL);
    NOT_LAST();
}

/* Enters read_int and never exits it, as a longjmp out of it would. */
__attribute__((noinline)) static void read_left_by_jump(int x)
{
    tf_monitor *mm = hook_load(&holder_io_read);
    tf_value v[] = {VINT("x", x)};
    hook_enter(mm, ID_READ_INT, v, 1);
    NOT_LAST();
}

__attribute__((noinline)) static void write_over_jump(long value)
{
    tf_monitor *mm = hook_load(&holder_io_write);
    tf_value v[] = {VLONG("value", value)};
    hook_enter(mm, ID_WRITE_LONG, v, 1);
    read_left_by_jump(1);
    hook_exit(mm, ID_WRITE_LONG, NULL);
    NOT_LAST();
}

static int setup(void **state)
{
    log_text[0] = 0;
    counting = 0;
    tf_tu_register(&iostream_tu);
    return 0;
}

static void arguments_decide_at_entry(void **state)
{
    watch("x > 3");
    read_call(1);
    read_call(5);
    assert_string_equal(log_text, ">read_int(x=5) <read_int=10 ");
}

static void depth_counts_calls_in_progress(void **state)
{
    watch("depth <= 1");
    write_calling_read(2, 3);
    assert_string_equal(log_text, ">write_long(value=2) <write_long ");
    watch("depth == 2");
    write_calling_read(2, 3);
    read_call(4);
    assert_string_equal(log_text, ">read_int(x=3) <read_int=6 ");
}

static void time_holds_the_entry_until_the_exit(void **state)
{
    watch("time > 100ms");
    read_call(1);
    slow_read(2, 150);
    assert_string_equal(seen_inside, "");
    assert_string_equal(log_text, ">read_int(x=2) <read_int=4 ");
}

static void exceptions_keep_their_place(void **state)
{
    watch("x == 1");
    throwing_read(1);
    throwing_read(2);
    assert_string_equal(log_text, ">read_int(x=1) !read_int <read_int ");
    watch("time >= 0ns and x == 1"); /* held: the exception comes with the entry */
    throwing_read(1);
    throwing_read(2);
    assert_string_equal(log_text, ">read_int(x=1) !read_int <read_int ");
}

static void info_only_inside_a_passed_call(void **state)
{
    watch("value == 1");
    write_long(1);
    write_long(3);
    assert_string_equal(log_text,
                        ">write_long(value=1) i:odd_value(msg=\"An odd value\", v=1) <write_long ");
    watch("time >= 0ns"); /* inside a held call it would come before the entry */
    write_long(1);
    assert_string_equal(log_text, ">write_long(value=1) <write_long ");
}

static void held_strings_are_copies(void **state)
{
    char path[16] = "before", want[64];
    watch("time >= 0ns");
    read_path(path, path);
    assert_string_equal(log_text, ">read_int(path=\"before\") <read_int ");
    watch("time >= 0ns");
    read_path((const char *)1, NULL); /* a char * holding an integer */
    snprintf(want, sizeof want, ">read_int(path=%p) <read_int ", (void *)1);
    assert_string_equal(log_text, want);
}

static void strings_that_are_not_strings(void **state)
{
    watch("path == \"/etc/passwd\"");
    read_path("/etc/passwd", NULL);
    read_path("/etc/passw", NULL);
    read_path("/etc/passwd2", NULL);
    read_path(NULL, NULL);
    read_path((const char *)1, NULL);
    read_path((const char *)-1, NULL);
    assert_string_equal(log_text, ">read_int(path=\"/etc/passwd\") <read_int ");
    watch("path != \"/etc/passwd\"");
    read_path((const char *)1, NULL);
    read_path("/etc/shadow", NULL);
    assert_string_equal(log_text, ">read_int(path=\"/etc/shadow\") <read_int ");
}

static void frames_skipped_by_longjmp(void **state)
{
    watch("time >= 0ns"); /* the skipped call's held entry is freed (ASan) */
    write_over_jump(4);
    read_call(5);
    assert_string_equal(log_text, ">write_long(value=4) <write_long >read_int(x=5) <read_int=10 ");
    watch("depth == 1");
    write_over_jump(4);
    read_call(7);
    assert_string_equal(log_text, ">write_long(value=4) <write_long >read_int(x=7) <read_int=14 ");
}

static unsigned ops_flags(void) { return hook_load(&holder_io_read)->ops->flags; }

static void values_only_when_something_reads_them(void **state)
{
    watch_with(tf_noop(), "depth <= 1");
    assert_true(ops_flags() & TF_OPS_NO_VALUES);
    watch_with(tf_noop(), "time > 1ms");
    assert_true(ops_flags() & TF_OPS_NO_VALUES);
    watch_with(tf_noop(), "x > 1");
    assert_false(ops_flags() & TF_OPS_NO_VALUES);
    watch("depth <= 1");
    assert_false(ops_flags() & TF_OPS_NO_VALUES);
}

static void *reader(void *arg)
{
    for (int x = 0; x < 1000; x++)
        read_call(x);
    return NULL;
}

static void count_with_threads(const char *text, unsigned long want)
{
    watch(text);
    counting = 1;
    n_enter = n_exit = 0;
    pthread_t t[4];
    for (int k = 0; k < 4; k++)
        assert_int_equal(pthread_create(&t[k], NULL, reader, NULL), 0);
    for (int k = 0; k < 4; k++)
        pthread_join(t[k], NULL);
    assert_int_equal(n_enter, 4 * want);
    assert_int_equal(n_exit, 4 * want);
}

static void threads_each_have_their_calls(void **state)
{
    count_with_threads("x >= 500", 500);
    count_with_threads("time >= 0ns and x < 250", 250);
    count_with_threads("depth == 1 and x != 7", 999);
}

/* .silent.args: a term on an argument that no call had is found out from the
 * calls, by hooks on four threads at once (no lock: TSan watches), and said
 * with the names the calls had; a term some call met is said nothing of. */
struct noted {
    const tf_cond *cond;
    tf_cond_seen *seen;
};

static void *note_calls(void *arg)
{
    const struct noted *n = arg;
    tf_value v[2] = {{"fd", TF_K_INT, 4, {.i = 3}, NULL}, {"path", TF_K_STR, 8, {.s = "/etc"}, NULL}};
    tf_args a = {2, 0, v};
    for (int k = 0; k < 1000; k++)
        tf__cond_note(n->cond, n->seen, &a);
    return NULL;
}

static void unmet_arguments_are_said(void **state)
{
    tf_cond cond;
    parse("fd == 3 and pth == \"/etc\"", &cond);
    static tf_cond_seen seen;
    struct noted n = {&cond, &seen};
    pthread_t t[4];
    for (int k = 0; k < 4; k++)
        assert_int_equal(pthread_create(&t[k], NULL, note_calls, &n), 0);
    for (int k = 0; k < 4; k++)
        pthread_join(t[k], NULL);
    char why[512];
    assert_true(tf__cond_unmet(&cond, &seen, why, sizeof why));
    assert_string_equal(why, "condition 'if fd == 3 and pth == \"/etc\"' passed no call: none of the "
                             "4000 calls it saw had an argument 'pth' (they had: fd, path); did you "
                             "mean 'path'?");
    tf_cond met;
    parse("fd == 3", &met);
    static tf_cond_seen seen_met;
    struct noted m = {&met, &seen_met};
    note_calls(&m);
    assert_false(tf__cond_unmet(&met, &seen_met, why, sizeof why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unmet_arguments_are_said),
        cmocka_unit_test(spelled_back),
        cmocka_unit_test(stops_after_the_last_term),
        cmocka_unit_test(errors_name_their_column),
        cmocka_unit_test(echoed_input_is_escaped),
        cmocka_unit_test(triggers_across_lines),
        cmocka_unit_test(every_kind_of_value),
        cmocka_unit_test(wide_values),
        cmocka_unit_test(durations),
        cmocka_unit_test_setup_teardown(arguments_decide_at_entry, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(depth_counts_calls_in_progress, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(time_holds_the_entry_until_the_exit, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(exceptions_keep_their_place, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(info_only_inside_a_passed_call, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(held_strings_are_copies, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(strings_that_are_not_strings, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(frames_skipped_by_longjmp, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(values_only_when_something_reads_them, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(threads_each_have_their_calls, setup, iostream_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
