/* Function selection (docs/design.md .ctl.select): which slots of a TU of
 * TF_TU_ABI 3 get their group's monitor, as items are added, reset, applied to
 * TUs that arrive later, and refused when malformed; a TU without slots is
 * named. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <tf/monitors.h>
#include <tf/registry.h>

#include "stderr_of.h"

#define NAME(n, flags, group) {n, flags, group, "sel.c", __LINE__, 0}

/* TU "sel": alpha and beta in group g1, gamma in g2, an info function. */
enum { ALPHA, BETA, GAMMA, NOTE };
static tf_monitor *sel_holders[2], *sel_slots[4];
static const tf_name sel_names[] = {
    NAME("alpha", TF_NAME_MONITOR, 0),
    NAME("beta", TF_NAME_MONITOR, 0),
    NAME("gamma", TF_NAME_MONITOR, 1),
    NAME("note", TF_NAME_INFO, -1),
};
static const tf_tu_group sel_groups[] = {{"g1", &sel_holders[0]}, {"g2", &sel_holders[1]}};
static const char *const g_subs[] = {"g1", "g2"};
static const tf_group_decl sel_decls[] = {{"g", g_subs, 2, 0}};
static tf_tu sel_tu = {3, sizeof(tf_tu), "src/sel.c", "sel", 4, 2, 1, 0,
                       sel_names, sel_groups, sel_decls, "test", sel_slots};

/* TU "late", the same shape, registered after the selection is made. */
static tf_monitor *late_holders[2], *late_slots[4];
static const tf_tu_group late_groups[] = {{"g1", &late_holders[0]}, {"g2", &late_holders[1]}};
static tf_tu late_tu = {3, sizeof(tf_tu), "src/late.c", "late", 4, 2, 1, 0,
                        sel_names, late_groups, sel_decls, "test", late_slots};

/* TU "old": ABI 2, no slots; its functions follow the holders. */
static tf_monitor *old_holder;
static const tf_name old_names[] = {NAME("alpha", TF_NAME_MONITOR, 0)};
static const tf_tu_group old_groups[] = {{"g1", &old_holder}};
static tf_tu old_tu = {2, 72, "src/old.c", "old", 1, 1, 0, 0, old_names, old_groups, NULL, "0.1", NULL};

static tf_monitor *slot(tf_monitor **slots, int id)
{
    return __atomic_load_n(&slots[id], __ATOMIC_ACQUIRE);
}

/* "abc": which of alpha, beta, gamma of a TU have a monitor ('-' if not). */
static const char *on(tf_monitor **slots)
{
    static char s[4];
    for (int id = 0; id < 3; id++)
        s[id] = slot(slots, id) ? "abc"[id] : '-';
    return s;
}

static int setup(void **state)
{
    tf_select_reset();
    tf_clear_all();
    tf_tu_register(&sel_tu);
    return 0;
}

static int teardown(void **state)
{
    tf_tu_unregister(&sel_tu);
    tf_tu_unregister(&late_tu);
    tf_tu_unregister(&old_tu);
    tf_select_reset();
    tf_clear_all();
    return 0;
}

static void without_selection_every_function_follows_its_group(void **state)
{
    assert_string_equal(on(sel_slots), "---");
    assert_int_equal(tf_register("g", tf_noop()), TF_OK);
    assert_string_equal(on(sel_slots), "abc");
    assert_ptr_equal(slot(sel_slots, ALPHA), sel_holders[0]);
    assert_ptr_equal(slot(sel_slots, GAMMA), sel_holders[1]);
    assert_null(slot(sel_slots, NOTE)); /* an info function has no monitor of its own */
    assert_int_equal(tf_clear("g"), TF_OK);
    assert_string_equal(on(sel_slots), "---");
}

static void exclusions_switch_single_functions_off(void **state)
{
    tf_register("g", tf_noop());
    assert_int_equal(tf_select("-beta"), TF_OK);
    assert_string_equal(on(sel_slots), "a-c");
    assert_non_null(sel_holders[0]); /* the group keeps its monitor */
    assert_int_equal(tf_selected(&sel_tu, BETA), 0);
    assert_int_equal(tf_selected(&sel_tu, ALPHA), 1);
    assert_int_equal(tf_selected(&sel_tu, NOTE), TF_EINVAL);
    assert_int_equal(tf_select("-sel.g*"), TF_OK); /* a '.': matched against sel.<name> */
    assert_string_equal(on(sel_slots), "a--");
    assert_int_equal(tf_select("-other.alpha"), TF_OK);
    assert_string_equal(on(sel_slots), "a--");
    tf_select_reset();
    assert_string_equal(on(sel_slots), "abc");
}

/* An item without '*', '?', '[' or '\\' is compared as a string (select.c):
 * the whole name, and with a '.', the whole TU name before it. */
