/*
 * eval.c: deciding a condition (spec.c parses it) for one call. A call that
 * lacks a compared argument, or whose argument's kind does not fit the
 * constant (a string against a number), or a `char *` that points to no
 * string, or a captured field that cannot be read, does not pass: a
 * condition never lets through what it cannot check.
 */
#include <stdio.h>
#include <string.h>

#include "control.h"
#include "nearest.h"

static int compare(int op, int64_t a, int64_t b)
{
    switch (op) {
    case TF_OP_EQ: return a == b;
    case TF_OP_NE: return a != b;
    case TF_OP_LT: return a < b;
    case TF_OP_LE: return a <= b;
    case TF_OP_GT: return a > b;
    default: return a >= b;
    }
}

static int ucompare(int op, uint64_t a, int64_t b)
{
    if (b < 0) /* every unsigned value is above a negative constant */
        return op == TF_OP_NE || op == TF_OP_GT || op == TF_OP_GE;
    uint64_t ub = (uint64_t)b;
    switch (op) {
    case TF_OP_EQ: return a == ub;
    case TF_OP_NE: return a != ub;
    case TF_OP_LT: return a < ub;
    case TF_OP_LE: return a <= ub;
    case TF_OP_GT: return a > ub;
    default: return a >= ub;
    }
}

