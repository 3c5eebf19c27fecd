/* dprint: the line format of docs/design.md .use.dprint, byte for byte, for
 * every value kind; exceptions; long lines whole; whole lines under threads.
 * Expected text is written from the contract, not captured from a run. */
#define _GNU_SOURCE
#include <pthread.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <tf/monitors.h>

#include "fake_tu.h"

static FILE *out;
static char *text;
static size_t size;

static int setup(void **state)
{
    out = open_memstream(&text, &size);
    pthread_setname_np(pthread_self(), "tester");
    tf_tu_register(&iostream_tu);
    assert_int_equal(tf_register("io", tf_dprint(out)), TF_OK);
    return 0;
}

static int teardown(void **state)
{
    tf_clear_all();
    tf_tu_unregister(&iostream_tu);
    fclose(out);
    free(text);
    return 0;
}

static const char *output(void)
{
    fflush(out);
    return text;
}

static void enter_with(const tf_value *v, uint32_t n)
{
    hook_enter(hook_load(&holder_io_read), ID_READ_INT, v, n);
}

static void calls_and_info(void **state)
{
    read_int(21);
    write_long(3);
    write_long(4);
    assert_string_equal(output(),
                        "(tester): iostream.read_int->(x=21)\n"
                        "(tester): iostream.read_int<-(42)\n"
                        "(tester): iostream.write_long->(value=3)\n"
                        "(tester): iostream.write_long::(odd_value)(msg=\"An odd value\", v=3)\n"
                        "(tester): iostream.write_long<-\n"
                        "(tester): iostream.write_long->(value=4)\n"
                        "(tester): iostream.write_long<-\n");
}

static void integers_bools_floats_pointers(void **state)
{
    tf_value v[] = {
        {"i", TF_K_INT, 4, {.i = -5}, NULL},
        {"min", TF_K_INT, 8, {.i = INT64_MIN}, NULL},
        {"u", TF_K_UINT, 8, {.u = UINT64_MAX}, NULL},
        {"c", TF_K_INT, 1, {.i = 'A'}, NULL},
        {"t", TF_K_BOOL, 1, {.u = 1}, NULL},
        {"f", TF_K_BOOL, 1, {.u = 0}, NULL},
        {"d", TF_K_FLOAT, 8, {.d = 1.5}, NULL},
        {"big", TF_K_FLOAT, 8, {.d = 1e20}, NULL},
        {"tenth", TF_K_FLOAT, 4, {.d = 0.1}, NULL},
        {"p", TF_K_PTR, 8, {.p = (void *)0x1234}, NULL},
        {"np", TF_K_PTR, 8, {.p = NULL}, NULL},
    };
    enter_with(v, sizeof v / sizeof v[0]);
    enter_with(NULL, 0);
    assert_string_equal(output(), "(tester): iostream.read_int->(i=-5, min=-9223372036854775808, "
                                  "u=18446744073709551615, c=65, t=true, f=false, d=1.5, "
                                  "big=1e+20, tenth=0.1, p=0x1234, np=NULL)\n"
                                  "(tester): iostream.read_int->()\n");
}

static void strings(void **state)
{
    char s64[65], s70[71];
    memset(s64, 'x', 64);
    s64[64] = 0;
    memset(s70, 'y', 70);
    s70[70] = 0;
    tf_value v[] = {
        VSTR("esc", "a\"b\\c\n\t\001\303\251"),
        VSTR("null", NULL),
        VSTR("empty", ""),
        VSTR("s64", s64),
        VSTR("s70", s70),
    };
    enter_with(v, 5);
    char want[512];
    snprintf(want, sizeof want,
             "(tester): iostream.read_int->(esc=\"a\\\"b\\\\c\\n\\t\\001\\303\\251\", "
             "null=NULL, empty=\"\", s64=\"%s\", s70=\"%.64s\"...)\n",
             s64, s70);
    assert_string_equal(output(), want);
}