static void literal_items_match_whole_names(void **state)
{
    tf_register("g", tf_noop());
    assert_int_equal(tf_select("-bet, -betaa, -alph, -se.beta, -sel.bet, -sell.gamma, -sel..gamma"), TF_OK);
    assert_string_equal(on(sel_slots), "abc");
    assert_int_equal(tf_select("-sel.beta"), TF_OK);
    assert_string_equal(on(sel_slots), "a-c");
    assert_string_equal(on(late_slots), "---"); /* not registered yet */
    tf_tu_register(&late_tu);
    assert_string_equal(on(late_slots), "abc"); /* -sel.beta is sel's beta only */
    assert_int_equal(tf_select("-gamma"), TF_OK);
    assert_string_equal(on(sel_slots), "a--");
    assert_string_equal(on(late_slots), "ab-");
    tf_select_reset();
    assert_string_equal(on(sel_slots), "abc");
    /* literals and globs in one order: the last that matches decides */
    assert_int_equal(tf_select("-*, +beta, +gamma, -b*, +alpha, -gamma, +gamma"), TF_OK);
    assert_string_equal(on(sel_slots), "a-c");
    tf_select_reset();
    /* thousands of names (select.c looks literals up): each still counts */
    size_t cap = 5000 * 12 + 64, len = 0;
    char *many = malloc(cap);
    assert_non_null(many);
    for (int i = 0; i < 5000; i++)
        len += (size_t)snprintf(many + len, cap - len, "-f%d,", i);
    snprintf(many + len, cap - len, "-late.alpha,-beta,+late.beta,-f7");
    assert_int_equal(tf_select(many), TF_OK);
    free(many);
    assert_string_equal(on(sel_slots), "a-c");
    assert_string_equal(on(late_slots), "-bc");
    tf_select_reset();
}

static void a_first_inclusion_means_only_these(void **state)
{
    tf_register("g", tf_noop());
    assert_int_equal(tf_select("+gamma"), TF_OK);
    assert_string_equal(on(sel_slots), "--c");
    assert_int_equal(tf_select("alpha"), TF_OK); /* a bare glob includes */
    assert_string_equal(on(sel_slots), "a-c");
    tf_select_reset();
    /* the last matching item decides */
    assert_int_equal(tf_select("-*, +b*, -beta"), TF_OK);
    assert_string_equal(on(sel_slots), "---");
    assert_int_equal(tf_select("+*a"), TF_OK);
    assert_string_equal(on(sel_slots), "abc");
}

static void deselected_functions_stay_off_across_registrations(void **state)
{
    tf_select("-alpha");
    tf_register("g1", tf_noop());
    assert_string_equal(on(sel_slots), "-b-");
    tf_register("g", tf_noop()); /* g1's monitor changes: its slots are rewritten */
    assert_string_equal(on(sel_slots), "-bc");
    tf_clear("g");
    assert_string_equal(on(sel_slots), "-b-");
    tf_clear("g1");
    assert_string_equal(on(sel_slots), "---");
}

static void tus_loaded_later_get_the_selection(void **state)
{
    tf_register("g", tf_noop());
    tf_select("-late.beta,-gamma");
    tf_tu_register(&late_tu);
    assert_string_equal(on(late_slots), "a--");
    assert_string_equal(on(sel_slots), "ab-");
    tf_tu_unregister(&late_tu);
    assert_string_equal(on(late_slots), "---");
}

static void malformed_items_change_nothing(void **state)
{
    tf_register("g", tf_noop());
    const char *bad[] = {"", ",", "-beta,,gamma", "[abc", "-beta,x\\", "+", "-", " , "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tf_select(bad[i]), TF_EINVAL);
        assert_string_equal(on(sel_slots), "abc");
    }
    assert_int_equal(tf_select(NULL), TF_EINVAL);
    /* closed classes, escapes and negated classes are fine */
    assert_int_equal(tf_select("-[b]eta,-g\\amma,-[!a]lpha"), TF_OK);
    assert_string_equal(on(sel_slots), "a--");
}

static void register_old(void) { tf_tu_register(&old_tu); }
static void select_alpha_off(void) { tf_select("-alpha"); }

static void a_tu_without_slots_is_named_not_ignored(void **state)
{
    tf_register("g", tf_noop());
    assert_string_equal(stderr_of(register_old), ""); /* nothing deselected yet */
    assert_string_equal(stderr_of(select_alpha_off),
                        "tf: src/old.c: the selection cannot switch off 'alpha': this TU was built "
                        "with TF_TU_ABI 2, without per-function slots; rebuild it with this TF\n");
    assert_non_null(old_holder); /* it follows its group's monitor */
    assert_int_equal(tf_selected(&old_tu, 0), 0);
    assert_string_equal(stderr_of(select_alpha_off), ""); /* said once */
    assert_string_equal(on(sel_slots), "-bc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(without_selection_every_function_follows_its_group, setup, teardown),
        cmocka_unit_test_setup_teardown(exclusions_switch_single_functions_off, setup, teardown),
        cmocka_unit_test_setup_teardown(literal_items_match_whole_names, setup, teardown),
        cmocka_unit_test_setup_teardown(a_first_inclusion_means_only_these, setup, teardown),
        cmocka_unit_test_setup_teardown(deselected_functions_stay_off_across_registrations, setup, teardown),
        cmocka_unit_test_setup_teardown(tus_loaded_later_get_the_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(malformed_items_change_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(a_tu_without_slots_is_named_not_ignored, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
