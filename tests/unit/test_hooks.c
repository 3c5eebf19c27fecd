/* runtime/hooks.c (docs/code-shape.md 3.2, the compact form): tf_hook_enter
 * and tf_hook_exit put each tf_value together from the template and the
 * payload the call stored, pass NULL to a monitor that reads no values, and
 * leave the stack position the wrappers pass on as they found it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <tf/types.h>

static int seen_id, calls;
static const tf_args *seen_args;
static tf_value seen[4], seen_result;
static uint32_t seen_count;
static int result_null;

static void rec_enter(tf_monitor *self, int id, const tf_args *args)
{
    calls++;
    seen_id = id;
    seen_args = args;
    seen_count = args ? args->count : 0;
    for (uint32_t i = 0; args && i < args->count && i < 4; i++)
        seen[i] = args->values[i];
}

static void rec_exit(tf_monitor *self, int id, const tf_value *result)
{
    calls++;
    seen_id = id;
    result_null = result == NULL;
    if (result)
        seen_result = *result;
}

static tf_monitor_ops values_ops = {.enter = rec_enter, .exit = rec_exit};
static tf_monitor_ops novalues_ops = {.enter = rec_enter, .exit = rec_exit, .flags = TF_OPS_NO_VALUES};

static const tf_value tmpl[3] = {
    {"n", TF_K_INT, 4, {.u = 0}, NULL},
    {"ratio", TF_K_FLOAT, 8, {.u = 0}, NULL},
    {"name", TF_K_STR, 8, {.u = 0}, "const char *"},
};

static void test_enter_values(void **state)
{
    tf_monitor m = {&values_ops, NULL, NULL};
    tf_payload p[3] = {{.i = -7}, {.d = 2.5}, {.s = "abc"}};
    calls = 0;
    tf_hook_enter(&m, 42, 3, tmpl, p);
    assert_int_equal(calls, 1);
    assert_int_equal(seen_id, 42);
    assert_non_null(seen_args);
    assert_int_equal(seen_count, 3);
    assert_string_equal(seen[0].name, "n");
    assert_int_equal(seen[0].kind, TF_K_INT);
    assert_int_equal(seen[0].size, 4);
    assert_int_equal(seen[0].v.i, -7);
    assert_true(seen[1].v.d == 2.5);
    assert_int_equal(seen[1].kind, TF_K_FLOAT);
    assert_string_equal(seen[2].v.s, "abc");
    assert_string_equal((const char *)seen[2].type, "const char *");
}

static void test_enter_no_params(void **state)
{
    tf_monitor m = {&values_ops, NULL, NULL};
    tf_hook_enter(&m, 3, 0, NULL, NULL);
    assert_non_null(seen_args); /* the args, with no values, as generated code passes them */
    assert_int_equal(seen_count, 0);
    assert_null(seen_args->values);
}

static void test_no_values(void **state)
{
    tf_monitor m = {&novalues_ops, NULL, NULL};
    tf_payload p[3] = {{.i = 1}, {.d = 1}, {.s = "x"}};
    tf_hook_enter(&m, 5, 3, tmpl, p);
    assert_null(seen_args);
    tf_payload r = {.i = 9};
    tf_hook_exit(&m, 5, tmpl, &r);
    assert_true(result_null);
}

static void test_exit_value(void **state)
{
    tf_monitor m = {&values_ops, NULL, NULL};
    static const tf_value rt = {NULL, TF_K_UINT, 8, {.u = 0}, NULL};
    tf_payload r = {.u = 123456789012345ull};
    tf_hook_exit(&m, 7, &rt, &r);
    assert_int_equal(seen_id, 7);
    assert_false(result_null);
    assert_null(seen_result.name);
    assert_int_equal(seen_result.kind, TF_K_UINT);
    assert_int_equal(seen_result.v.u, 123456789012345ull);
    tf_hook_exit(&m, 8, NULL, NULL); /* void */
    assert_true(result_null);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enter_values),
        cmocka_unit_test(test_enter_no_params),
        cmocka_unit_test(test_no_values),
        cmocka_unit_test(test_exit_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