static void enums_structs_unknown(void **state)
{
    static const tf_enumerator items[] = {{0, "RED"}, {1, "GREEN"}, {-1, "NONE"}};
    static const tf_enum_type color = {"enum color", 3, 0, items};
    struct point { int x, y; } pt = {1, 2};
    tf_value v[] = {
        {"c", TF_K_ENUM, 4, {.i = 1}, &color},
        {"n", TF_K_ENUM, 4, {.i = -1}, &color},
        {"odd", TF_K_ENUM, 4, {.i = 7}, &color},
        {"bare", TF_K_ENUM, 4, {.i = 2}, NULL},
        {"pt", TF_K_STRUCT, sizeof pt, {.p = &pt}, "struct point"},
        {"cx", TF_K_NONE, 16, {.u = 0}, NULL},
    };
    enter_with(v, 6);
    assert_string_equal(output(), "(tester): iostream.read_int->(c=GREEN, n=NONE, odd=7, bare=2, "
                                  "pt={...}, cx=?)\n");
}

static void results_of_every_kind(void **state)
{
    tf_monitor *mm = hook_load(&holder_io_read);
    tf_value s = VSTR(NULL, "ok"), b = {NULL, TF_K_BOOL, 1, {.u = 1}, NULL};
    hook_exit(mm, ID_READ_INT, &s);
    hook_exit(mm, ID_READ_INT, &b);
    hook_exit(mm, ID_READ_INT, NULL);
    assert_string_equal(output(), "(tester): iostream.read_int<-(\"ok\")\n"
                                  "(tester): iostream.read_int<-(true)\n"
                                  "(tester): iostream.read_int<-\n");
}

/* A fake std::type_info: its second word is the mangled name. */
static const struct { const void *vptr; const char *name; } runtime_error_ti = {NULL, "St13runtime_error"};

static void exceptions(void **state)
{
    tf_monitor *mm = hook_load(&holder_io_read);
    /* An Itanium-ABI primary exception: type_info * 80 bytes before the unwind
     * header, whose class is "GNUCC++\0". */
    _Alignas(16) unsigned char block[128] = {0};
    const void *ti = &runtime_error_ti;
    memcpy(block, &ti, sizeof ti);
    uint64_t cls = 0x474e5543432b2b00ULL;
    memcpy(block + 80, &cls, sizeof cls);
    _Alignas(16) unsigned char foreign[32] = "not C++!";
    tf_exception e[] = {
        {TF_EXC_THROW, 0, NULL, &runtime_error_ti},
        {TF_EXC_UNWIND, 0, NULL, block + 80},
        {TF_EXC_UNWIND, 0, NULL, foreign},
        {TF_EXC_NORETURN, 0, "longjmp", NULL},
    };
    for (int i = 0; i < 4; i++)
        mm->ops->exception(mm, ID_READ_INT, &e[i]);
    /* demangled: this test links the C++ runtime, so __cxa_demangle is there */
    assert_string_equal(output(), "(tester): iostream.read_int:throw:std::runtime_error\n"
                                  "(tester): iostream.read_int:throw:std::runtime_error\n"
                                  "(tester): iostream.read_int:throw:foreign\n"
                                  "(tester): iostream.read_int:throw:noreturn(longjmp)\n");
}

/* No name or argument count is a limit (docs/design.md .fid.sizes); a line
 * longer than dprint's 4 KiB buffer is built whole in pages (it was cut,
 * "..."). */
static void long_lines_are_whole(void **state)
{
    char s[65];
    memset(s, 'z', 64);
    s[64] = 0;
    tf_value v[100];
    for (int i = 0; i < 100; i++)
        v[i] = (tf_value)VSTR("s", s);
    enter_with(v, 100);
    read_int(1);
    char want[8192] = "(tester): iostream.read_int->(";
    for (int i = 0; i < 100; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%ss=\"%s\"", i ? ", " : "", s);
    strcat(want, ")\n(tester): iostream.read_int->(x=1)\n(tester): iostream.read_int<-(2)\n");
    assert_int_equal(strlen(want), 7030 + 35 + 33);
    assert_string_equal(output(), want);
}

static void unknown_ids_print_numbers(void **state)
{
    tf_monitor *mm = hook_load(&holder_io_read);
    hook_exit(mm, 99, NULL);
    assert_string_equal(output(), "(tester): iostream.99<-\n");
}

static void *writer(void *arg)
{
    pthread_setname_np(pthread_self(), (const char *)arg);
    for (int i = 0; i < 2000; i++)
        read_int(i);
    return NULL;
}

