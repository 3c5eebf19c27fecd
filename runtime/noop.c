/*
 * noop.c: a monitor that does nothing (Java: MethodMonitorFactoryDefaults.noOp),
 * to measure what the hooks alone cost.
 */
#include <stdlib.h>

#include "internal.h"

static void n_enter(tf_monitor *self, int id, const tf_args *args) {}
static void n_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp) {}
static void n_exit(tf_monitor *self, int id, const tf_value *result) {}
static void n_exception(tf_monitor *self, int id, const tf_exception *exc) {}
static void n_clear(tf_monitor *self) {}
static void n_destroy(tf_monitor *self)
{
    free(self);
}

static const tf_monitor_ops noop_ops = {
    .enter = n_enter, .info = n_info, .exit = n_exit, .exception = n_exception, .clear = n_clear,
    .destroy = n_destroy, .flags = TF_OPS_NO_VALUES
};

static tf_monitor *noop_create(tf_factory *self, const tf_tu *tu)
{
    return tf__monitor_new(&noop_ops, tu, self);
}

static tf_factory noop_factory = {
    .name = "noop", .create = noop_create, .flags = TF_FACTORY_NO_GUARD
};

TF_API tf_factory *tf_noop(void)
{
    return &noop_factory;
}

static tf_factory *make_noop(const char *name)
{
    return tf_noop();
}
TF_ENV_FACTORY(noop, "noop", "does nothing: what the hooks alone cost", make_noop)
