/*
 * hold.c: an event kept past the call it was passed to (hold.h). The event,
 * its strings and its values are copied into one allocation, measured in a
 * first pass over the same code that copies in the second.
 */
#include <string.h>

#include "hold.h"

struct td_held {
    td_event e;
    _Alignas(16) char data[]; /* the copies */
};

typedef struct arena {
    char *base; /* NULL: only measuring */
    size_t at;
} arena;

static void *take(arena *a, size_t n, size_t align)
{
    a->at = (a->at + align - 1) & ~(align - 1);
    void *p = a->base ? a->base + a->at : NULL;
    a->at += n;
    return p;
}

static const char *copy_str(arena *a, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = take(a, n, 1);
    if (p)
        memcpy(p, s, n);
    return p;
}

static const tf_enum_type *copy_enum(arena *a, const tf_enum_type *t)
{
    tf_enum_type *c = take(a, sizeof *c, _Alignof(tf_enum_type));
    tf_enumerator *items = take(a, t->count * sizeof *items, _Alignof(tf_enumerator));
    for (uint32_t i = 0; i < t->count; i++) {
        const char *name = copy_str(a, t->items[i].name);
        if (items)
            items[i] = (tf_enumerator){t->items[i].value, name};
    }
    const char *name = copy_str(a, t->name);
    if (c)
        *c = (tf_enum_type){name, t->count, 0, items};
    return c;
}

/* The pointers of a value, by its kind (abi.def says which it has). */
static void copy_value(arena *a, tf_value *dst, const tf_value *src)
{
    tf_value v = *src;
    v.name = copy_str(a, src->name);
    switch (src->kind) {
    case TF_K_STR: v.v.s = copy_str(a, src->v.s); break;
    case TF_K_ENUM: v.type = src->type ? copy_enum(a, src->type) : NULL; break;
    case TF_K_STRUCT: v.type = copy_str(a, src->type); break;
    case TF_K_INT128:
    case TF_K_UINT128:
    case TF_K_COMPLEX:
    case TF_K_VECTOR:
        if (src->v.p) {
            void *bytes = take(a, src->size, 16);
            if (bytes)
                memcpy(bytes, src->v.p, src->size);
            v.v.p = bytes;
        }
        v.type = copy_str(a, src->type);
        break;
    default: break;
    }
    if (dst)
        *dst = v;
}

static void copy_event(arena *a, td_event *dst, const td_event *e)
{
    td_event c = *e;
    tf_value *args = e->nargs ? take(a, e->nargs * sizeof *args, _Alignof(tf_value)) : NULL;
    for (uint32_t i = 0; i < e->nargs; i++)
        copy_value(a, args ? &args[i] : NULL, &e->args[i]);
    c.args = args;
    tf_value *result = e->result ? take(a, sizeof *result, _Alignof(tf_value)) : NULL;
    if (e->result)
        copy_value(a, result, e->result);
    c.result = result;
    c.thread = copy_str(a, e->thread);
    c.func = copy_str(a, e->func);
    c.info = copy_str(a, e->info);
    c.args_text = copy_str(a, e->args_text);
    c.result_text = copy_str(a, e->result_text);
    c.exc_kind = copy_str(a, e->exc_kind);
    c.exc_type = copy_str(a, e->exc_type);
    if (dst)
        *dst = c;
}

td_held *td_hold(const td_event *e)
{
    arena measure = {NULL, 0};
    copy_event(&measure, NULL, e);
    td_held *h = malloc(sizeof *h + measure.at);
    if (!h)
        return NULL;
    arena a = {h->data, 0};
    copy_event(&a, &h->e, e);
    return h;
}

const td_event *td_held_event(const td_held *h)
{
    return &h->e;
}
