/* tf_compose flattens and drops duplicates; parts see every event in order;
 * built-in factories are long-lived singletons per argument. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <tf/monitors.h>

#include "fake_tu.h"
#include "stderr_of.h"

static char log_text[512];

struct rec {
    tf_monitor base;
    const char *tag;
};

static void note(tf_monitor *self, const char *what)
{
    strcat(log_text, ((struct rec *)self)->tag);
    strcat(log_text, what);
}
/* "enter(1)": enter with one argument value; "enter(-)": args NULL. */
static void r_enter(tf_monitor *s, int id, const tf_args *a)
{
    note(s, a ? (a->count == 1 ? ":enter(1) " : ":enter(?) ") : ":enter(-) ");
}
static void r_info(tf_monitor *s, const tf_args *a, int c, int id, tf_tp_type tp)
{
    note(s, a ? ":info(v) " : ":info(-) ");
}
static void r_exit(tf_monitor *s, int id, const tf_value *r) { note(s, r ? ":exit(v) " : ":exit(-) "); }
static void r_exception(tf_monitor *s, int id, const tf_exception *e) { note(s, ":exc "); }
static void r_clear(tf_monitor *s) { note(s, ":clear "); }
static void r_destroy(tf_monitor *s) { free(s); }
static const tf_monitor_ops rec_ops = {
    .enter = r_enter, .info = r_info, .exit = r_exit, .exception = r_exception, .clear = r_clear,
    .destroy = r_destroy
};
static const tf_monitor_ops rec_nv_ops = {
    .enter = r_enter, .info = r_info, .exit = r_exit, .exception = r_exception, .clear = r_clear,
    .destroy = r_destroy, .flags = TF_OPS_NO_VALUES
};

/* Factories named "nv..." make monitors that read no values. */
static tf_monitor *rec_create(tf_factory *f, const tf_tu *tu)
{
    struct rec *r = calloc(1, sizeof *r);
    r->base.ops = strncmp(f->name, "nv", 2) ? &rec_ops : &rec_nv_ops;
    r->tag = f->name;
    return &r->base;
}
static tf_factory fa = {"A", rec_create, 0}, fb = {"B", rec_create, 0}, fc = {"C", rec_create, 0};
static tf_factory fnv1 = {"nv1", rec_create, 0}, fnv2 = {"nv2", rec_create, 0};

/* An ops table with bits in flags that no TF_OPS_* defines (as a malloc'd,
 * half-filled one would have), bit 0 among them. */
static const tf_monitor_ops junk_ops = {
    .enter = r_enter, .info = r_info, .exit = r_exit, .exception = r_exception, .clear = r_clear,
    .destroy = r_destroy, .flags = 0xdead0001u
};
static tf_monitor *junk_create(tf_factory *f, const tf_tu *tu)
{
    struct rec *r = calloc(1, sizeof *r);
    r->base.ops = &junk_ops;
    r->tag = f->name;
    return &r->base;
}
static tf_factory fjunk = {"J", junk_create, 0}, fjunk_unguarded = {"U", junk_create, TF_FACTORY_NO_GUARD};

static int setup(void **state)
{
    log_text[0] = 0;
    tf_tu_register(&iostream_tu);
    return 0;
}

static void flattens_and_drops_duplicates(void **state)
{
    tf_factory *ab[] = {&fa, &fb};
    tf_factory *ab_c = tf_compose(ab, 2);
    tf_factory *nested[] = {ab_c, &fb, &fc, &fa};
    tf_factory *all = tf_compose(nested, 4);
    assert_int_equal(tf_register("io_read", all), TF_OK);
    tf_monitor *parts[8];
    assert_int_equal(tf_monitor_parts(hook_load(&holder_io_read), parts, 8), 3);
    assert_string_equal(parts[0]->factory->name, "A");
    assert_string_equal(parts[1]->factory->name, "B");
    assert_string_equal(parts[2]->factory->name, "C");
    read_int(1);
    assert_string_equal(log_text, "A:enter(1) B:enter(1) C:enter(1) A:exit(v) B:exit(v) C:exit(v) ");
    write_long(1); /* io_write has nothing registered */
    assert_string_equal(log_text, "A:enter(1) B:enter(1) C:enter(1) A:exit(v) B:exit(v) C:exit(v) ");
}

static void degenerate_compositions(void **state)
{
    tf_factory *one[] = {&fa};
    tf_factory *twice[] = {&fa, &fa};
    tf_factory *none[] = {NULL};
    assert_ptr_equal(tf_compose(one, 1), &fa);
    assert_ptr_equal(tf_compose(twice, 2), &fa);
    assert_null(tf_compose(none, 1));
    assert_null(tf_compose(NULL, 0));
}

