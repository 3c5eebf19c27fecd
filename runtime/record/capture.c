/*
 * capture.c: captured values in a recording (docs/trace-format.md,
 * "Captured values"). A captured pointer is recorded as a CTF structure of
 * the fields its tf_capture names, read at the event through the
 * fault-proof reader (runtime/capture.c shows the same fields to dprint):
 *
 *   c = { fd = 3, peer = { name = "db1", port = 5432 } }
 *
 * What could not be read is an enumeration with the one label
 * "<unreadable>"; a string that cannot be read is its pointer, as string
 * arguments are. So the layout of a value depends on what was readable: a
 * shape, one bit per pointer followed and per string field (depth first,
 * the root first), decided once per event by rcap_shape, is part of the
 * event class and is what rcap_put follows, whatever the memory does
 * meanwhile. Arrays are CTF sequences (`_len`, `_more`, `_elem[_len]`),
 * character arrays strings, so lengths never change a class.
 */
#define _GNU_SOURCE
#include <string.h>

#include "record.h"

#define LEAF_MAX 64 /* as runtime/capture.c */

typedef struct walk {
    uint64_t shape;     /* rcap_shape: bits found; the others: bits followed */
    unsigned bit;
    const tf_args *args;
} walk;

static int take_bit(walk *w)
{
    unsigned b = w->bit++;
    return b >= 64 || (w->shape >> b & 1); /* the plugins follow at most 64 (capture.h) */
}

static int readable(const void *p)
{
    char c;
    return p && tf__copy_bytes(&c, p, 1);
}

/* A node's own value at `at` read as a tf_value; bytes: a wide one's copy. */
static int leaf_value(const tf_capture *n, const unsigned char *at, tf_value *v, unsigned char bytes[LEAF_MAX])
{
    memset(v, 0, sizeof *v);
    v->name = n->name;
    v->kind = n->kind;
    v->size = n->size;
    v->type = n->type;
    if (n->kind == TF_K_INT || n->kind == TF_K_UINT || n->kind == TF_K_BOOL || n->kind == TF_K_ENUM ||
        n->kind == TF_K_PTR || n->kind == TF_K_STR) {
        unsigned char buf[8] = {0};
        int ok = n->size <= 8 && tf__copy_bytes(buf, at, n->size);
        memcpy(&v->v.u, buf, 8);
        if (ok && n->kind == TF_K_INT && n->size < 8 && (v->v.u >> (n->size * 8 - 1)) & 1)
            v->v.u |= ~(uint64_t)0 << (n->size * 8);
        return ok;
    }
    if (n->kind == TF_K_FLOAT) {
        float f;
        double d;
        long double x;
        int ok = (n->size == sizeof f && tf__copy_bytes(&f, at, sizeof f) && ((v->v.d = f), 1)) ||
                 (n->size == sizeof d && tf__copy_bytes(&d, at, sizeof d) && ((v->v.d = d), 1)) ||
                 (n->size == sizeof x && tf__copy_bytes(&x, at, sizeof x) && ((v->v.d = (double)x), 1));
        return ok;
    }
    if (n->size > LEAF_MAX)
        v->kind = TF_K_NONE;
    v->v.p = bytes;
    return v->kind == TF_K_NONE || tf__copy_bytes(bytes, at, n->size);
}

static const unsigned char *deref(const unsigned char *at)
{
    const void *p = NULL;
    return tf__copy_bytes(&p, at, sizeof p) ? p : NULL;
}

/* Whether node n has a shape bit: a pointer followed to fields or an
 * array (the root too), or a string. */
static int has_bit(const tf_capture *n)
{
    return ((n->flags & TF_CAP_FOLLOW) && (n->nfields || (n->flags & TF_CAP_ARRAY))) ||
           (n->kind == TF_K_STR && !(n->flags & TF_CAP_ARRAY));
}

/* ---- the shape ----------------------------------------------------------------
 * Bits are numbered depth first over the tree as the plugin made it (array
 * elements have none): what lies behind an unreadable pointer keeps its
 * numbers, skipped. */

static unsigned subtree_bits(const tf_capture *n)
{
    unsigned k = 0;
    if (n->flags & TF_CAP_ARRAY)
        return 0;
    for (uint32_t i = 0; i < n->nfields; i++) {
        const tf_capture *f = &n->fields[i];
        if (!(f->flags & TF_CAP_HIDDEN))
            k += (unsigned)has_bit(f) + subtree_bits(f);
    }
    return k;
}

static void set_bit(walk *w, int on)
{
    if (on && w->bit < 64)
        w->shape |= 1ull << w->bit;
    w->bit++;
}

static void shape_fields(walk *w, const tf_capture *n, const unsigned char *obj);

