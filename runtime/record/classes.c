/*
 * classes.c: global function ids, the event classes made lazily per argument
 * signature, and the CTF metadata that declares them (docs/trace-format.md).
 *
 * Everything the metadata says is kept preformatted, in pieces appended under
 * one lock and published with release stores, so a fatal-signal handler can
 * write the metadata with write(2) alone (.req.pm). Pieces live in a private
 * pages.c arena, never in malloc's heap: a class may be made from a signal
 * handler that interrupted malloc. Text is built in a scratch buffer that
 * grows (pages.c) to the longest piece: no TU is too large, however many
 * functions it has and however long their names (a fixed 256 KiB once left
 * whole googletest files out of the recording). Once the ring file exists,
 * each piece also goes into its metadata log as it is made, before any event
 * can use it (layout.h), so that the rings can be read after the process died.
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "tsdl.h"

typedef struct piece {
    struct piece *next;
    size_t len;
    char text[];
} piece;

typedef struct tu_rec {
    struct tu_rec *next;
    const tf_tu *tu;
    uint32_t base, n;
    const char **names; /* copies, to know the TU again (dlopen at the same address) */
    piece *labels;      /* "\"tu.name\" = id,\n" for each name */
} tu_rec;

typedef struct cls {
    struct cls *chain;
    uint32_t id;
    size_t keylen;
    char key[];
} cls;

#define NBUCKETS 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static TF_TLS int locked_here; /* a signal handler must not wait for its own thread */
static tu_rec *tus, **tus_tail = &tus;
static piece *events, **events_tail = &events;
static cls *buckets[NBUCKETS];
static uint32_t next_id = RC_FIRST_VALUES, next_func;
static char *scratch; /* under lock; pages.c, grown by scratch_grew */
static size_t scratch_cap;
static tf_arena arena; /* pages.c: never freed, the metadata lives as long as libtf */
static uint64_t npieces;   /* TUs and classes published */
static int logging;        /* new pieces go into the ring file's log too */

static void *alloc(size_t n)
{
    return tf__arena_alloc(&arena, n);
}

/* Under lock: text that needed b->len bytes did not fit: scratch grows to
 * hold it. 1 if the text is to be built again, 0 if it fit (or cannot). */
static int scratch_grew(const tf_buf *b)
{
    if (b->len < b->cap)
        return 0;
    size_t cap = scratch_cap ? scratch_cap : 64 * 1024;
    while (cap <= b->len)
        cap *= 2;
    char *p = tf__pages_grow(scratch, scratch_cap, cap);
    if (!p)
        return 0;
    scratch = p;
    scratch_cap = cap;
    return 1;
}

static piece *piece_of(const tf_buf *b)
{
    piece *p = b->len < b->cap ? alloc(sizeof *p + b->len) : NULL;
    if (p) {
        p->next = NULL;
        p->len = b->len;
        memcpy(p->text, b->p, b->len);
    }
    return p;
}

static void put_label(tf_buf *b, const char *s)
{
    for (; *s; s++) {
        char c = *s;
        if (c == '"' || c == '\\')
            tf__buf_put(b, "\\", 1);
        if ((unsigned char)c < 0x20)
            c = '?';
        tf__buf_put(b, &c, 1);
    }
}

static char *copy(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *c = alloc(n);
    if (c)
        memcpy(c, s ? s : "", n);
    return c;
}

static int same_tu(const tu_rec *t, const tf_tu *tu)
{
    if (t->tu != tu || t->n != tu->nnames)
        return 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->names[i], tu->names[i].name ? tu->names[i].name : "") != 0)
            return 0;
    return 1;
}

/* "\t\"tu.name\" = id,\n" for each of t's names. */
static void put_labels(tf_buf *b, const tf_tu *tu, const tu_rec *t)
{
    for (uint32_t i = 0; i < t->n; i++) {
        tf__buf_put(b, "\t\"", 2);
        put_label(b, tu->name ? tu->name : "?");
        tf__buf_put(b, ".", 1);
        put_label(b, t->names[i]);
        tf__buf_puts(b, "\" = ");
        tf__buf_uint(b, t->base + i);
        tf__buf_put(b, ",\n", 2);
    }
}

