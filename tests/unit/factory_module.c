/* libtf-NAME.so as libtf finds it beside itself when TF_MONITORS names an
 * unknown NAME. Built three ways: MODULE_NAME registers a factory of that
 * name; MODULE_SILENT registers none; MODULE_BROKEN cannot be loaded (it
 * needs a symbol nothing defines). */
#include <stdlib.h>

#include <tf/monitors.h>

#ifdef MODULE_BROKEN
void tf_test_symbol_nobody_defines(void);
__attribute__((constructor)) static void load(void)
{
    tf_test_symbol_nobody_defines();
}
#elif defined(MODULE_NAME)
static const tf_monitor_ops ops = {.flags = TF_OPS_NO_VALUES};
static tf_monitor *create(tf_factory *f, const tf_tu *tu)
{
    tf_monitor *m = calloc(1, sizeof *m);
    if (m)
        m->ops = &ops;
    return m;
}
static tf_factory factory = {MODULE_NAME, create, 0};
static tf_factory *make(const char *name)
{
    return &factory;
}
__attribute__((constructor)) static void load(void)
{
    tf_env_add_factory(MODULE_NAME, make, "a factory from a library beside libtf");
}
#endif