static void shape_node(walk *w, const tf_capture *n, const unsigned char *at)
{
    if (n->flags & TF_CAP_HIDDEN)
        return;
    if (n->kind == TF_K_STR && !(n->flags & TF_CAP_ARRAY)) {
        set_bit(w, readable(deref(at)));
    } else if (has_bit(n)) {
        const unsigned char *p = deref(at);
        set_bit(w, readable(p));
        if (!readable(p))
            w->bit += subtree_bits(n);
        else if (!(n->flags & TF_CAP_ARRAY))
            shape_fields(w, n, p);
    } else if (n->nfields && !(n->flags & TF_CAP_ARRAY)) {
        shape_fields(w, n, at); /* a struct inside the struct */
    }
}

static void shape_fields(walk *w, const tf_capture *n, const unsigned char *obj)
{
    for (uint32_t i = 0; i < n->nfields; i++)
        shape_node(w, &n->fields[i], obj + n->fields[i].offset);
}

uint64_t rcap_shape(const tf_value *v, const tf_args *args)
{
    const tf_capture *root = v->type;
    walk w = {0, 0, args};
    set_bit(&w, readable(v->v.p));
    if (w.shape && !(root->flags & TF_CAP_ARRAY))
        shape_fields(&w, root, v->v.p);
    return w.shape;
}

/* ---- types -------------------------------------------------------------------- */

static void put_name(tf_buf *b, const char *name)
{
    tf__buf_puts(b, " _");
    for (const char *c = name ? name : "field"; *c; c++) {
        char ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ? *c : '_';
        tf__buf_put(b, &ok, 1);
    }
    tf__buf_puts(b, "; ");
}

static const char unreadable_type[] = "enum : uint8_t { \"<unreadable>\" = 0 }";

static void type_node(tf_buf *b, walk *w, const tf_capture *n);

static void type_fields(tf_buf *b, walk *w, const tf_capture *n)
{
    tf__buf_puts(b, "struct { ");
    for (uint32_t i = 0; i < n->nfields; i++) {
        const tf_capture *f = &n->fields[i];
        if (f->flags & TF_CAP_HIDDEN)
            continue;
        type_node(b, w, f);
        put_name(b, f->name);
    }
    tf__buf_puts(b, "}");
}

static void type_leaf(tf_buf *b, const tf_capture *n, int as_ptr)
{
    unsigned char bytes[LEAF_MAX] = {0};
    tf_value v = {n->name, n->kind, n->size, {.p = bytes}, n->type};
    rc_put_type(b, &v, as_ptr);
}

static void type_array(tf_buf *b, const tf_capture *n)
{
    tf__buf_puts(b, "struct { integer { size = 32; align = 8; signed = false; } _len; "
                    "enum : uint8_t { \"false\" = 0, \"true\" = 1 } _more; ");
    if (n->flags & TF_CAP_TEXT) /* a CTF text sequence: readers show a string */
        tf__buf_puts(b, "integer { size = 8; align = 8; signed = false; encoding = UTF8; }");
    else if (n->nfields) {
        walk none = {~0ull, 64, NULL}; /* nothing in an element is followed (capture.h) */
        type_fields(b, &none, n);
    } else {
        type_leaf(b, n, 0);
    }
    tf__buf_puts(b, " _elem[_len]; }");
}

static void type_node(tf_buf *b, walk *w, const tf_capture *n)
{
    if (n->kind == TF_K_STR && !(n->flags & TF_CAP_ARRAY)) {
        type_leaf(b, n, !take_bit(w));
        return;
    }
    if (has_bit(n) && !take_bit(w)) {
        tf__buf_puts(b, unreadable_type);
        w->bit += subtree_bits(n);
        return;
    }
    if (n->flags & TF_CAP_ARRAY)
        type_array(b, n);
    else if (n->nfields)
        type_fields(b, w, n);
    else
        type_leaf(b, n, 0);
}

void rcap_type(tf_buf *b, const tf_value *v, uint64_t shape)
{
    walk w = {shape, 0, NULL};
    type_node(b, &w, v->type);
}

/* ---- sizes and data -------------------------------------------------------------- */

static size_t max_leaf(const tf_capture *n)
{
    if (n->kind == TF_K_STR)
        return TF_STR_MAX + 4;
    return n->kind == TF_K_VECTOR ? RC_VECTOR_MAX : 16;
}

static size_t max_node(const tf_capture *n)
{
    size_t sum = 0;
    if ((n->flags & TF_CAP_ARRAY) && (n->flags & TF_CAP_TEXT))
        return 5 + (size_t)n->limit; /* _len, _more, the characters */
    for (uint32_t i = 0; i < n->nfields; i++)
        sum += max_node(&n->fields[i]);
    if (!n->nfields)
        sum = max_leaf(n);
    return (n->flags & TF_CAP_ARRAY) ? 5 + (size_t)n->limit * sum : sum;
}

size_t rcap_max(const tf_value *v)
{
    return max_node(v->type);
}