static tu_rec *tu_new(const tf_tu *tu)
{
    tu_rec *t = alloc(sizeof *t + tu->nnames * sizeof(char *));
    if (!t)
        return NULL;
    t->tu = tu;
    t->n = tu->nnames;
    t->names = (const char **)(t + 1);
    /* A TU's 16-bit ids never straddle 65536: the 16-bit enum takes whole TUs. */
    if (next_func < 65536 && next_func + t->n > 65536)
        next_func = 65536;
    t->base = next_func;
    next_func += t->n;
    for (uint32_t i = 0; i < t->n; i++)
        if (!(t->names[i] = copy(tu->names[i].name)))
            return NULL;
    tf_buf b;
    do {
        b = (tf_buf){scratch, scratch_cap, 0};
        put_labels(&b, tu, t);
    } while (scratch_grew(&b));
    t->labels = piece_of(&b);
    return t->labels ? t : NULL;
}

/* Under lock: once the ring file exists, everything made so far goes into
 * its log, then each piece as it is made. */
static void log_if_due(void)
{
    if (logging || !rt_pool_now())
        return;
    logging = 1;
    for (tu_rec *t = tus; t; t = t->next)
        rt_pool_log(TFR_LOG_LABELS, t->labels->text, t->labels->len);
    for (piece *p = events; p; p = p->next)
        rt_pool_log(TFR_LOG_EVENT, p->text, p->len);
}

/* From the pool's making, in a hook: a signal handler that interrupted this
 * thread making a class leaves it to the interrupted code (log_if_due). */
void rc_log_all(void)
{
    if (locked_here)
        return;
    locked_here = 1;
    pthread_mutex_lock(&lock);
    log_if_due();
    pthread_mutex_unlock(&lock);
    locked_here = 0;
}

uint64_t rc_pieces(void)
{
    return __atomic_load_n(&npieces, __ATOMIC_ACQUIRE);
}

uint32_t rc_tu_base(const tf_tu *tu)
{
    locked_here = 1;
    pthread_mutex_lock(&lock);
    tu_rec *t = tus;
    while (t && !same_tu(t, tu))
        t = t->next;
    if (!t && (t = tu_new(tu))) {
        __atomic_store_n(tus_tail, t, __ATOMIC_RELEASE);
        tus_tail = &t->next;
        __atomic_add_fetch(&npieces, 1, __ATOMIC_RELEASE);
        if (logging)
            rt_pool_log(TFR_LOG_LABELS, t->labels->text, t->labels->len);
    }
    log_if_due();
    uint32_t base = t ? t->base : UINT32_MAX;
    pthread_mutex_unlock(&lock);
    locked_here = 0;
    return base;
}

/* ---- value classes ------------------------------------------------------------ */

static const char *const kind_names[] = {"tf:enter", "tf:exit", "tf:info", "tf:exception"};

static void put_int_type(tf_buf *b, uint32_t bytes, int is_signed, int hex)
{
    tf__buf_puts(b, "integer { size = ");
    tf__buf_uint(b, bytes == 1 || bytes == 2 || bytes == 4 ? bytes * 8 : 64);
    tf__buf_puts(b, is_signed ? "; align = 8; signed = true;" : "; align = 8; signed = false;");
    tf__buf_puts(b, hex ? " base = 16; }" : " }");
}

static void put_enum_type(tf_buf *b, const tf_value *v)
{
    const tf_enum_type *t = v->type;
    int neg = 0;
    for (uint32_t i = 0; i < t->count; i++)
        neg |= t->items[i].value < 0;
    tf__buf_puts(b, "enum : ");
    put_int_type(b, v->size, neg, 0);
    tf__buf_puts(b, " {");
    for (uint32_t i = 0; i < t->count; i++) {
        tf__buf_puts(b, i ? ", \"" : " \"");
        put_label(b, t->items[i].name ? t->items[i].name : "?");
        tf__buf_puts(b, "\" = ");
        if (t->items[i].value < 0)
            tf__buf_int(b, t->items[i].value);
        else
            tf__buf_uint(b, (uint64_t)t->items[i].value);
    }
    tf__buf_puts(b, " }");
}

