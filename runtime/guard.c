/*
 * guard.c: the reentrancy guard around user monitors (docs/design.md
 * .reg.guard: a monitor that calls monitored code must not recurse into itself;
 * hooks never change errno). Built-in monitors guard themselves and opt out
 * with TF_FACTORY_NO_GUARD; every other factory's monitors get wrapped here.
 */
#include <stdlib.h>

#include "internal.h"

TF_TLS int tf__in_monitor;
TF_TLS uintptr_t tf__hook_sp;
uint64_t tf__untraced;

/* .req: no silent loss. Once per process, after the program's exit handlers. */
static void say_untraced(void)
{
    uint64_t n = __atomic_load_n(&tf__untraced, __ATOMIC_RELAXED);
    uint64_t nomem = __atomic_load_n(&tf__pages_failed, __ATOMIC_RELAXED);
    if (nomem)
        fprintf(stderr, "tf: out of memory %llu time%s for a thread's tracing state (mmap failed): "
                        "the calls it was for are missing from the trace\n",
                (unsigned long long)nomem, nomem == 1 ? "" : "s");
    if (n)
        fprintf(stderr,
                "tf: %llu call%s not traced: made while a hook or libtf itself ran on the same thread "
                "(a signal handler, or a monitor's own code); counted once per monitor that skipped it\n",
                (unsigned long long)n, n == 1 ? "" : "s");
}

void tf__untraced_init(void)
{
    tf__at_exit(say_untraced);
}

struct guard {
    tf_monitor base;
    tf_monitor *inner;
};

#define INNER(self) (((struct guard *)(self))->inner)

/* The user monitor sees the hook's stack position, not the guard's. */
#define GUARDED(call, op, ...)                                                 \
    do {                                                                       \
        tf_monitor *in = INNER(self);                                          \
        if (!in->ops->op)                                                      \
            return; /* a user monitor may leave ops it has no use for NULL */  \
        TF_GUARD_BEGIN(call);                                                  \
        TF_PASS_HOOK_SP(in->ops->op(in, __VA_ARGS__));                         \
        TF_GUARD_END();                                                        \
    } while (0)

static void g_enter(tf_monitor *self, int id, const tf_args *args)
{
    GUARDED(1, enter, id, args);
}

static void g_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp)
{
    GUARDED(1, info, args, caller, id, tp);
}

static void g_exit(tf_monitor *self, int id, const tf_value *result)
{
    GUARDED(0, exit, id, result);
}

static void g_exception(tf_monitor *self, int id, const tf_exception *exc)
{
    GUARDED(0, exception, id, exc);
}

static void g_clear(tf_monitor *self)
{
    tf_monitor *in = INNER(self);
    if (in->ops->clear)
        in->ops->clear(in);
}

static void g_destroy(tf_monitor *self)
{
    if (INNER(self)->ops->destroy)
        INNER(self)->ops->destroy(INNER(self));
    free(self);
}

/* The guard reads values only to pass them on: [1] wraps monitors that set
 * TF_OPS_NO_VALUES, so the generated code still skips building them. */
static const tf_monitor_ops guard_ops[2] = {
    {g_enter, g_info, g_exit, g_exception, g_clear, g_destroy, 0},
    {g_enter, g_info, g_exit, g_exception, g_clear, g_destroy, TF_OPS_NO_VALUES},
};

tf_monitor *tf__monitor_new(const tf_monitor_ops *ops, const tf_tu *tu, tf_factory *f)
{
    tf_monitor *m = malloc(sizeof *m);
    if (m)
        *m = (tf_monitor){ops, tu, f};
    return m;
}

/* The generated code reads ops->flags (TF_OPS_*) directly. Bits no version
 * defines mean an ops table that was never fully initialized (malloc'd, six
 * fields set): said once per table, and the monitor then goes through the
 * guard, whose own flags claim nothing, so values are always built for it.
 * Monitors are created with the registry's lock held. */
static int ops_flags_valid(const tf_factory *f, const tf_monitor_ops *ops)
{
    static const tf_monitor_ops *said[8];
    static unsigned nsaid;
    if (!(ops->flags & ~TF_OPS_NO_VALUES))
        return 1;
    for (unsigned i = 0; i < nsaid; i++)
        if (said[i] == ops)
            return 0;
    if (nsaid < 8)
        said[nsaid++] = ops;
    char name[256];
    tf__escape_str(name, sizeof name, f->name ? f->name : "?");
    fprintf(stderr,
            "tf: monitor factory '%s': tf_monitor_ops.flags is 0x%x, with bits no TF_OPS_* defines: "
            "is the ops table fully initialized? Values are built for it.\n",
            name, ops->flags);
    return 0;
}

tf_monitor *tf__monitor_create(tf_factory *f, const tf_tu *tu)
{
    tf_monitor *m = f->create(f, tu);
    if (!m || !m->ops)
        return NULL;
    if (!m->tu)
        m->tu = tu;
    if (!m->factory)
        m->factory = f;
    int valid = ops_flags_valid(f, m->ops);
    if ((f->flags & TF_FACTORY_NO_GUARD) && valid)
        return m;
    struct guard *g = calloc(1, sizeof *g);
    if (!g) {
        if (m->ops->destroy)
            m->ops->destroy(m);
        return NULL;
    }
    g->base.ops = &guard_ops[valid && (m->ops->flags & TF_OPS_NO_VALUES) ? 1 : 0];
    g->base.tu = tu;
    g->base.factory = f;
    g->inner = m;
    return &g->base;
}

/* Unwraps a guard (for tf_monitor_parts). */
tf_monitor *tf__unguard(tf_monitor *m)
{
    return m && (m->ops == &guard_ops[0] || m->ops == &guard_ops[1]) ? INNER(m) : m;
}