/* The elements an array has now (runtime/capture.c's rule), -1 unknown. */
static int64_t length(const tf_capture *n, const tf_capture *parent, const unsigned char *parent_at,
                      const tf_args *args)
{
    tf_value v;
    unsigned char bytes[LEAF_MAX];
    if (n->flags & TF_CAP_LEN_ARG)
        return args && n->length >= 0 && (uint32_t)n->length < args->count ? args->values[n->length].v.i : -1;
    if (n->flags & TF_CAP_LEN_FIELD) {
        if (!parent || n->length < 0 || (uint32_t)n->length >= parent->nfields)
            return -1;
        const tf_capture *lf = &parent->fields[n->length];
        return leaf_value(lf, parent_at + lf->offset, &v, bytes) ? v.v.i : -1;
    }
    return n->count;
}

static unsigned char *put_node(unsigned char *p, walk *w, const tf_capture *n, const unsigned char *at,
                               const tf_capture *parent, const unsigned char *parent_at);

static unsigned char *put_fields(unsigned char *p, walk *w, const tf_capture *n, const unsigned char *obj)
{
    for (uint32_t i = 0; i < n->nfields; i++)
        if (!(n->fields[i].flags & TF_CAP_HIDDEN))
            p = put_node(p, w, &n->fields[i], obj + n->fields[i].offset, n, obj);
    return p;
}

static unsigned char *put_leaf(unsigned char *p, const tf_capture *n, const unsigned char *at, int as_ptr)
{
    unsigned char bytes[LEAF_MAX] = {0};
    tf_value v;
    int unreadable = 0;
    leaf_value(n, at, &v, bytes); /* zeros for what cannot be read */
    return rc_put_value(p, &v, as_ptr, &unreadable);
}

/* Characters as the sequence type_array declares: how many, whether there
 * were more (cut by the limit, or by unreadable memory), the bytes; a fixed
 * array ends at its NUL. */
static unsigned char *put_text(unsigned char *p, const unsigned char *obj, int64_t len, uint32_t limit, int to_nul)
{
    uint32_t shown = len < 0 ? 0 : (uint64_t)len < limit ? (uint32_t)len : limit, n = 0;
    unsigned char *bytes = p + 5;
    for (; n < shown && tf__copy_bytes(bytes + n, obj + n, 1) && !(to_nul && !bytes[n]); n++)
        ;
    int more = n < shown ? !(to_nul && tf__copy_bytes(bytes + n, obj + n, 1) && !bytes[n]) : (uint64_t)len > shown;
    memcpy(p, &n, 4);
    p[4] = (unsigned char)more;
    return bytes + n;
}

static unsigned char *put_array(unsigned char *p, const tf_capture *n, const unsigned char *obj, int64_t len)
{
    uint32_t shown = len < 0 ? 0 : (uint64_t)len < n->limit ? (uint32_t)len : n->limit;
    memcpy(p, &shown, 4);
    p[4] = (uint64_t)len > shown;
    p += 5;
    for (uint32_t i = 0; i < shown; i++) {
        const unsigned char *at = obj + (size_t)i * n->size;
        if (n->nfields) {
            walk none = {~0ull, 64, NULL};
            p = put_fields(p, &none, n, at);
        } else {
            p = put_leaf(p, n, at, 0);
        }
    }
    return p;
}

static unsigned char *put_node(unsigned char *p, walk *w, const tf_capture *n, const unsigned char *at,
                               const tf_capture *parent, const unsigned char *parent_at)
{
    if (n->kind == TF_K_STR && !(n->flags & TF_CAP_ARRAY))
        return put_leaf(p, n, at, !take_bit(w));
    const unsigned char *obj = at;
    if (has_bit(n)) {
        if (!take_bit(w)) {
            w->bit += subtree_bits(n);
            *p = 0; /* the enumeration's one label */
            return p + 1;
        }
        obj = deref(at);
    }
    if (n->flags & TF_CAP_ARRAY) {
        int64_t len = length(n, parent, parent_at, w->args);
        if (n->flags & TF_CAP_TEXT)
            return put_text(p, obj, len, n->limit, !(n->flags & (TF_CAP_LEN_ARG | TF_CAP_LEN_FIELD)));
        return put_array(p, n, obj, len);
    }
    if (n->nfields)
        return put_fields(p, w, n, obj);
    return put_leaf(p, n, obj, 0);
}

unsigned char *rcap_put(unsigned char *p, const tf_value *v, const tf_args *args, uint64_t shape)
{
    const tf_capture *root = v->type;
    walk w = {shape, 0, args};
    if (!take_bit(&w)) {
        *p = 0;
        return p + 1;
    }
    const unsigned char *obj = v->v.p;
    if (root->flags & TF_CAP_ARRAY) {
        int64_t len = length(root, NULL, NULL, args);
        if (root->flags & TF_CAP_TEXT)
            return put_text(p, obj, len, root->limit, !(root->flags & (TF_CAP_LEN_ARG | TF_CAP_LEN_FIELD)));
        return put_array(p, root, obj, len);
    }
    return put_fields(p, &w, root, obj);
}
