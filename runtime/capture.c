/*
 * capture.c: captured values (docs/design.md .cap, docs/code-shape.md
 * section 8). A pointer value whose type is a tf_capture is shown as what it
 * points to, as far as the user named it: c={fd=3, peer={name="db1",
 * port=5432}}, buf="hello", v={1, 2, 3, ...}. The plugins emit the
 * tf_capture tree; nothing is read when the value is made, everything is
 * read here, when a monitor shows or compares it, and every read goes
 * through tf__copy_bytes (safe_read.c): NULL, freed and unmapped memory
 * give <unreadable>, never a fault. Async-signal-safe (the tracer formats
 * in a crash handler); no allocation.
 */
#define _GNU_SOURCE
#include <string.h>

#include "internal.h"

#define UNREADABLE "<unreadable>"
/* Bytes of one element or leaf read at once: wider ones (a vector of 64
 * bytes) are shown `?`, as the plugins never make leaves wider than this
 * but for vectors, whose widest libtf shows is 64 bytes. */
#define LEAF_MAX 64

/* An integer of `size` bytes at p, by kind; 0 on a failed read. */
static int read_int(const tf_capture *n, const void *at, int64_t *out)
{
    unsigned char buf[8] = {0};
    if (n->size == 0 || n->size > 8 || !tf__copy_bytes(buf, at, n->size))
        return 0;
    uint64_t u = 0;
    memcpy(&u, buf, n->size);
    if (n->kind != TF_K_UINT && n->kind != TF_K_BOOL && n->size < 8 && (u >> (n->size * 8 - 1)) & 1)
        u |= ~(uint64_t)0 << (n->size * 8); /* sign-extend */
    *out = (int64_t)u;
    return 1;
}

/* A leaf (no fields, no array) at `at`, as a tf_value; bytes holds what a
 * value passed by address points to. 0 when unreadable. */
static int read_leaf(const tf_capture *n, const void *at, tf_value *v, unsigned char bytes[LEAF_MAX])
{
    memset(v, 0, sizeof *v);
    v->kind = n->kind;
    v->size = n->size;
    v->type = n->type;
    switch (n->kind) {
    case TF_K_INT:
    case TF_K_UINT:
    case TF_K_BOOL:
    case TF_K_ENUM:
        return read_int(n, at, &v->v.i);
    case TF_K_FLOAT: {
        float f;
        double d;
        long double x;
        if (n->size == sizeof f && tf__copy_bytes(&f, at, sizeof f))
            v->v.d = f;
        else if (n->size == sizeof d && tf__copy_bytes(&d, at, sizeof d))
            v->v.d = d;
        else if (n->size == sizeof x && tf__copy_bytes(&x, at, sizeof x))
            v->v.d = (double)x;
        else
            return 0;
        return 1;
    }
    case TF_K_PTR:
    case TF_K_STR:
        return n->size == sizeof v->v.p && tf__copy_bytes(&v->v.p, at, sizeof v->v.p);
    case TF_K_NONE:
        return 1; /* shown `?` */
    default: /* by address: INT128, COMPLEX, VECTOR */
        if (n->size > LEAF_MAX) {
            v->kind = TF_K_NONE;
            return 1;
        }
        v->v.p = bytes;
        return tf__copy_bytes(bytes, at, n->size);
    }
}

/* Whether the first byte of an object can be read: a struct or array
 * behind a pointer that cannot is <unreadable> as a whole. */
static int readable(const void *p)
{
    char c;
    return tf__copy_bytes(&c, p, 1);
}

typedef struct where {
    const tf_capture *parent; /* for a length in a sibling field */
    const unsigned char *parent_at;
    const tf_args *args;
} where;

/* The elements an array node has now: its count, or its length (an
 * argument, a sibling field); -1 when that cannot be read. */
static int64_t array_length(const tf_capture *n, const where *w)
{
    int64_t len = n->count;
    if (n->flags & TF_CAP_LEN_ARG) {
        if (!w->args || n->length < 0 || (uint32_t)n->length >= w->args->count)
            return -1;
        len = w->args->values[n->length].v.i;
    } else if (n->flags & TF_CAP_LEN_FIELD) {
        if (!w->parent || n->length < 0 || (uint32_t)n->length >= w->parent->nfields)
            return -1;
        const tf_capture *lf = &w->parent->fields[n->length];
        if (!read_int(lf, w->parent_at + lf->offset, &len))
            return -1;
    }
    return len < 0 ? 0 : len;
}

