/* Registry: name tables, group graph, composition, late and leaving TUs,
 * reuse of monitors, malformed descriptors, user monitors, guard and errno. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <tf/monitors.h>

#include "fake_tu.h"
#include "stderr_of.h"

/* ---- a user monitor that counts what it sees --------------------------------- */

struct counting {
    tf_monitor base;
    int enters, exits, infos, exceptions;
    int *destroyed;
};
static int destroyed_count;
static int reenter; /* the monitor calls monitored code when set */

static void c_enter(tf_monitor *self, int id, const tf_args *a)
{
    ((struct counting *)self)->enters++;
    errno = EBADF; /* hooks must not leak this */
    if (reenter)
        read_int(1);
}
static void c_exit(tf_monitor *self, int id, const tf_value *r)
{
    ((struct counting *)self)->exits++;
}
static void c_info(tf_monitor *self, const tf_args *a, int caller, int id, tf_tp_type tp)
{
    ((struct counting *)self)->infos++;
}
static void c_destroy(tf_monitor *self)
{
    destroyed_count++;
    free(self);
}
/* exception and clear left NULL on purpose: a user monitor may. */
static const tf_monitor_ops counting_ops = {
    .enter = c_enter, .info = c_info, .exit = c_exit, .destroy = c_destroy
};

static tf_monitor *counting_create(tf_factory *f, const tf_tu *tu)
{
    struct counting *c = calloc(1, sizeof *c);
    c->base.ops = &counting_ops;
    return &c->base;
}
static tf_factory counting_a = {"count_a", counting_create, 0};
static tf_factory counting_b = {"count_b", counting_create, 0};

static struct counting *leaf(tf_monitor *m, size_t i)
{
    tf_monitor *parts[8];
    size_t n = tf_monitor_parts(m, parts, 8);
    assert_true(i < n);
    return (struct counting *)parts[i];
}

static int setup(void **state)
{
    tf_tu_register(&iostream_tu);
    return 0;
}

/* ---- tests -------------------------------------------------------------------- */

static void name_tables(void **state)
{
    assert_string_equal(tf_method_name(&iostream_tu, ID_READ_INT), "read_int");
    assert_string_equal(tf_method_name(&iostream_tu, ID_FLUSH), "flush");
    assert_int_equal(tf_method_id(&iostream_tu, "write_long"), ID_WRITE_LONG);
    assert_int_equal(tf_method_id(&iostream_tu, "odd_value"), ID_ODD_VALUE);
    assert_int_equal(tf_method_id(&iostream_tu, "nope"), TF_ENOENT);
    assert_int_equal(tf_method_id(&iostream_tu, "a"), TF_ENOENT);
    assert_int_equal(tf_method_id(&iostream_tu, "zzz"), TF_ENOENT);
    assert_null(tf_method_name(&iostream_tu, 4));
    assert_null(tf_method_name(&iostream_tu, -1));
    assert_null(tf_method_name(NULL, 0));
    assert_ptr_equal(tf_tu_find("iostream"), &iostream_tu);
    assert_ptr_equal(tf_tu_find("src/iostream.c"), &iostream_tu);
    assert_null(tf_tu_find("other"));
}

static void nothing_registered_means_null_holders(void **state)
{
    assert_null(hook_load(&holder_io_read));
    assert_null(hook_load(&holder_io_write));
    assert_int_equal(read_int(21), 42);
}

static void register_on_parent_reaches_subgroups(void **state)
{
    assert_int_equal(tf_register("io", &counting_a), TF_OK);
    assert_ptr_equal(tf_registered_factory("io"), &counting_a);
    tf_monitor *r = hook_load(&holder_io_read), *w = hook_load(&holder_io_write);
    assert_non_null(r);
    assert_non_null(w);
    assert_ptr_not_equal(r, w); /* one monitor per holder */
    assert_ptr_equal(r->factory, &counting_a);
    assert_ptr_equal(tf_monitor_for_tu(&iostream_tu, "io_read"), r);
    read_int(1);
    write_long(3);
    assert_int_equal(leaf(r, 0)->enters, 1);
    assert_int_equal(leaf(r, 0)->exits, 1);
    assert_int_equal(leaf(w, 0)->enters, 1);
    assert_int_equal(leaf(w, 0)->infos, 1);
    assert_int_equal(tf_clear("io"), TF_OK);
    assert_null(hook_load(&holder_io_read));
    assert_null(tf_registered_factory("io"));
}

static void register_on_subgroup_only(void **state)
{
    assert_int_equal(tf_register("io_read", &counting_a), TF_OK);
    assert_non_null(hook_load(&holder_io_read));
    assert_null(hook_load(&holder_io_write));
}

