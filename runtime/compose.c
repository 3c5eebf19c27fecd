/*
 * compose.c: one monitor forwarding every event to several (Java:
 * MethodMonitorFactoryDefaults.compose). The registry composes the factories
 * reaching a group; users compose with tf_compose. Compositions are flattened
 * and duplicates dropped, so each monitor sees each event once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct compose_factory {
    tf_factory base;
    size_t n;
    tf_factory *parts[];
};

struct compose {
    tf_monitor base;
    size_t n;
    tf_monitor *parts[];
};

static tf_monitor *compose_create(tf_factory *self, const tf_tu *tu);

static int is_compose(const tf_factory *f)
{
    return f->create == compose_create;
}

/* Appends f's leaves to out (if out is NULL, only counts); returns the count. */
static size_t flatten(tf_factory *const *fs, size_t n, tf_factory **out, size_t have)
{
    for (size_t i = 0; i < n; i++) {
        if (!fs[i])
            continue;
        if (is_compose(fs[i])) {
            const struct compose_factory *c = (const void *)fs[i];
            have = flatten(c->parts, c->n, out, have);
            continue;
        }
        int dup = 0;
        for (size_t j = 0; out && j < have; j++)
            dup |= out[j] == fs[i];
        if (!dup) {
            if (out)
                out[have] = fs[i];
            have++;
        }
    }
    return have;
}

/* Passes the hook's stack position through to the parts (see TF_CALLER_SP). */
#define EACH(op, ...)                                                          \
    do {                                                                       \
        struct compose *c = (void *)self;                                      \
        TF_PASS_HOOK_SP(for (size_t i = 0; i < c->n; i++)                      \
                            c->parts[i]->ops->op(c->parts[i], __VA_ARGS__));   \
    } while (0)

static void c_enter(tf_monitor *self, int id, const tf_args *args)
{
    EACH(enter, id, args);
}

static void c_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp)
{
    EACH(info, args, caller, id, tp);
}

static void c_exit(tf_monitor *self, int id, const tf_value *result)
{
    EACH(exit, id, result);
}

static void c_exception(tf_monitor *self, int id, const tf_exception *exc)
{
    EACH(exception, id, exc);
}

static void c_clear(tf_monitor *self)
{
    struct compose *c = (void *)self;
    for (size_t i = 0; i < c->n; i++)
        if (c->parts[i]->ops->clear)
            c->parts[i]->ops->clear(c->parts[i]);
}

static void c_destroy(tf_monitor *self)
{
    struct compose *c = (void *)self;
    for (size_t i = 0; i < c->n; i++)
        if (c->parts[i]->ops->destroy)
            c->parts[i]->ops->destroy(c->parts[i]);
    free(c);
}

/* [1] when every part reads no values (TF_OPS_NO_VALUES), so the generated
 * code skips building them; [0] otherwise. */
static const tf_monitor_ops compose_ops[2] = {
    {c_enter, c_info, c_exit, c_exception, c_clear, c_destroy, 0},
    {c_enter, c_info, c_exit, c_exception, c_clear, c_destroy, TF_OPS_NO_VALUES},
};

static int is_composed(const tf_monitor *m)
{
    return m->ops == &compose_ops[0] || m->ops == &compose_ops[1];
}

tf_monitor *tf__compose_create(tf_factory *const *fs, size_t n, const tf_tu *tu)
{
    size_t total = flatten(fs, n, NULL, 0); /* an upper bound: duplicates not yet dropped */
    tf_factory **leaves = malloc((total ? total : 1) * sizeof *leaves);
    struct compose *c = leaves ? calloc(1, sizeof *c + total * sizeof c->parts[0]) : NULL;
    if (!c) {
        free(leaves);
        return NULL;
    }
    total = flatten(fs, n, leaves, 0);
    for (size_t i = 0; i < total; i++) {
        errno = 0;
        tf_monitor *m = tf__monitor_create(leaves[i], tu);
        if (m)
            c->parts[c->n++] = m;
        else if (total > 1) /* alone, the registry says it */
            fprintf(stderr, "tf: %s: factory '%s' created no monitor%s; the others it is composed "
                            "with still trace\n", tu->file, leaves[i]->name ? leaves[i]->name : "?",
                    errno == ENOMEM ? ": out of memory" : "");
    }
    free(leaves);
    if (c->n <= 1) {
        tf_monitor *only = c->n ? c->parts[0] : NULL;
        free(c);
        return only;
    }
    unsigned no_values = TF_OPS_NO_VALUES;
    for (size_t i = 0; i < c->n; i++)
        no_values &= c->parts[i]->ops->flags;
    c->base.ops = &compose_ops[no_values ? 1 : 0];
    c->base.tu = tu;
    return &c->base;
}

static tf_monitor *compose_create(tf_factory *self, const tf_tu *tu)
{
    struct compose_factory *cf = (void *)self;
    tf_monitor *m = tf__compose_create(cf->parts, cf->n, tu);
    if (m && is_composed(m))
        m->factory = self;
    return m;
}

TF_API tf_factory *tf_compose(tf_factory *const *factories, size_t n)
{
    if (!factories)
        return NULL;
    size_t total = flatten(factories, n, NULL, 0);
    struct compose_factory *cf = calloc(1, sizeof *cf + total * sizeof cf->parts[0]);
    if (!cf)
        return NULL;
    cf->n = flatten(factories, n, cf->parts, 0);
    if (cf->n <= 1) {
        tf_factory *only = cf->n ? cf->parts[0] : NULL;
        free(cf);
        return only;
    }
    cf->base.name = "compose";
    cf->base.create = compose_create;
    cf->base.flags = TF_FACTORY_NO_GUARD; /* parts are guarded one by one */
    return &cf->base;
}

TF_API size_t tf_monitor_parts(tf_monitor *m, tf_monitor **out, size_t max)
{
    if (!m)
        return 0;
    m = tf__budget_inner(m); /* the budget's meter only measures: its parts are the ones inside */
    if (!is_composed(m)) {
        if (out && max)
            out[0] = tf__unguard(m);
        return 1;
    }
    struct compose *c = (void *)m;
    for (size_t i = 0; out && i < c->n && i < max; i++)
        out[i] = tf__unguard(c->parts[i]);
    return c->n;
}