int rc_shape(const tf_value *v, tf_elems *e)
{
    switch (v->kind) {
    case TF_K_INT128:
    case TF_K_UINT128: return v->size == 16 ? RV_INT128 : RV_UNKNOWN;
    case TF_K_COMPLEX: return tf__value_elems(v, e) == 0 ? RV_COMPLEX : RV_UNKNOWN;
    case TF_K_VECTOR:
        return tf__value_elems(v, e) == 0 && e->count * rc_elem_width(e) <= RC_VECTOR_MAX ? RV_VECTOR
                                                                                        : RV_UNKNOWN;
    case TF_K_INT: case TF_K_UINT: case TF_K_BOOL: case TF_K_FLOAT:
    case TF_K_PTR: case TF_K_STR: case TF_K_ENUM: case TF_K_STRUCT: return RV_PLAIN;
    default: return RV_UNKNOWN;
    }
}

static const char double_type[] = "floating_point { exp_dig = 11; mant_dig = 53; align = 8; }";

/* Babeltrace 2 reads no integer wider than 64 bits: two halves, value = hi * 2^64 + lo. */
static void put_int128_type(tf_buf *b, int is_signed)
{
    tf__buf_puts(b, "struct { ");
    put_int_type(b, 8, 0, 0);
    tf__buf_puts(b, " _lo; ");
    put_int_type(b, 8, is_signed, 0);
    tf__buf_puts(b, " _hi; }");
}

static void put_wide_type(tf_buf *b, const tf_value *v, int shape, const tf_elems *e)
{
    switch (shape) {
    case RV_INT128: put_int128_type(b, v->kind == TF_K_INT128); break;
    case RV_COMPLEX:
        tf__buf_puts(b, "struct { ");
        tf__buf_puts(b, double_type);
        tf__buf_puts(b, " _re; ");
        tf__buf_puts(b, double_type);
        tf__buf_puts(b, " _im; }");
        break;
    case RV_VECTOR:
        tf__buf_puts(b, "struct { ");
        if (e->cls == 'f' || e->cls == 'x')
            tf__buf_puts(b, double_type);
        else if (e->bytes == 16)
            put_int128_type(b, e->cls == 'i');
        else
            put_int_type(b, e->bytes, e->cls == 'i', 0);
        tf__buf_puts(b, " _v[");
        tf__buf_uint(b, e->count);
        tf__buf_puts(b, "]; }");
        break;
    default: /* a value libtf cannot show: shown `?` */
        tf__buf_puts(b, "struct { integer { size = 8; align = 8; signed = false; } _unknown; }");
        break;
    }
}

static void put_type(tf_buf *b, const tf_value *v, int as_ptr)
{
    tf_elems e;
    int shape = rc_shape(v, &e);
    if (shape != RV_PLAIN) {
        put_wide_type(b, v, shape, &e);
        return;
    }
    switch (v->kind) {
    case TF_K_INT: put_int_type(b, v->size, 1, 0); break;
    case TF_K_UINT: put_int_type(b, v->size, 0, 0); break;
    case TF_K_BOOL: tf__buf_puts(b, "enum : uint8_t { \"false\" = 0, \"true\" = 1 }"); break;
    case TF_K_FLOAT: tf__buf_puts(b, double_type); break;
    case TF_K_STR:
        if (!as_ptr) {
            tf__buf_puts(b, "string");
            break;
        }
        __attribute__((fallthrough)); /* NULL or unreadable: shown as a pointer */
    case TF_K_PTR: put_int_type(b, 8, 0, 1); break;
    case TF_K_ENUM:
        if (v->type && ((const tf_enum_type *)v->type)->count)
            put_enum_type(b, v);
        else
            put_int_type(b, v->size, 1, 0);
        break;
    case TF_K_STRUCT:
        /* A struct around the spelling: readers tell it from an enum value. */
        tf__buf_puts(b, "struct { enum : uint8_t { \"");
        put_label(b, v->type ? (const char *)v->type : "struct");
        tf__buf_puts(b, "\" = 0 } _type; }");
        break;
    default: break; /* rc_shape took the others */
    }
}

