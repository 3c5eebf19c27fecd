/* nearest/ (docs/design.md .silent.nearest): the distance, the limit that
 * grows with the name, the closest names only, each once, alphabetically,
 * and the wording every message uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nearest.h"

static void test_distance(void **state)
{
    assert_int_equal(tf_nearest_distance("work", "work", 3), 0);
    assert_int_equal(tf_nearest_distance("wrok", "work", 3), 1);     /* a swap */
    assert_int_equal(tf_nearest_distance("dprnt", "dprint", 3), 1);  /* a letter left out */
    assert_int_equal(tf_nearest_distance("dprintt", "dprint", 3), 1);
    assert_int_equal(tf_nearest_distance("tracor", "tracer", 3), 1); /* one replaced */
    assert_int_equal(tf_nearest_distance("DPRINT", "dprint", 3), 0); /* case ignored */
    assert_int_equal(tf_nearest_distance("", "abc", 3), 3);
    assert_int_equal(tf_nearest_distance("kitten", "sitting", 5), 3);
    /* Over the limit: limit + 1, whatever the real distance. */
    assert_int_equal(tf_nearest_distance("kitten", "sitting", 2), 3);
    assert_int_equal(tf_nearest_distance("a", "abcdefgh", 1), 2);
}

static const char *say(const char *want, const char *const *names)
{
    static char out[256];
    tf_nearest n;
    tf_nearest_begin(&n, want);
    for (; *names; names++)
        tf_nearest_offer(&n, *names);
    tf_nearest_say(&n, out, sizeof out);
    tf_nearest_end(&n);
    return out;
}

static void test_wording(void **state)
{
    const char *const groups[] = {"app", "parse", "work", "worker", NULL};
    assert_string_equal(say("wrok", groups), "did you mean 'work'?");
    assert_string_equal(say("nosuchgroup", groups), "");
    assert_string_equal(say("work", groups), ""); /* the name itself is no suggestion */
    const char *const two[] = {"tracer", "tracet", "dprint", NULL};
    assert_string_equal(say("tracex", two), "did you mean 'tracer' or 'tracet'?");
    const char *const three[] = {"ab", "ac", "ad", "ae", NULL};
    /* Four at distance 1: the first three alphabetically. */
    assert_string_equal(say("aa", three), "did you mean 'ab', 'ac' or 'ad'?");
}

static void test_closest_only(void **state)
{
    /* parse is 1 away (a swap), parser 2, parsing 3: only parse is said. */
    const char *const names[] = {"parsing", "parser", "parse", NULL};
    assert_string_equal(say("prase", names), "did you mean 'parse'?");
    const char *const dup[] = {"io", "io", "oi", NULL};
    assert_string_equal(say("IO", dup), "did you mean 'io'?"); /* once, case ignored */
}

static void test_limits(void **state)
{
    /* One letter: nothing but a different case is near. */
    const char *const one[] = {"b", "A", NULL};
    assert_string_equal(say("a", one), "did you mean 'A'?");
    /* 2-4 letters: 1; 5-8: 2; longer: 3. */
    const char *const four[] = {"wxyz", NULL};
    assert_string_equal(say("wxab", four), "");
    const char *const eight[] = {"dprinter", NULL};
    assert_string_equal(say("dprintab", eight), "did you mean 'dprinter'?");
    assert_string_equal(say("dprinabc", eight), "");
    const char *const long_one[] = {"TF_RECORD_VALUES", NULL};
    assert_string_equal(say("TF_RECRD_VALUSE", long_one), "did you mean 'TF_RECORD_VALUES'?");
}

static void test_small_buffer(void **state)
{
    tf_nearest n;
    char out[8];
    tf_nearest_begin(&n, "wrok");
    tf_nearest_offer(&n, "work");
    size_t len = tf_nearest_say(&n, out, sizeof out);
    tf_nearest_end(&n);
    assert_int_equal(len, 7);
    assert_string_equal(out, "did you");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_wording),
        cmocka_unit_test(test_closest_only),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_small_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