static void show(tf_buf *b, const tf_capture *n, const unsigned char *obj, const where *w);

static void show_fields(tf_buf *b, const tf_capture *n, const unsigned char *obj, const tf_args *args)
{
    where inner = {n, obj, args};
    int first = 1;
    tf__buf_put(b, "{", 1);
    for (uint32_t i = 0; i < n->nfields; i++) {
        const tf_capture *f = &n->fields[i];
        if (f->flags & TF_CAP_HIDDEN)
            continue;
        if (!first)
            tf__buf_puts(b, ", ");
        first = 0;
        tf__buf_puts(b, f->name ? f->name : "?");
        tf__buf_put(b, "=", 1);
        show(b, f, obj + f->offset, &inner);
    }
    tf__buf_put(b, "}", 1);
}

/* Characters: exactly len of them for a length, up to a NUL for a fixed
 * array (a C string in a char array). */
static void show_text(tf_buf *b, const unsigned char *obj, uint64_t len, uint64_t shown, int to_nul)
{
    char chunk[64];
    if (shown && !readable(obj)) {
        tf__buf_puts(b, UNREADABLE);
        return;
    }
    tf__buf_put(b, "\"", 1);
    for (uint64_t at = 0; at < shown;) {
        size_t n = shown - at < sizeof chunk ? (size_t)(shown - at) : sizeof chunk;
        if (!tf__copy_bytes(chunk, obj + at, n)) { /* runs into unreadable memory: cut, as strings are */
            for (size_t i = 0; i < n && tf__copy_bytes(chunk, obj + at + i, 1); i++)
                tf__buf_quoted_byte(b, (unsigned char)chunk[0]);
            tf__buf_puts(b, "\"...");
            return;
        }
        for (size_t i = 0; i < n; i++) {
            if (to_nul && !chunk[i]) {
                tf__buf_put(b, "\"", 1);
                return;
            }
            tf__buf_quoted_byte(b, (unsigned char)chunk[i]);
        }
        at += n;
    }
    tf__buf_puts(b, shown < len ? "\"..." : "\"");
}

static void show_array(tf_buf *b, const tf_capture *n, const unsigned char *obj, const where *w)
{
    int64_t len = array_length(n, w);
    if (len < 0) {
        tf__buf_puts(b, UNREADABLE);
        return;
    }
    uint64_t shown = (uint64_t)len < n->limit ? (uint64_t)len : n->limit;
    if (n->flags & TF_CAP_TEXT) {
        show_text(b, obj, (uint64_t)len, shown, !(n->flags & (TF_CAP_LEN_ARG | TF_CAP_LEN_FIELD)));
        return;
    }
    tf__buf_put(b, "{", 1);
    for (uint64_t i = 0; i < shown; i++) {
        const unsigned char *at = obj + i * n->size;
        unsigned char bytes[LEAF_MAX];
        tf_value v;
        if (i)
            tf__buf_puts(b, ", ");
        if (n->nfields)
            show_fields(b, n, at, w->args);
        else if (read_leaf(n, at, &v, bytes))
            tf__buf_value(b, &v);
        else
            tf__buf_puts(b, UNREADABLE);
    }
    tf__buf_puts(b, shown < (uint64_t)len ? (shown ? ", ...}" : "...}") : "}");
}

/* What node n describes, at `at`: following a pointer first when it says
 * so, then its array, its fields, or the leaf value. */
static void show(tf_buf *b, const tf_capture *n, const unsigned char *at, const where *w)
{
    const unsigned char *obj = at;
    if (n->flags & TF_CAP_FOLLOW) {
        const void *p;
        if (!tf__copy_bytes(&p, at, sizeof p) || !p || ((n->nfields || (n->flags & TF_CAP_ARRAY)) && !readable(p))) {
            tf__buf_puts(b, UNREADABLE);
            return;
        }
        obj = p;
    }
    if (n->flags & TF_CAP_ARRAY) {
        show_array(b, n, obj, w);
    } else if (n->nfields) {
        show_fields(b, n, obj, w->args);
    } else {
        unsigned char bytes[LEAF_MAX];
        tf_value v;
        if (read_leaf(n, obj, &v, bytes))
            tf__buf_value(b, &v);
        else
            tf__buf_puts(b, UNREADABLE);
    }
}

