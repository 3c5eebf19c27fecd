/*
 * format.c: how values look in dprint lines, tracer contexts and reports
 * (docs/design.md .use.dprint: integers decimal, bool true/false, floating %g,
 * pointers 0x... or NULL, strings quoted and escaped and cut at 64 bytes,
 * enums by enumerator name when known; __int128 in full decimal, complex as
 * 1.5+2i, vectors as {1, 2, 3, 4}).
 */
#define _GNU_SOURCE
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "internal.h"

void tf__buf_put_long(tf_buf *b, const char *s, size_t n)
{
    if (b->len < b->cap) {
        size_t room = b->cap - b->len;
        memcpy(b->p + b->len, s, n < room ? n : room);
    }
    b->len += n;
}

void tf__buf_escaped(tf_buf *b, const char *s)
{
    for (size_t left = strlen(s); left;) {
        char one[TF_ESC_MAX];
        size_t used, k = tf__escape_char(s, left, one, &used, TF_ESC_FINAL);
        tf__buf_put(b, one, k);
        s += used;
        left -= used;
    }
}

void tf__buf_uint(tf_buf *b, uint64_t v)
{
    char d[24];
    int i = sizeof d;
    do
        d[--i] = (char)('0' + v % 10);
    while (v /= 10);
    tf__buf_put(b, d + i, sizeof d - (size_t)i);
}

void tf__buf_int(tf_buf *b, int64_t v)
{
    if (v < 0) {
        tf__buf_put(b, "-", 1);
        tf__buf_uint(b, 0 - (uint64_t)v);
    } else {
        tf__buf_uint(b, (uint64_t)v);
    }
}

static void put_hex(tf_buf *b, uintptr_t v)
{
    char d[2 + 2 * sizeof v];
    int i = sizeof d;
    do
        d[--i] = "0123456789abcdef"[v & 15];
    while (v >>= 4);
    d[--i] = 'x';
    d[--i] = '0';
    tf__buf_put(b, d + i, sizeof d - (size_t)i);
}

static void put_escaped(tf_buf *b, unsigned char c)
{
    static const char named[] = "\a\b\f\n\r\t\v\\\"";
    static const char letter[] = "abfnrtv\\\"";
    const char *hit = c ? strchr(named, c) : NULL;
    if (hit) {
        char e[2] = {'\\', letter[hit - named]};
        tf__buf_put(b, e, 2);
    } else if (c < 0x20 || c >= 0x7f) {
        char e[4] = {'\\', (char)('0' + (c >> 6)), (char)('0' + ((c >> 3) & 7)),
                     (char)('0' + (c & 7))};
        tf__buf_put(b, e, 4); /* octal: unambiguous whatever follows */
    } else {
        tf__buf_put(b, (const char *)&c, 1);
    }
}

/* A `char *` that points to no readable byte is shown as the pointer it is;
 * one whose bytes run into unreadable memory before a NUL, cut with "...". */
static void put_string(tf_buf *b, const char *s)
{
    if (!s) {
        tf__buf_puts(b, "NULL");
        return;
    }
    char copy[TF_STR_MAX + 1];
    int end;
    size_t n = tf__copy_str(copy, s, sizeof copy, &end);
    if (n == 0 && end == TF_STR_FAULT) {
        put_hex(b, (uintptr_t)s);
        return;
    }
    tf__buf_put(b, "\"", 1);
    for (size_t i = 0; i < n && i < TF_STR_MAX; i++)
        put_escaped(b, (unsigned char)copy[i]);
    tf__buf_puts(b, end == TF_STR_NUL ? "\"" : "\"...");
}

static void put_enum(tf_buf *b, const tf_value *v)
{
    const tf_enum_type *t = v->type;
    for (uint32_t i = 0; t && t->items && i < t->count; i++)
        if (t->items[i].value == v->v.i && t->items[i].name) {
            tf__buf_puts(b, t->items[i].name);
            return;
        }
    tf__buf_int(b, v->v.i);
}

static void put_double(tf_buf *b, double d)
{
    char s[32];
    tf_fp_hook fp;
    tf__fp_hook_enter(&fp); /* %g rounds by the program's rounding mode */
    int n = snprintf(s, sizeof s, "%g", d);
    tf__fp_hook_leave(&fp);
    tf__buf_put(b, s, n > 0 ? (size_t)n : 0);
}

#ifdef __SIZEOF_INT128__
/* No libc printf takes 128-bit integers. */
static void put_u128(tf_buf *b, unsigned __int128 v)
{
    char d[40];
    int i = sizeof d;
    do
        d[--i] = (char)('0' + (int)(v % 10));
    while (v /= 10);
    tf__buf_put(b, d + i, sizeof d - (size_t)i);
}