static void both_levels_compose(void **state)
{
    tf_register("io_read", &counting_a);
    tf_register("io", &counting_b);
    tf_monitor *parts[4];
    tf_monitor *r = hook_load(&holder_io_read);
    assert_int_equal(tf_monitor_parts(r, parts, 4), 2);
    assert_ptr_equal(parts[0]->factory, &counting_a); /* the group's own first */
    assert_ptr_equal(parts[1]->factory, &counting_b);
    assert_int_equal(tf_monitor_parts(hook_load(&holder_io_write), parts, 4), 1);
    assert_ptr_equal(parts[0]->factory, &counting_b);
    read_int(5);
    assert_int_equal(leaf(r, 0)->enters, 1);
    assert_int_equal(leaf(r, 1)->enters, 1);
    /* the same factory on both levels is one monitor */
    tf_register("io", &counting_a);
    assert_int_equal(tf_monitor_parts(hook_load(&holder_io_read), parts, 4), 1);
}

static void replacing_and_reusing(void **state)
{
    tf_register("io", &counting_a);
    tf_monitor *first = hook_load(&holder_io_read);
    tf_register("io", &counting_b); /* a later call replaces */
    assert_ptr_equal(tf_registered_factory("io"), &counting_b);
    assert_ptr_not_equal(hook_load(&holder_io_read), first);
    tf_register("io", &counting_a);
    assert_ptr_equal(hook_load(&holder_io_read), first); /* kept, not rebuilt */
}

static tf_monitor *late_holder;
static const tf_name late_names[] = {{"poll", TF_NAME_MONITOR, 0, "late.c", 3, 0}};
static const tf_tu_group late_groups[] = {{"net", &late_holder}};
static const tf_group_decl late_decls[] = {{"net", NULL, 0, 0}};
static tf_tu late_tu = {TF_TU_ABI, sizeof(tf_tu), "late.c", "late", 1, 1, 1, 0,
                        late_names, late_groups, late_decls, NULL, NULL};

static void late_tu_gets_monitor_and_leaves_cleanly(void **state)
{
    assert_false(tf_group_known("net"));
    assert_int_equal(tf_register("net", &counting_a), TF_OK); /* before any TU has it */
    assert_false(tf_group_known("net"));                      /* remembered, not declared */
    int before = destroyed_count;
    tf_tu_register(&late_tu);
    assert_true(tf_group_known("net"));
    tf_monitor *m = hook_load(&late_holder);
    assert_non_null(m);
    assert_ptr_equal(m->tu, &late_tu);
    tf_register("net", &counting_b); /* a second monitor, kept for running frames */
    tf_tu_unregister(&late_tu);
    assert_null(hook_load(&late_holder));
    assert_null(tf_tu_find("late"));
    assert_int_equal(destroyed_count, before + 2); /* both, at unregistration */
    tf_tu_unregister(&late_tu);                    /* twice is harmless */
}

static tf_monitor *net_holder;
static const tf_tu_group net_groups[] = {{"io_read", &net_holder}};
static const char *const io_more[] = {"io_read", "io_net"};
static const char *const back_edge[] = {"io"};
static const tf_group_decl net_decls[] = {
    {"io", io_more, 2, 0},
    {"io_net", NULL, 0, 0},
    {"io_read", back_edge, 1, 0}, /* io_read -> io closes a cycle */
};
static const tf_name net_names[] = {{"recv", TF_NAME_MONITOR, 0, "net.c", 1, 0}};
static tf_tu net_tu = {TF_TU_ABI, sizeof(tf_tu), "net.c", "net", 1, 1, 3, 0,
                       net_names, net_groups, net_decls, NULL, NULL};

static void groups_merge_across_tus_and_cycles_are_refused(void **state)
{
    tf_tu_register(&net_tu);
    const char *subs[8];
    int n = tf_group_subgroups("io", subs, 8);
    assert_int_equal(n, 3);
    assert_string_equal(subs[0], "io_read");
    assert_string_equal(subs[1], "io_write");
    assert_string_equal(subs[2], "io_net");
    assert_int_equal(tf_group_subgroups("io_read", subs, 8), 0); /* the cycle edge was dropped */
    assert_int_equal(tf_group_subgroups("no_such", subs, 8), TF_ENOENT);
    tf_register("io", &counting_a);
    assert_non_null(hook_load(&net_holder)); /* two TUs share group io_read */
    assert_non_null(hook_load(&holder_io_read));
    tf_tu_unregister(&net_tu);
}

/* 300 groups contain one group, 70 of them (the last ones) with a factory:
 * its holder composes all 70. Fixed arrays once kept the first 256 groups
 * and 64 factories, silently. */