/* The field name a reader sees for vals[i] (docs/trace-format.md, "Field
 * names"): the parameter's, "_"-prefixed while it clashes. */
static void field_name(char *out, size_t cap, int kind, const tf_value *vals, uint32_t i)
{
    static const char *const fixed[] = {"func", "info", "tp", "result", "kind", "type"};
    char base[64];
    const char *n = vals[i].name;
    tf_buf b = {base, sizeof base - 4, 0};
    if (kind == RC_EXIT)
        n = "result";
    if (n && *n) {
        for (const char *c = n; *c; c++) {
            char ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                      (*c >= '0' && *c <= '9') ? *c : '_';
            tf__buf_put(&b, &ok, 1);
        }
    } else {
        tf__buf_puts(&b, "arg");
        tf__buf_uint(&b, i);
    }
    tf__buf_end(&b);
    for (;;) {
        int clash = 0;
        for (size_t k = 0; k < sizeof fixed / sizeof *fixed && kind != RC_EXIT; k++)
            clash |= strcmp(base, fixed[k]) == 0;
        for (uint32_t j = 0; j < i && !clash; j++) {
            char earlier[80];
            field_name(earlier, sizeof earlier, kind, vals, j);
            clash = strcmp(base, earlier) == 0;
        }
        if (!clash || strlen(base) + 2 > sizeof base)
            break;
        memmove(base + 1, base, strlen(base) + 1);
        base[0] = '_';
    }
    size_t len = strlen(base) < cap ? strlen(base) : cap - 1;
    memcpy(out, base, len); /* no stdio: this may run in a signal handler */
    out[len] = 0;
}

static void put_fields(tf_buf *b, int kind, int wide, const tf_value *vals, uint32_t n, uint64_t ptrs)
{
    const char *func = wide ? "\t\ttf_func32_t _func;\n" : "\t\ttf_func16_t _func;\n";
    tf__buf_puts(b, func);
    if (kind == RC_INFO)
        tf__buf_puts(b, wide ? "\t\ttf_func32_t _info;\n\t\ttf_tp_t _tp;\n"
                             : "\t\ttf_func16_t _info;\n\t\ttf_tp_t _tp;\n");
    if (kind == RC_EXC)
        tf__buf_puts(b, "\t\ttf_exc_kind_t _kind;\n\t\tstring _type;\n");
    for (uint32_t i = 0; i < n; i++) {
        char name[80];
        field_name(name, sizeof name, kind, vals, i);
        tf__buf_puts(b, "\t\t");
        put_type(b, &vals[i], i < 64 && (ptrs >> i & 1));
        tf__buf_puts(b, " _");
        tf__buf_puts(b, name);
        tf__buf_puts(b, ";\n");
    }
}

static void put_event(tf_buf *b, int kind, uint32_t id, const char *fields, size_t len)
{
    tf__buf_puts(b, "event {\n\tname = \"");
    tf__buf_puts(b, kind_names[kind]);
    tf__buf_puts(b, "\";\n\tid = ");
    tf__buf_uint(b, id);
    tf__buf_puts(b, ";\n\tfields := struct {\n");
    tf__buf_put(b, fields, len);
    tf__buf_puts(b, "\t};\n};\n\n");
}