static void put_int128(tf_buf *b, const void *p, int is_signed)
{
    unsigned __int128 u;
    memcpy(&u, p, sizeof u);
    if (is_signed && (__int128)u < 0) {
        tf__buf_put(b, "-", 1);
        u = 0 - u;
    }
    put_u128(b, u);
}
#else
static void put_int128(tf_buf *b, const void *p, int is_signed)
{
    tf__buf_puts(b, "?"); /* a compiler without __int128 emits none */
}
#endif

static int valid_elem(char cls, unsigned bytes)
{
    switch (cls) {
    case 'i':
    case 'u': return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16;
    case 'f': return bytes == 4 || bytes == 8;
    case 'x': return LDBL_MANT_DIG == 64 && bytes == sizeof(long double);
    default: return 0;
    }
}

/* Digits at *s, at most 9 (strtoul is no async-signal-safe function, and the
 * tracer formats in signal handlers). */
static unsigned parse_digits(const char **s)
{
    unsigned n = 0;
    for (int i = 0; i < 9 && **s >= '0' && **s <= '9'; i++)
        n = n * 10 + (unsigned)(*(*s)++ - '0');
    return n;
}

/* The element code is "<class><bytes>*<count>" (abi.def). */
int tf__value_elems(const tf_value *v, tf_elems *e)
{
    const char *s = v->type;
    if ((v->kind != TF_K_COMPLEX && v->kind != TF_K_VECTOR) || !s || !*s)
        return -1;
    e->cls = *s++;
    e->bytes = parse_digits(&s);
    e->count = *s == '*' ? (s++, parse_digits(&s)) : 0;
    if (*s || !valid_elem(e->cls, e->bytes) || e->count == 0 || e->count > v->size / e->bytes)
        return -1;
    if (v->kind == TF_K_COMPLEX && (e->count != 2 || (e->cls != 'f' && e->cls != 'x')))
        return -1;
    return 0;
}

/* Converting rounds (long double) or signals (a signalling NaN): done in
 * the default environment, the program's left as it was. */
double tf__elem_double(const tf_elems *e, const void *p)
{
    float f;
    double d;
    long double x;
    tf_fp_hook fp;
    tf__fp_hook_enter(&fp);
    switch (e->cls == 'x' ? 0 : e->bytes) {
    case 4: memcpy(&f, p, sizeof f); d = f; break;
    case 8: memcpy(&d, p, sizeof d); break;
    default: memcpy(&x, p, sizeof x); d = (double)x; break;
    }
    tf__fp_hook_leave(&fp);
    return d;
}

static void put_elem(tf_buf *b, const tf_elems *e, const unsigned char *p)
{
    union {
        int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32; int64_t i64; uint64_t u64;
    } x;
    int s = e->cls == 'i';
    if (e->cls == 'f' || e->cls == 'x') {
        put_double(b, tf__elem_double(e, p));
        return;
    }
    if (e->bytes == 16) {
        put_int128(b, p, s);
        return;
    }
    memcpy(&x, p, e->bytes);
    switch (e->bytes) {
    case 1: s ? tf__buf_int(b, x.i8) : tf__buf_uint(b, x.u8); break;
    case 2: s ? tf__buf_int(b, x.i16) : tf__buf_uint(b, x.u16); break;
    case 4: s ? tf__buf_int(b, x.i32) : tf__buf_uint(b, x.u32); break;
    default: s ? tf__buf_int(b, x.i64) : tf__buf_uint(b, x.u64); break;
    }
}

/* "1.5+2i", "1-0.5i": the real and imaginary parts as %g, the sign of the
 * imaginary part always written. */
static void put_complex(tf_buf *b, const tf_value *v)
{
    tf_elems e;
    if (!v->v.p || tf__value_elems(v, &e) != 0) {
        tf__buf_puts(b, "?");
        return;
    }
    const unsigned char *p = v->v.p;
    double im = tf__elem_double(&e, p + e.bytes);
    put_double(b, tf__elem_double(&e, p));
    if (!signbit(im))
        tf__buf_put(b, "+", 1);
    put_double(b, im);
    tf__buf_put(b, "i", 1);
}

static void put_vector(tf_buf *b, const tf_value *v)
{
    tf_elems e;
    if (!v->v.p || tf__value_elems(v, &e) != 0) {
        tf__buf_puts(b, "?");
        return;
    }
    tf__buf_put(b, "{", 1);
    for (unsigned i = 0; i < e.count; i++) {
        if (i)
            tf__buf_puts(b, ", ");
        put_elem(b, &e, (const unsigned char *)v->v.p + (size_t)i * e.bytes);
    }
    tf__buf_put(b, "}", 1);
}

