/*
 * hooks.c: the enter and exit hooks of the in-place shape's compact form
 * (docs/code-shape.md 3.2, docs/design.md .perf.shape). A function that keeps
 * its hooks in place has the constant part of each value it reports (name,
 * kind, size, type) in a static template the plugin wrote; its call stores
 * only the payloads and calls here, where the tf_values are put together and
 * the monitor called as the generated code would call it: the same
 * arguments, values only for a monitor that reads them, and the monitored
 * function's stack position (TF_CALLER_SP, as compose.c passes it on).
 *
 * Called only with mm not NULL, so only where libtf registered a monitor:
 * the generated code's reference is weak (code-shape.md section 6). Hooks
 * obey internal.h: no lock, no malloc, errno untouched.
 */
#include "internal.h"

TF_API void tf_hook_enter(tf_monitor *mm, int id, uint32_t count, const tf_value *tmpl,
                          const tf_payload *payloads)
{
    const tf_monitor_ops *ops = mm->ops;
    if (ops->flags & TF_OPS_NO_VALUES) {
        TF_PASS_HOOK_SP(ops->enter(mm, id, NULL));
        return;
    }
    tf_value v[count ? count : 1];
    for (uint32_t i = 0; i < count; i++) {
        v[i] = tmpl[i];
        v[i].v = payloads[i];
    }
    tf_args a = {count, 0, count ? v : NULL};
    TF_PASS_HOOK_SP(ops->enter(mm, id, &a));
}

/* tmpl NULL: no value (what the plugins call ops->exit for themselves). */
TF_API void tf_hook_exit(tf_monitor *mm, int id, const tf_value *tmpl, const tf_payload *payload)
{
    const tf_monitor_ops *ops = mm->ops;
    if (ops->flags & TF_OPS_NO_VALUES || !tmpl) {
        TF_PASS_HOOK_SP(ops->exit(mm, id, NULL));
        return;
    }
    tf_value r = *tmpl;
    r.v = *payload;
    TF_PASS_HOOK_SP(ops->exit(mm, id, &r));
}