static void every_event_is_forwarded(void **state)
{
    tf_factory *ab[] = {&fa, &fb};
    tf_register("io_write", tf_compose(ab, 2));
    tf_monitor *m = hook_load(&holder_io_write);
    write_long(3);
    tf_exception e = {TF_EXC_NORETURN, 0, "exit", NULL};
    m->ops->exception(m, ID_WRITE_LONG, &e);
    m->ops->clear(m);
    assert_string_equal(log_text, "A:enter(1) B:enter(1) A:info(v) B:info(v) A:exit(-) B:exit(-) A:exc B:exc "
                                  "A:clear B:clear ");
}

static void builtin_factories_are_singletons(void **state)
{
    assert_ptr_equal(tf_noop(), tf_noop());
    assert_ptr_equal(tf_operation_tracer(), tf_operation_tracer());
    assert_ptr_equal(tf_dprint(stderr), tf_dprint(stderr));
    assert_ptr_not_equal(tf_dprint(stderr), tf_dprint(stdout));
    assert_null(tf_dprint(NULL));
    assert_string_equal(tf_noop()->name, "noop");
    assert_string_equal(tf_dprint(stderr)->name, "dprint");
    assert_string_equal(tf_operation_tracer()->name, "tracer");
    tf_register("io", tf_noop());
    assert_int_equal(read_int(5), 10);
    write_long(5);
}

/* TF_OPS_NO_VALUES: a composition skips building values only when no part
 * reads them; the reentrancy guard around user monitors keeps the flag. */
static void values_only_for_monitors_that_read_them(void **state)
{
    tf_factory *nn[] = {&fnv1, &fnv2}, *na[] = {&fnv1, &fa};
    tf_register("io_read", &fnv1);
    tf_monitor *m = hook_load(&holder_io_read);
    assert_true(m->ops->flags & TF_OPS_NO_VALUES); /* the guard, passing the flag on */
    assert_int_equal(tf_monitor_parts(m, NULL, 0), 1);
    read_int(1);
    assert_string_equal(log_text, "nv1:enter(-) nv1:exit(-) ");

    log_text[0] = 0;
    tf_register("io_read", tf_compose(nn, 2));
    assert_true(hook_load(&holder_io_read)->ops->flags & TF_OPS_NO_VALUES);
    read_int(1);
    assert_string_equal(log_text, "nv1:enter(-) nv2:enter(-) nv1:exit(-) nv2:exit(-) ");

    log_text[0] = 0;
    tf_register("io_read", tf_compose(na, 2));
    assert_false(hook_load(&holder_io_read)->ops->flags & TF_OPS_NO_VALUES);
    read_int(1);
    assert_string_equal(log_text, "nv1:enter(1) A:enter(1) nv1:exit(v) A:exit(v) ");

    log_text[0] = 0; /* info: the registry composes what reaches io_write */
    tf_register("io_write", &fnv2);
    write_long(3);
    assert_string_equal(log_text, "nv2:enter(-) nv2:info(-) nv2:exit(-) ");
    tf_register("io_write", &fb);
    log_text[0] = 0;
    write_long(3);
    assert_string_equal(log_text, "B:enter(1) B:info(v) B:exit(-) ");

    tf_clear("io_read");
    tf_register("io", tf_noop());
    assert_true(hook_load(&holder_io_read)->ops->flags & TF_OPS_NO_VALUES);
    assert_false(hook_load(&holder_io_write)->ops->flags & TF_OPS_NO_VALUES); /* noop + B */
}

static void register_junk(void)
{
    tf_register("io_read", &fjunk);
    tf_register("io_write", &fjunk_unguarded);
    tf_register("io_read", &fjunk_unguarded); /* the same ops again: said once */
}

/* Flags with undefined bits are not trusted: said on stderr, and values are
 * built for that monitor, guarded or not. */
static void junk_flags_still_get_values(void **state)
{
    const char *err = stderr_of(register_junk);
    assert_non_null(strstr(err, "tf: monitor factory 'J': tf_monitor_ops.flags is 0xdead0001"));
    assert_null(strstr(err, "factory 'U'"));
    tf_monitor *m = hook_load(&holder_io_read);
    assert_ptr_not_equal(m->ops, &junk_ops); /* the guard, though U asked for none */
    assert_false(m->ops->flags & TF_OPS_NO_VALUES);
    read_int(1);
    write_long(2);
    assert_string_equal(log_text, "U:enter(1) U:exit(v) U:enter(1) U:exit(-) ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(flattens_and_drops_duplicates, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(degenerate_compositions, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(every_event_is_forwarded, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(builtin_factories_are_singletons, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(values_only_for_monitors_that_read_them, setup, iostream_teardown),
        cmocka_unit_test_setup_teardown(junk_flags_still_get_values, setup, iostream_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