#define NWIDE 300
#define NFACT 70
static tf_monitor *wide_holder;
static const tf_tu_group wide_groups[] = {{"wide_leaf", &wide_holder}};
static const char *const wide_sub[] = {"wide_leaf"};
static const tf_name wide_names[] = {{"f", TF_NAME_MONITOR, 0, "wide.c", 1, 0}};

static void many_containing_groups_and_factories(void **state)
{
    static char names[NWIDE][16];
    static tf_group_decl decls[NWIDE];
    static tf_factory fs[NFACT];
    for (int i = 0; i < NWIDE; i++) {
        snprintf(names[i], sizeof names[i], "wide_%03d", i);
        decls[i] = (tf_group_decl){names[i], wide_sub, 1, 0};
    }
    static tf_tu wide_tu = {TF_TU_ABI, sizeof(tf_tu), "wide.c", "wide", 1, 1, NWIDE, 0,
                            wide_names, wide_groups, decls, NULL, NULL};
    tf_tu_register(&wide_tu);
    for (int i = 0; i < NFACT; i++) {
        fs[i] = (tf_factory){"count", counting_create, 0};
        assert_int_equal(tf_register(names[NWIDE - NFACT + i], &fs[i]), TF_OK);
    }
    tf_monitor *parts[NFACT + 1];
    assert_int_equal(tf_monitor_parts(hook_load(&wide_holder), parts, NFACT + 1), NFACT);
    tf_clear_all();
    tf_tu_unregister(&wide_tu);
}

static void malformed_descriptors_are_refused(void **state)
{
    static tf_monitor *h;
    static const tf_name unsorted[] = {{"b", TF_NAME_MONITOR, 0, "x.c", 1, 0},
                                       {"a", TF_NAME_MONITOR, 0, "x.c", 2, 0}};
    static const tf_name bad_group[] = {{"a", TF_NAME_MONITOR, 5, "x.c", 1, 0}};
    static const tf_tu_group g[] = {{"gx", &h}};
    static tf_tu t1 = {TF_TU_ABI, sizeof(tf_tu), "x.c", "x1", 2, 1, 0, 0, unsorted, g, NULL, NULL, NULL};
    static tf_tu t2 = {TF_TU_ABI, sizeof(tf_tu), "x.c", "x2", 1, 1, 0, 0, bad_group, g, NULL, NULL, NULL};
    static tf_tu t3 = {TF_TU_ABI + 1, sizeof(tf_tu), "x.c", "x3", 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL};
    static tf_tu t4 = {TF_TU_ABI, sizeof(tf_tu), "x.c", "x4", 1, 0, 0, 0, NULL, NULL, NULL, NULL, NULL};
    tf_tu_register(&t1);
    tf_tu_register(&t2);
    tf_tu_register(&t3);
    tf_tu_register(&t4);
    tf_tu_register(NULL);
    assert_null(tf_tu_find("x1"));
    assert_null(tf_tu_find("x2"));
    assert_null(tf_tu_find("x3"));
    assert_null(tf_tu_find("x4"));
}

/* Code from a plugin of ABI 1 (which never reads tf_monitor_ops.flags) still
 * registers; ABI 0 and anything newer than this libtf do not. */
static void older_abi_is_taken(void **state)
{
    static tf_monitor *h1;
    static const tf_name n1[] = {{"old_fn", TF_NAME_MONITOR, 0, "old.c", 1, 0}};
    static const tf_tu_group g1[] = {{"io", &h1}};
    static tf_tu abi1 = {1, sizeof(tf_tu), "old.c", "old", 1, 1, 0, 0, n1, g1, NULL, NULL, NULL};
    static tf_tu abi0 = {0, sizeof(tf_tu), "zero.c", "zero", 1, 1, 0, 0, n1, g1, NULL, NULL, NULL};
    tf_tu_register(&abi0);
    assert_null(tf_tu_find("zero"));
    tf_tu_register(&abi1);
    assert_ptr_equal(tf_tu_find("old"), &abi1);
    assert_int_equal(tf_register("io", &counting_a), TF_OK);
    assert_non_null(hook_load(&h1));
    tf_tu_unregister(&abi1);
}

static void register_tu(void *tu)
{
    tf_tu_register(tu);
}

/* What tf_tu_register says on stderr about tu. */
static const char *register_message(tf_tu *tu)
{
    return stderr_of_call(register_tu, tu);
}

/* A TU of a TF_TU_ABI this libtf does not take is named, with the TF that
 * built it and this libtf's version and range. */