static void threads_never_interleave(void **state)
{
    pthread_t a, b;
    pthread_create(&a, NULL, writer, "alpha");
    pthread_create(&b, NULL, writer, "beta");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    int lines = 0;
    for (char *line = strtok((char *)output(), "\n"); line; line = strtok(NULL, "\n")) {
        int x, r;
        char name[16], rest[64];
        lines++;
        if (sscanf(line, "(%15[a-z]): iostream.read_int->(x=%d)%63s", name, &x, rest) == 2 ||
            sscanf(line, "(%15[a-z]): iostream.read_int<-(%d)%63s", name, &r, rest) == 2)
            assert_true(strcmp(name, "alpha") == 0 || strcmp(name, "beta") == 0);
        else
            fail_msg("torn line: %s", line);
    }
    assert_int_equal(lines, 2 * 2 * 2000);
}

/* Thread names are kept per thread (no syscall per line) but follow renames
 * through pthread_setname_np, by the thread itself and by another thread. */
static pthread_barrier_t renamed;

static void *renaming(void *arg)
{
    pthread_setname_np(pthread_self(), "first");
    read_int(1);
    pthread_setname_np(pthread_self(), "second");
    read_int(2);
    pthread_barrier_wait(&renamed); /* main renames us */
    pthread_barrier_wait(&renamed);
    read_int(3);
    return NULL;
}

static void renames_show_in_the_next_line(void **state)
{
    pthread_t t;
    pthread_barrier_init(&renamed, NULL, 2);
    pthread_create(&t, NULL, renaming, NULL);
    pthread_barrier_wait(&renamed);
    assert_int_equal(pthread_setname_np(t, "third"), 0);
    pthread_barrier_wait(&renamed);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&renamed);
    read_int(4);
    assert_string_equal(output(), "(first): iostream.read_int->(x=1)\n"
                                  "(first): iostream.read_int<-(2)\n"
                                  "(second): iostream.read_int->(x=2)\n"
                                  "(second): iostream.read_int<-(4)\n"
                                  "(third): iostream.read_int->(x=3)\n"
                                  "(third): iostream.read_int<-(6)\n"
                                  "(tester): iostream.read_int->(x=4)\n"
                                  "(tester): iostream.read_int<-(8)\n");
}

static void value_format_api(void **state)
{
    char small[6];
    tf_value v = VSTR("s", "abcdefgh");
    assert_int_equal(tf_value_format(small, sizeof small, &v), 10); /* what it needed */
    assert_string_equal(small, "\"a...");
    char buf[32];
    tf_value i = VINT("i", -12);
    assert_int_equal(tf_value_format(buf, sizeof buf, &i), 3);
    assert_string_equal(buf, "-12");
}

static const char *formatted(uint32_t kind, uint32_t size, const void *p, const char *code)
{
    static char buf[256];
    tf_value v = {"v", kind, size, {.p = p}, code};
    assert_true(tf_value_format(buf, sizeof buf, &v) < sizeof buf);
    return buf;
}

/* 128-bit integers in full decimal at their limits, written by hand. */
static void int128_values(void **state)
{
    __int128 min = (__int128)((unsigned __int128)1 << 127), max = ~min, neg1 = -1, zero = 0;
    unsigned __int128 umax = ~(unsigned __int128)0, two64 = (unsigned __int128)1 << 64;
    assert_string_equal(formatted(TF_K_INT128, 16, &min, NULL), "-170141183460469231731687303715884105728");
    assert_string_equal(formatted(TF_K_INT128, 16, &max, NULL), "170141183460469231731687303715884105727");
    assert_string_equal(formatted(TF_K_INT128, 16, &neg1, NULL), "-1");
    assert_string_equal(formatted(TF_K_INT128, 16, &zero, NULL), "0");
    assert_string_equal(formatted(TF_K_UINT128, 16, &umax, NULL), "340282366920938463463374607431768211455");
    assert_string_equal(formatted(TF_K_UINT128, 16, &min, NULL), "170141183460469231731687303715884105728");
    assert_string_equal(formatted(TF_K_UINT128, 16, &two64, NULL), "18446744073709551616");
    assert_string_equal(formatted(TF_K_UINT128, 16, &zero, NULL), "0");
    /* not what the ABI says: shown as unknown, never read */
    assert_string_equal(formatted(TF_K_INT128, 16, NULL, NULL), "?");
    assert_string_equal(formatted(TF_K_INT128, 8, &min, NULL), "?");
}