static uint32_t hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Under lock: the class whose key is scratch[0, len), made if new. */
static uint32_t find_or_make(int kind, size_t len)
{
    uint32_t h = hash(scratch, len) % NBUCKETS;
    for (cls *c = buckets[h]; c; c = c->chain)
        if (c->keylen == len && memcmp(c->key, scratch, len) == 0)
            return c->id;
    cls *c = alloc(sizeof *c + len);
    if (!c)
        return 0;
    c->id = next_id++;
    c->keylen = len;
    memcpy(c->key, scratch, len);
    tf_buf b;
    do {
        b = (tf_buf){scratch, scratch_cap, 0};
        put_event(&b, kind, c->id, c->key + 1, len - 1);
    } while (scratch_grew(&b));
    piece *p = piece_of(&b);
    if (!p)
        return 0;
    c->chain = buckets[h];
    buckets[h] = c;
    __atomic_store_n(events_tail, p, __ATOMIC_RELEASE);
    events_tail = &p->next;
    __atomic_add_fetch(&npieces, 1, __ATOMIC_RELEASE);
    if (logging) /* before the event that uses it */
        rt_pool_log(TFR_LOG_EVENT, p->text, p->len);
    return c->id;
}

uint32_t rc_class(int kind, int wide, const tf_value *vals, uint32_t n, uint64_t ptrs)
{
    if (locked_here)
        return 0;
    locked_here = 1;
    pthread_mutex_lock(&lock);
    tf_buf b;
    char k = (char)('0' + kind);
    do {
        b = (tf_buf){scratch, scratch_cap, 0};
        tf__buf_put(&b, &k, 1);
        put_fields(&b, kind, wide, vals, n, ptrs);
    } while (scratch_grew(&b));
    uint32_t id = b.len < b.cap ? find_or_make(kind, b.len) : 0;
    log_if_due();
    pthread_mutex_unlock(&lock);
    locked_here = 0;
    return id;
}

/* ---- the metadata ------------------------------------------------------------ */

static int put_enum(int fd, int wide)
{
    static const char tail16[] = "} := tf_func16_t;\n\n", tail32[] = "} := tf_func32_t;\n\n";
    const char *head = wide ? "typealias enum : uint32_t {\n" : "typealias enum : uint16_t {\n";
    int rc = rd_write_all(fd, head, strlen(head)), any = 0;
    for (tu_rec *t = __atomic_load_n(&tus, __ATOMIC_ACQUIRE); t && rc == 0;
         t = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE)) {
        if (!wide && t->base >= 65536)
            break;
        rc = rd_write_all(fd, t->labels->text, t->labels->len);
        any |= t->n > 0;
    }
    if (!any && rc == 0) /* TSDL wants a label even before any function */
        rc = rd_write_all(fd, "\t\"<none>\" = 0,\n", 15);
    return rc ? rc : rd_write_all(fd, wide ? tail32 : tail16, sizeof tail16 - 1);
}

int rc_write_metadata(int fd, const rt_counts *counts)
{
    char head[8192];
    rt_counts now;
    if (!counts)
        rt_counts_now(&now);
    size_t n = rm_preamble(head, sizeof head, counts ? counts : &now);
    int rc = n < sizeof head ? rd_write_all(fd, head, n) : -1;
    rc = rc ? rc : put_enum(fd, 0);
    rc = rc ? rc : put_enum(fd, 1);
    rc = rc ? rc : rd_write_all(fd, tfr_tsdl_stream, sizeof tfr_tsdl_stream - 1);
    rc = rc ? rc : rd_write_all(fd, tfr_tsdl_fixed_events, sizeof tfr_tsdl_fixed_events - 1);
    for (piece *p = __atomic_load_n(&events, __ATOMIC_ACQUIRE); p && rc == 0;
         p = __atomic_load_n(&p->next, __ATOMIC_ACQUIRE))
        rc = rd_write_all(fd, p->text, p->len);
    return rc;
}

void rc_fork(int phase)
{
    if (phase == TF_FORK_PREPARE) {
        pthread_mutex_lock(&lock);
        return;
    }
    if (phase == TF_FORK_CHILD)
        logging = 0; /* the child's ring file is its own, made at its first event */
    pthread_mutex_unlock(&lock);
}