void tf__buf_capture(tf_buf *b, const tf_value *v, const tf_args *args)
{
    const tf_capture *root = v->type;
    const unsigned char *obj = v->v.p;
    where w = {NULL, NULL, args};
    if (!obj || !readable(obj)) {
        tf__buf_puts(b, UNREADABLE);
        return;
    }
    if ((root->flags & TF_CAP_LEN_ARG) && !args) { /* no arguments to take the length from */
        tf__buf_value(b, &(tf_value){v->name, TF_K_PTR, v->size, {.p = v->v.p}, NULL});
        return;
    }
    if (root->flags & TF_CAP_ARRAY)
        show_array(b, root, obj, &w);
    else
        show_fields(b, root, obj, args);
}

/* ---- one field, for conditions ------------------------------------------------ */

static const tf_capture *field_named(const tf_capture *n, const char *name, size_t len)
{
    for (uint32_t i = 0; i < n->nfields; i++) {
        const tf_capture *f = &n->fields[i];
        if (!(f->flags & TF_CAP_HIDDEN) && f->name && strlen(f->name) == len && memcmp(f->name, name, len) == 0)
            return f;
    }
    return NULL;
}

/* A character array field as a string value in str (its bytes up to its
 * length, or a NUL for a fixed array, at most len - 1). */
static int text_field(const tf_capture *n, const unsigned char *obj, const where *w, tf_value *out, char *str,
                      size_t len)
{
    int64_t have = array_length(n, w);
    if (have < 0)
        return -1;
    size_t want = (uint64_t)have < len - 1 ? (size_t)have : len - 1;
    if (want && !tf__copy_bytes(str, obj, want))
        return -1;
    str[want] = 0;
    *out = (tf_value){n->name, TF_K_STR, (uint32_t)sizeof(char *), {.s = str}, NULL};
    return 0;
}

int tf__capture_field(const tf_value *v, const tf_args *args, const char *path, size_t pathlen, tf_value *out,
                      char *str, size_t len)
{
    if (!tf__captured(v))
        return -1;
    const tf_capture *n = v->type;
    const unsigned char *obj = v->v.p;
    where w = {NULL, NULL, args};
    for (size_t at = 0; at < pathlen;) {
        size_t dot = at;
        while (dot < pathlen && path[dot] != '.')
            dot++;
        const tf_capture *f = (n->flags & TF_CAP_ARRAY) ? NULL : field_named(n, path + at, dot - at);
        if (!f || !obj)
            return -1;
        w.parent = n;
        w.parent_at = obj;
        obj += f->offset;
        n = f;
        at = dot + (dot < pathlen);
        if ((at < pathlen || (n->flags & TF_CAP_ARRAY)) && (n->flags & TF_CAP_FOLLOW)) {
            const void *p;
            if (!tf__copy_bytes(&p, obj, sizeof p) || !p)
                return -1;
            obj = p;
        }
    }
    if (n->nfields)
        return -1; /* a struct compares with nothing */
    if (n == v->type) /* the root: its characters (buf == "hello" for buf[len]) */
        return (n->flags & TF_CAP_TEXT) ? text_field(n, obj, &w, out, str, len) : -1;
    if (n->flags & TF_CAP_ARRAY)
        return (n->flags & TF_CAP_TEXT) ? text_field(n, obj, &w, out, str, len) : -1;
    unsigned char bytes[LEAF_MAX];
    if (!read_leaf(n, obj, out, bytes))
        return -1;
    if (out->kind == TF_K_STR && out->v.s) { /* the string now, into str */
        int end;
        size_t got = tf__copy_str(str, out->v.s, len - 1, &end);
        if (got == 0 && end == TF_STR_FAULT)
            return -1;
        str[got] = 0;
        out->v.s = str;
    }
    return out->kind == TF_K_INT128 || out->kind == TF_K_UINT128 || out->kind == TF_K_COMPLEX ||
                   out->kind == TF_K_VECTOR
               ? -1 /* conditions compare no wide values */
               : 0;
}