static void complex_values(void **state)
{
    double d[2] = {1.5, 2}, m[2] = {-1, -0.0}, n[2] = {0, NAN}, inf[2] = {1, -INFINITY};
    float f[2] = {0.25f, -3};
    long double x[2] = {1e-5L, 1e300L * 1e10L};
    assert_string_equal(formatted(TF_K_COMPLEX, 16, d, "f8*2"), "1.5+2i");
    assert_string_equal(formatted(TF_K_COMPLEX, 16, m, "f8*2"), "-1-0i");
    assert_string_equal(formatted(TF_K_COMPLEX, 16, n, "f8*2"), "0+nani");
    assert_string_equal(formatted(TF_K_COMPLEX, 16, inf, "f8*2"), "1-infi");
    assert_string_equal(formatted(TF_K_COMPLEX, 8, f, "f4*2"), "0.25-3i");
    assert_string_equal(formatted(TF_K_COMPLEX, sizeof x, x, "x16*2"), "1e-05+infi"); /* as double */
    /* codes this libtf does not read, or that overrun the value: unknown */
    const char *bad[] = {NULL, "", "f8", "f8*", "f8*2x", "f8*3", "f2*2", "f16*2", "i4*2", "q8*2", "f8*0"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_string_equal(formatted(TF_K_COMPLEX, 16, d, bad[i]), "?");
    assert_string_equal(formatted(TF_K_COMPLEX, 8, d, "f8*2"), "?");
    assert_string_equal(formatted(TF_K_COMPLEX, 16, NULL, "f8*2"), "?");
}

static void vector_values(void **state)
{
    int32_t i4[4] = {1, -2, 3, INT32_MIN};
    uint8_t u1[4] = {255, 0, 1, 2};
    uint64_t u8[2] = {UINT64_MAX, 7};
    int16_t i2[2] = {-32768, 32767};
    float f4[4] = {0.5f, 1, 2e10f, 99}; /* ext_vector_type(3): 3 elements in 16 bytes */
    __int128 i16[2] = {-1, (__int128)1 << 100};
    assert_string_equal(formatted(TF_K_VECTOR, 16, i4, "i4*4"), "{1, -2, 3, -2147483648}");
    assert_string_equal(formatted(TF_K_VECTOR, 16, i4, "u4*4"), "{1, 4294967294, 3, 2147483648}");
    assert_string_equal(formatted(TF_K_VECTOR, 4, u1, "u1*4"), "{255, 0, 1, 2}");
    assert_string_equal(formatted(TF_K_VECTOR, 4, u1, "i1*4"), "{-1, 0, 1, 2}");
    assert_string_equal(formatted(TF_K_VECTOR, 16, u8, "u8*2"), "{18446744073709551615, 7}");
    assert_string_equal(formatted(TF_K_VECTOR, 4, i2, "i2*2"), "{-32768, 32767}");
    assert_string_equal(formatted(TF_K_VECTOR, 16, f4, "f4*3"), "{0.5, 1, 2e+10}");
    assert_string_equal(formatted(TF_K_VECTOR, 32, i16, "i16*2"), "{-1, 1267650600228229401496703205376}");
    const char *bad[] = {NULL, "i4", "i3*4", "i4*5", "i4*999999999", "i4*9999999999", "x8*2", "b1*4", "i4*4*"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_string_equal(formatted(TF_K_VECTOR, 16, i4, bad[i]), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(calls_and_info, setup, teardown),
        cmocka_unit_test_setup_teardown(integers_bools_floats_pointers, setup, teardown),
        cmocka_unit_test_setup_teardown(strings, setup, teardown),
        cmocka_unit_test_setup_teardown(enums_structs_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(results_of_every_kind, setup, teardown),
        cmocka_unit_test_setup_teardown(exceptions, setup, teardown),
        cmocka_unit_test_setup_teardown(long_lines_are_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_ids_print_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(threads_never_interleave, setup, teardown),
        cmocka_unit_test_setup_teardown(renames_show_in_the_next_line, setup, teardown),
        cmocka_unit_test_setup_teardown(value_format_api, setup, teardown),
        cmocka_unit_test_setup_teardown(int128_values, setup, teardown),
        cmocka_unit_test_setup_teardown(complex_values, setup, teardown),
        cmocka_unit_test_setup_teardown(vector_values, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
