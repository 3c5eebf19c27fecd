/*
 * fake_tu.h: translation units built by hand, exactly as the plugins emit them
 * (docs/code-shape.md), and hooks called the way generated code calls them.
 *
 * The "iostream" TU of the paper: groups io (io_read, io_write), io_read and
 * io_write; monitored read_int (io_read) and write_long (io_write); info
 * functions odd_value (TF_TP_NONE) and the flush ENTER/EXIT pair.
 */
#ifndef TF_TESTS_FAKE_TU_H
#define TF_TESTS_FAKE_TU_H

#include <tf/registry.h>

#define NAME(n, flags, group) {n, flags, group, "iostream.c", __LINE__, 0}

enum { ID_FLUSH, ID_ODD_VALUE, ID_READ_INT, ID_WRITE_LONG }; /* sorted order */

static tf_monitor *holder_io_read, *holder_io_write;
static const tf_name io_names[] = {
    NAME("flush", TF_NAME_INFO | TF_NAME_TP_ENTER | TF_NAME_TP_EXIT, -1),
    NAME("odd_value", TF_NAME_INFO, -1),
    NAME("read_int", TF_NAME_MONITOR, 0),
    NAME("write_long", TF_NAME_MONITOR, 1),
};
static const tf_tu_group io_groups[] = {
    {"io_read", &holder_io_read},
    {"io_write", &holder_io_write},
};
static const char *const io_subs[] = {"io_read", "io_write"};
static const tf_group_decl io_decls[] = {
    {"io", io_subs, 2, 0},
    {"io_read", NULL, 0, 0},
    {"io_write", NULL, 0, 0},
};
static tf_tu iostream_tu __attribute__((unused)) = {TF_TU_ABI, sizeof(tf_tu), "src/iostream.c", "iostream", 4, 2, 3, 0,
                            io_names, io_groups, io_decls, NULL, NULL};
/* The same TU as a plugin of a future TF would emit it: libtf refuses it. */
#define FUTURE_TU_ABI 99u
static tf_tu future_tu __attribute__((unused)) = {FUTURE_TU_ABI, sizeof(tf_tu), "src/future.c", "future", 4, 2, 3, 0,
                            io_names, io_groups, io_decls, "9.4", NULL};

/* The cmocka teardown of tests that register iostream_tu in their setup. */
__attribute__((unused)) static int iostream_teardown(void **state)
{
    tf_clear_all();
    tf_tu_unregister(&iostream_tu);
    return 0;
}

/* What the plugin generates around a body, in a form tests can call. */
static inline tf_monitor *hook_load(tf_monitor **holder)
{
    return __atomic_load_n(holder, __ATOMIC_ACQUIRE);
}

/* Values are built only for monitors that read them (TF_OPS_NO_VALUES). */
static inline int hook_values(tf_monitor *mm)
{
    return !(mm->ops->flags & TF_OPS_NO_VALUES);
}

static inline void hook_enter(tf_monitor *mm, int id, const tf_value *v, uint32_t n)
{
    tf_args a = {n, 0, v};
    if (mm)
        mm->ops->enter(mm, id, hook_values(mm) ? &a : NULL);
}

/* Never a tail call (the barrier), as in generated code: monitors that match
 * an exit to its entry by the caller's stack position (tracer, conditions)
 * would see the caller's caller's position after a jump to the hook. */
static inline void hook_exit(tf_monitor *mm, int id, const tf_value *result)
{
    if (mm)
        mm->ops->exit(mm, id, hook_values(mm) ? result : NULL);
    __asm__ volatile("" ::: "memory");
}

/* What the unwind cleanup (or a noreturn call) reports before the exit. */
static inline void hook_exception(tf_monitor *mm, int id, tf_exc_kind kind)
{
    tf_exception e = {kind, 0, NULL, NULL};
    if (mm)
        mm->ops->exception(mm, id, &e);
}

static inline void hook_info(tf_monitor *mm, int caller, int self, tf_tp_type tp,
                             const tf_value *v, uint32_t n)
{
    tf_args a = {n, 0, v};
    if (mm)
        mm->ops->info(mm, hook_values(mm) ? &a : NULL, caller, self, tp);
}

#define VINT(n, x) {n, TF_K_INT, sizeof(int), {.i = (x)}, NULL}
#define VLONG(n, x) {n, TF_K_INT, sizeof(long), {.i = (x)}, NULL}
#define VUINT(n, x) {n, TF_K_UINT, sizeof(unsigned), {.u = (x)}, NULL}
#define VSTR(n, x) {n, TF_K_STR, sizeof(char *), {.s = (x)}, NULL}

/* A monitored function as generated: int read_int(int x) in group io_read. */
static inline int read_int(int x)
{
    tf_monitor *mm = hook_load(&holder_io_read);
    if (mm) {
        tf_value v[] = {VINT("x", x)};
        hook_enter(mm, ID_READ_INT, v, 1);
    }
    int r = 2 * x;
    if (mm) {
        tf_value rv = VINT(NULL, r);
        hook_exit(mm, ID_READ_INT, &rv);
    }
    return r;
}

/* void write_long(long v) in group io_write, calling odd_value for odd v. */
static inline void write_long(long value)
{
    tf_monitor *mm = hook_load(&holder_io_write);
    if (mm) {
        tf_value v[] = {VLONG("value", value)};
        hook_enter(mm, ID_WRITE_LONG, v, 1);
    }
    if (value % 2) {
        tf_value v[] = {VSTR("msg", "An odd value"), VLONG("v", value)};
        hook_info(mm, ID_WRITE_LONG, ID_ODD_VALUE, TF_TP_NONE, v, 2);
    }
    hook_exit(mm, ID_WRITE_LONG, NULL);
}

#endif