/* c: <0, 0, >0 as the value is below, equal to or above the constant. */
static int ordered(int op, int c)
{
    switch (op) {
    case TF_OP_EQ: return c == 0;
    case TF_OP_NE: return c != 0;
    case TF_OP_LT: return c < 0;
    case TF_OP_LE: return c <= 0;
    case TF_OP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* An __int128 argument against the constant, by its whole value. */
static int compare128(int op, const tf_value *v, int64_t b)
{
#ifdef __SIZEOF_INT128__
    unsigned __int128 u;
    if (!v->v.p || v->size != 16)
        return 0;
    memcpy(&u, v->v.p, sizeof u);
    if (v->kind == TF_K_UINT128)
        return ordered(op, b < 0 ? 1 : (u > (unsigned __int128)b) - (u < (unsigned __int128)b));
    __int128 a = (__int128)u;
    return ordered(op, (a > b) - (a < b));
#else
    return 0; /* a compiler without __int128 emits none */
#endif
}

static const char *enumerator(const tf_value *v)
{
    const tf_enum_type *t = v->type;
    for (uint32_t k = 0; t && k < t->count; k++)
        if (t->items[k].value == v->v.i)
            return t->items[k].name;
    return NULL;
}

/* A string value equal to want: 1, 0, or -1 when the `char *` points to no
 * string (NULL, an integer, unmapped memory), which is read without faulting
 * and never further than one byte past want's length. */
static int str_equal(const char *s, const char *want)
{
    char copy[TF_STR_MAX + 2];
    size_t len = strlen(want);
    int end;
    size_t n = tf__copy_str(copy, s, len + 1, &end);
    if (end == TF_STR_FAULT)
        return -1;
    return end == TF_STR_NUL && n == len && memcmp(copy, want, len) == 0;
}

/* Whether v's text equals want: a string's bytes, an enumerator's name,
 * true/false; -1 when the value has no text. */
static int text_equal(const tf_value *v, const char *want)
{
    const char *s = NULL;
    switch (v->kind) {
    case TF_K_STR: return str_equal(v->v.s, want);
    case TF_K_ENUM: s = enumerator(v); break;
    case TF_K_BOOL: s = v->v.u ? "true" : "false"; break;
    default: break;
    }
    return s ? strcmp(s, want) == 0 : -1;
}

static int arg_ok(const tf_cond_term *t, const tf_value *v)
{
    if (t->is_str) {
        int eq = text_equal(v, t->str);
        return eq >= 0 && (t->op == TF_OP_EQ ? eq : !eq);
    }
    switch (v->kind) {
    case TF_K_INT:
    case TF_K_ENUM: return compare(t->op, v->v.i, t->num);
    case TF_K_UINT:
    case TF_K_BOOL: return ucompare(t->op, v->v.u, t->num);
    case TF_K_PTR: return ucompare(t->op, (uint64_t)(uintptr_t)v->v.p, t->num);
    case TF_K_INT128:
    case TF_K_UINT128: return compare128(t->op, v, t->num);
    default: return 0; /* a struct, complex or vector value is no number */
    }
}

static const tf_value *find_arg(const tf_args *args, const char *name, size_t len)
{
    for (uint32_t k = 0; args && k < args->count; k++)
        if (args->values[k].name && strlen(args->values[k].name) == len &&
            memcmp(args->values[k].name, name, len) == 0)
            return &args->values[k];
    return NULL;
}

/* The length of the argument's name in a term's path (c of c.peer.port). */
static size_t root_len(const char *path)
{
    return strcspn(path, ".");
}

/* An argument, or a field of it that a capture reads (c.peer.port), read
 * now; a field that is not captured or cannot be read does not pass. */
static int arg_term_ok(const tf_cond_term *t, const tf_args *args)
{
    const char *dot = strchr(t->arg, '.');
    const tf_value *v = find_arg(args, t->arg, root_len(t->arg));
    if (!v)
        return 0;
    tf_value field;
    char str[TF_STR_MAX + 2];
    if (!dot && !(tf__captured(v) && t->is_str))
        return arg_ok(t, v);
    const char *path = dot ? dot + 1 : "";
    return tf__capture_field(v, args, path, strlen(path), &field, str, sizeof str) == 0 && arg_ok(t, &field);
}

int tf__cond_enter_ok(const tf_cond *cond, int depth, const tf_args *args)
{
    for (int k = 0; k < cond->n; k++) {
        const tf_cond_term *t = &cond->t[k];
        if (t->what == TF_C_DEPTH && !compare(t->op, depth, t->num))
            return 0;
        if (t->what == TF_C_ARG && !arg_term_ok(t, args))
            return 0;
    }
    return 1;
}

int tf__cond_time_ok(const tf_cond *cond, uint64_t ns)
{
    for (int k = 0; k < cond->n; k++)
        if (cond->t[k].what == TF_C_TIME && !compare(cond->t[k].op, (int64_t)ns, cond->t[k].num))
            return 0;
    return 1;
}

/* ---- which argument names the terms met (control.h, tf_cond_seen) ---------- */

unsigned tf__cond_arg_terms(const tf_cond *cond)
{
    unsigned bits = 0;
    for (int k = 0; k < cond->n; k++)
        if (cond->t[k].what == TF_C_ARG)
            bits |= 1u << k;
    return bits;
}

/* Claims an entry for name unless it is there; names too long are left out
 * (a hint is all they would give). */
static void note_name(tf_cond_seen *seen, const char *name)
{
    size_t len = strlen(name);
    int n = __atomic_load_n(&seen->nnames, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n && i < TF_COND_SEEN_NAMES; i++)
        if (__atomic_load_n(&seen->ready[i], __ATOMIC_ACQUIRE) && strcmp(seen->names[i], name) == 0)
            return; /* (threads racing here may both add it: tf__cond_unmet says it once) */
    if (len >= sizeof seen->names[0] || n >= TF_COND_SEEN_NAMES)
        return;
    int k = __atomic_fetch_add(&seen->nnames, 1, __ATOMIC_ACQ_REL);
    if (k >= TF_COND_SEEN_NAMES)
        return;
    memcpy(seen->names[k], name, len + 1);
    __atomic_store_n(&seen->ready[k], 1, __ATOMIC_RELEASE);
}

void tf__cond_note(const tf_cond *cond, tf_cond_seen *seen, const tf_args *args)
{
    unsigned want = tf__cond_arg_terms(cond) & ~__atomic_load_n(&seen->met, __ATOMIC_RELAXED);
    if (!want)
        return;
    __atomic_fetch_add(&seen->calls, 1, __ATOMIC_RELAXED);
    for (int k = 0; k < cond->n; k++)
        if ((want >> k & 1) && find_arg(args, cond->t[k].arg, root_len(cond->t[k].arg)))
            __atomic_fetch_or(&seen->met, 1u << k, __ATOMIC_RELAXED);
    for (uint32_t k = 0; args && k < args->count; k++)
        if (args->values[k].name)
            note_name(seen, args->values[k].name);
}

int tf__cond_unmet(const tf_cond *cond, tf_cond_seen *seen, char *out, size_t len)
{
    unsigned long calls = __atomic_load_n(&seen->calls, __ATOMIC_RELAXED);
    unsigned unmet = tf__cond_arg_terms(cond) & ~__atomic_load_n(&seen->met, __ATOMIC_RELAXED);
    if (!calls || !unmet)
        return 0;
    int k = __builtin_ctz(unmet);
    char text[256], had[512] = "", hint[160], arg[sizeof cond->t[k].arg];
    tf__cond_format(cond, text, sizeof text);
    snprintf(arg, sizeof arg, "%.*s", (int)root_len(cond->t[k].arg), cond->t[k].arg); /* c of c.peer */
    tf_nearest near;
    tf_nearest_begin(&near, arg);
    tf_nearest_offer(&near, "time");
    tf_nearest_offer(&near, "depth");
    int n = __atomic_load_n(&seen->nnames, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n && i < TF_COND_SEEN_NAMES; i++) {
        if (!__atomic_load_n(&seen->ready[i], __ATOMIC_ACQUIRE))
            continue;
        /* two threads may both have claimed a slot for a name new to each */
        int again = 0;
        for (int j = 0; j < i && !again; j++)
            again = __atomic_load_n(&seen->ready[j], __ATOMIC_ACQUIRE) && strcmp(seen->names[j], seen->names[i]) == 0;
        if (again)
            continue;
        size_t at = strlen(had);
        snprintf(had + at, sizeof had - at, "%s%s", at ? ", " : "", seen->names[i]);
        tf_nearest_offer(&near, seen->names[i]);
    }
    tf_nearest_say(&near, hint, sizeof hint);
    tf_nearest_end(&near);
    snprintf(out, len, "condition '%s' passed no call: none of the %lu call%s it saw had an "
                       "argument '%s' (%s%s)%s%s", text, calls, calls == 1 ? "" : "s",
             arg, *had ? "they had: " : "they had no arguments", had, *hint ? "; " : "",
             hint);
    return 1;
}