static void future_abi_is_refused_naming_both_versions(void **state)
{
    char want[512];
    snprintf(want, sizeof want,
             "tf: src/future.c: TU not registered: it has TF_TU_ABI 99 (built by TF 9.4); "
             "this libtf (TF %s) takes TF_TU_ABI 1 to %u\n", TF_VERSION, TF_TU_ABI);
    assert_string_equal(register_message(&future_tu), want);
    assert_null(tf_tu_find("future"));
    /* A descriptor of 64 bytes (before tf_tu.version) is named without one. */
    static tf_tu old_future = {FUTURE_TU_ABI, TF_TU_MIN_SIZE, "old.c", "old", 0, 0, 0, 0, NULL, NULL, NULL,
                               "garbage past the end", NULL};
    snprintf(want, sizeof want,
             "tf: old.c: TU not registered: it has TF_TU_ABI 99 (built by a TF that does not record "
             "its version); this libtf (TF %s) takes TF_TU_ABI 1 to %u\n", TF_VERSION, TF_TU_ABI);
    assert_string_equal(register_message(&old_future), want);
}

/* The version field came without an ABI bump: 64-byte descriptors of ABI 2
 * still register; smaller ones do not. */
static void descriptors_without_version_are_taken(void **state)
{
    static tf_monitor *h;
    static const tf_name n[] = {{"f", TF_NAME_MONITOR, 0, "short.c", 1, 0}};
    static const tf_tu_group g[] = {{"io", &h}};
    static tf_tu short_tu = {TF_TU_ABI, TF_TU_MIN_SIZE, "short.c", "short", 1, 1, 0, 0, n, g, NULL, NULL, NULL};
    static tf_tu tiny_tu = {TF_TU_ABI, TF_TU_MIN_SIZE - 8, "tiny.c", "tiny", 1, 1, 0, 0, n, g, NULL, NULL, NULL};
    assert_string_equal(register_message(&short_tu), "");
    assert_ptr_equal(tf_tu_find("short"), &short_tu);
    assert_string_equal(register_message(&tiny_tu), "tf: tiny.c: TU not registered: descriptor too small\n");
    assert_null(tf_tu_find("tiny"));
    tf_tu_unregister(&short_tu);
}

static void bad_arguments(void **state)
{
    static tf_factory no_create = {"broken", NULL, 0};
    assert_int_equal(tf_register(NULL, &counting_a), TF_EINVAL);
    assert_int_equal(tf_register("", &counting_a), TF_EINVAL);
    assert_int_equal(tf_register("io", NULL), TF_EINVAL);
    assert_int_equal(tf_register("io", &no_create), TF_EINVAL);
    assert_int_equal(tf_clear(NULL), TF_EINVAL);
    assert_null(tf_registered_factory(NULL));
    assert_null(tf_monitor_for_tu(&iostream_tu, "no_such"));
    assert_int_equal(tf_method_id(NULL, "x"), TF_EINVAL);
}

static void guard_stops_recursion_and_errno_is_kept(void **state)
{
    tf_register("io_read", &counting_a);
    struct counting *c = leaf(hook_load(&holder_io_read), 0);
    reenter = 1;
    errno = ENOENT;
    assert_int_equal(read_int(4), 8);
    reenter = 0;
    assert_int_equal(errno, ENOENT);
    assert_int_equal(c->enters, 1); /* the nested read_int was not seen */
    assert_int_equal(c->exits, 1);
    tf_value v[] = {VINT("x", 1)};
    tf_exception e = {TF_EXC_THROW, 0, NULL, NULL};
    tf_monitor *m = hook_load(&holder_io_read);
    m->ops->exception(m, ID_READ_INT, &e); /* NULL in the user's ops: skipped */
    hook_enter(m, ID_READ_INT, v, 1);
    assert_int_equal(c->enters, 2);
}

static int count_tu(const tf_tu *tu, void *arg)
{
    ++*(int *)arg;
    return 0;
}

static void foreach_visits_registered(void **state)
{
    int n = 0;
    assert_int_equal(tf_tu_foreach(count_tu, &n), 0);
    assert_int_equal(n, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(name_tables, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(nothing_registered_means_null_holders, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(register_on_parent_reaches_subgroups, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(register_on_subgroup_only, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(both_levels_compose, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(replacing_and_reusing, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(late_tu_gets_monitor_and_leaves_cleanly, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(groups_merge_across_tus_and_cycles_are_refused, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(many_containing_groups_and_factories, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(malformed_descriptors_are_refused, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(older_abi_is_taken, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(future_abi_is_refused_naming_both_versions, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(descriptors_without_version_are_taken, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(bad_arguments, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(guard_stops_recursion_and_errno_is_kept, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(foreach_visits_registered, setup, iostream_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