void tf__buf_value(tf_buf *b, const tf_value *v)
{
    switch (v->kind) {
    case TF_K_INT: tf__buf_int(b, v->v.i); break;
    case TF_K_UINT: tf__buf_uint(b, v->v.u); break;
    case TF_K_BOOL: tf__buf_puts(b, v->v.u ? "true" : "false"); break;
    case TF_K_FLOAT: put_double(b, v->v.d); break;
    case TF_K_PTR:
        if (v->v.p)
            put_hex(b, (uintptr_t)v->v.p);
        else
            tf__buf_puts(b, "NULL");
        break;
    case TF_K_STR: put_string(b, v->v.s); break;
    case TF_K_ENUM: put_enum(b, v); break;
    case TF_K_STRUCT: tf__buf_puts(b, "{...}"); break;
    case TF_K_INT128:
    case TF_K_UINT128:
        if (v->v.p && v->size == 16)
            put_int128(b, v->v.p, v->kind == TF_K_INT128);
        else
            tf__buf_puts(b, "?");
        break;
    case TF_K_COMPLEX: put_complex(b, v); break;
    case TF_K_VECTOR: put_vector(b, v); break;
    default: tf__buf_puts(b, "?"); break;
    }
}

void tf__buf_args(tf_buf *b, const tf_args *a)
{
    for (uint32_t i = 0; a && a->values && i < a->count; i++) {
        if (i)
            tf__buf_puts(b, ", ");
        tf__buf_puts(b, a->values[i].name ? a->values[i].name : "?");
        tf__buf_put(b, "=", 1);
        tf__buf_value(b, &a->values[i]);
    }
}

char *tf__buf_end(tf_buf *b)
{
    if (b->cap == 0)
        return b->p;
    if (b->len < b->cap) {
        b->p[b->len] = 0;
    } else {
        size_t end = b->cap - 1;
        memcpy(b->p + (end >= 3 ? end - 3 : 0), "...", end >= 3 ? 3 : end);
        b->p[end] = 0;
    }
    return b->p;
}

size_t tf__buf_finish(tf_buf *b)
{
    size_t need = b->len;
    tf__buf_end(b);
    return need;
}

TF_API size_t tf_value_format(char *buf, size_t len, const tf_value *v)
{
    tf_buf b = {buf, len, 0};
    if (v)
        tf__buf_value(&b, v);
    return tf__buf_finish(&b);
}

/* ---- exception types ----------------------------------------------------------
 * The C++ runtime is there only in C++ programs: reach it weakly. */
extern char *__cxa_demangle(const char *, char *, size_t *, int *) __attribute__((weak));
extern void *__cxa_current_exception_type(void) __attribute__((weak));

/* Itanium C++ ABI: the std::type_info * of a thrown object sits 80 bytes before
 * the _Unwind_Exception header (LP64; libstdc++ and libc++abi alike), in a
 * primary exception; a dependent one (std::rethrow_exception) holds there the
 * primary's object, whose header ends 32 bytes before it. */
static const void *type_of_unwind(const void *ue)
{
    uint64_t cls;
    memcpy(&cls, ue, sizeof cls);
    uint64_t vendor = cls >> 8, kind = cls & 0xff;
    if (sizeof(void *) != 8 || (vendor != 0x474e5543432b2bULL /* GNUCC++ */ &&
                                vendor != 0x434c4e47432b2bULL /* CLNGC++ */))
        return NULL;
    const void *slot = *(const void *const *)((const char *)ue - 80);
    if (kind == 1 && slot)
        slot = *(const void *const *)((const char *)slot - 32 - 80);
    return kind <= 1 ? slot : NULL;
}

static const char *copy_type_name(const void *ti, char *buf, size_t len)
{
    const char *mangled = ((const char *const *)ti)[1];
    if (*mangled == '*') /* GCC marks types of internal linkage */
        mangled++;
    int status = -1;
    char *human = __cxa_demangle ? __cxa_demangle(mangled, NULL, NULL, &status) : NULL;
    int n = snprintf(buf, len, "%s", status == 0 && human ? human : mangled);
    free(human);
    if (n >= 0 && (size_t)n >= len && len > 3) /* cut: said, not silent */
        memcpy(buf + len - 4, "...", 3);
    return buf;
}

TF_API const char *tf_exception_type(const tf_exception *e, char *buf, size_t len)
{
    if (!buf || !len)
        return buf;
    const void *ti = NULL;
    if (e && e->kind == TF_EXC_NORETURN) {
        snprintf(buf, len, "noreturn(%s)", e->name ? e->name : "?");
        return buf;
    }
    if (e && e->kind == TF_EXC_THROW)
        ti = e->data ? e->data : (__cxa_current_exception_type ? __cxa_current_exception_type() : NULL);
    else if (e && e->kind == TF_EXC_UNWIND && e->data)
        ti = type_of_unwind(e->data);
    if (!ti) {
        snprintf(buf, len, "%s", e && e->kind == TF_EXC_UNWIND ? "foreign" : "unknown");
        return buf;
    }
    return copy_type_name(ti, buf, len);
}
