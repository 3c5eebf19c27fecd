/*
 * meta.c: TF's TSDL (meta.h). A recursive-descent parser over tokens for
 * the statements the recorder writes: typealias, trace, env, clock, stream,
 * event; types integer, floating_point, string, enum, struct, arrays. The
 * trace and stream blocks must be the recorder's own, word for word (the
 * packet and event header layouts are built into the decoder, native.c).
 * Input is untrusted (fuzzed): every read is bounded, every failure says
 * where.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/record/layout.h"
#include "../../runtime/record/tsdl.h"
#include "meta.h"

/* ---- an arena: everything of one metadata, freed at once --------------------- */
typedef struct td_arena {
    struct td_arena *next;
    size_t used, cap;
    _Alignas(16) char data[];
} td_arena;

static void *alloc(td_meta *m, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    td_arena *a = m->arena;
    if (!a || a->cap - a->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        td_arena *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = a;
        b->used = 0;
        b->cap = cap;
        m->arena = a = b;
    }
    void *p = a->data + a->used;
    a->used += n;
    memset(p, 0, n);
    return p;
}

void td_meta_free(td_meta *m)
{
    for (td_arena *a = m->arena, *next; a; a = next) {
        next = a->next;
        free(a);
    }
    free(m->classes);
    memset(m, 0, sizeof *m);
}

/* ---- tokens ------------------------------------------------------------------- */
enum { T_END, T_IDENT, T_NUM, T_STR, T_PUNCT, T_TYPE_ASSIGN, T_DOTS, T_BAD };

typedef struct parser {
    td_meta *m;
    const char *p, *end, *tok_at;
    int line;
    int t;          /* the current token */
    char punct;
    const char *s;  /* T_IDENT, T_STR: text (T_STR unescaped, in the arena) */
    size_t slen;
    int64_t num;
    int neg;
    char *why;
    size_t whylen;
    int failed;
    struct alias { const char *name; const tt_type *type; } *aliases;
    uint32_t naliases, cap_aliases;
    const char *trace_at, *trace_end, *stream_at, *stream_end;
} parser;

static int fail(parser *P, const char *fmt, ...)
{
    if (P->failed++)
        return -1;
    int n = snprintf(P->why, P->whylen, "line %d: ", P->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < P->whylen)
        vsnprintf(P->why + n, P->whylen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* n bytes of the metadata's arena; NULL said as out of memory. */
static void *palloc(parser *P, size_t n)
{
    void *p = alloc(P->m, n);
    if (!p)
        fail(P, "out of memory");
    return p;
}

static void skip_space(parser *P)
{
    for (;;) {
        while (P->p < P->end && isspace((unsigned char)*P->p))
            P->line += *P->p++ == '\n';
        if (P->end - P->p >= 2 && P->p[0] == '/' && P->p[1] == '*') {
            const char *e = memmem(P->p + 2, (size_t)(P->end - P->p - 2), "*/", 2);
            for (const char *c = P->p; c < (e ? e : P->end); c++)
                P->line += *c == '\n';
            P->p = e ? e + 2 : P->end;
        } else if (P->end - P->p >= 2 && P->p[0] == '/' && P->p[1] == '/') {
            while (P->p < P->end && *P->p != '\n')
                P->p++;
        } else {
            return;
        }
    }
}

static int lex_string(parser *P)
{
    const char *q = ++P->p;
    size_t n = 0;
    while (q < P->end && *q != '"') {
        q += *q == '\\' && q + 1 < P->end ? 2 : 1;
        n++;
    }
    if (q >= P->end)
        return fail(P, "a string is not closed");
    char *s = palloc(P, n + 1);
    if (!s)
        return -1;
    size_t k = 0;
    for (const char *c = P->p; c < q; c++) {
        char ch = *c;
        if (ch == '\\') {
            ch = *++c;
            ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch;
        }
        s[k++] = ch;
    }
    s[k] = 0;
    P->s = s;
    P->slen = k;
    P->p = q + 1;
    return P->t = T_STR;
}

static int lex_number(parser *P)
{
    const char *c = P->p;
    P->neg = *c == '-';
    c += P->neg;
    int hex = c + 1 < P->end && c[0] == '0' && (c[1] == 'x' || c[1] == 'X');
    c += hex ? 2 : 0;
    uint64_t v = 0;
    const char *digits = c;
    for (; c < P->end && (hex ? isxdigit((unsigned char)*c) : isdigit((unsigned char)*c)); c++) {
        unsigned d = isdigit((unsigned char)*c) ? (unsigned)(*c - '0') : (unsigned)(tolower(*c) - 'a' + 10);
        if (v > (UINT64_MAX - d) / (hex ? 16 : 10))
            return fail(P, "a number is too large");
        v = v * (hex ? 16 : 10) + d;
    }
    if (c == digits)
        return fail(P, "'-' without a number");
    while (c < P->end && (*c == 'u' || *c == 'U' || *c == 'l' || *c == 'L'))
        c++;
    P->num = P->neg ? -(int64_t)v : (int64_t)v;
    P->p = c;
    return P->t = T_NUM;
}

static int next(parser *P)
{
    if (P->failed)
        return P->t = T_BAD;
    skip_space(P);
    P->tok_at = P->p;
    if (P->p >= P->end)
        return P->t = T_END;
    char c = *P->p;
    if (isalpha((unsigned char)c) || c == '_') {
        const char *s = P->p;
        while (P->p < P->end && (isalnum((unsigned char)*P->p) || *P->p == '_'))
            P->p++;
        P->s = s;
        P->slen = (size_t)(P->p - s);
        return P->t = T_IDENT;
    }
    if (isdigit((unsigned char)c) || (c == '-' && P->p + 1 < P->end && isdigit((unsigned char)P->p[1])))
        return lex_number(P) < 0 ? (P->t = T_BAD) : T_NUM;
    if (c == '"')
        return lex_string(P) < 0 ? (P->t = T_BAD) : T_STR;
    if (c == ':' && P->p + 1 < P->end && P->p[1] == '=') {
        P->p += 2;
        return P->t = T_TYPE_ASSIGN;
    }
    if (c == '.' && P->end - P->p >= 3 && P->p[1] == '.' && P->p[2] == '.') {
        P->p += 3;
        return P->t = T_DOTS;
    }
    if (strchr("{}[]()<>;=:,.+*", c)) {
        P->p++;
        P->punct = c;
        return P->t = T_PUNCT;
    }
    fail(P, "unexpected character '%c'", isprint((unsigned char)c) ? c : '?');
    return P->t = T_BAD;
}

static int is_punct(const parser *P, char c)
{
    return P->t == T_PUNCT && P->punct == c;
}

static int is_word(const parser *P, const char *w)
{
    return P->t == T_IDENT && P->slen == strlen(w) && memcmp(P->s, w, P->slen) == 0;
}

static int expect(parser *P, char c)
{
    if (!is_punct(P, c))
        return fail(P, "expected '%c'", c);
    next(P);
    return 0;
}

static const char *ident_copy(parser *P)
{
    char *s = palloc(P, P->slen + 1);
    if (s)
        memcpy(s, P->s, P->slen);
    return s;
}

/* ---- types -------------------------------------------------------------------- */
static const tt_type *type_spec(parser *P);

/* key = value; ... up to '}' (integer, floating_point, string attributes). */
static int attrs(parser *P, int64_t *size, int64_t *align, int *sign, int *base, int64_t *exp, int64_t *mant)
{
    if (expect(P, '{'))
        return -1;
    while (!is_punct(P, '}') && !P->failed) {
        if (P->t != T_IDENT)
            return fail(P, "expected an attribute");
        char key[16];
        snprintf(key, sizeof key, "%.*s", (int)(P->slen < 15 ? P->slen : 15), P->s);
        next(P);
        if (expect(P, '='))
            return -1;
        int64_t v = P->num;
        int word = P->t == T_IDENT;
        if (word && (is_word(P, "true") || is_word(P, "TRUE")))
            v = 1;
        else if (word && (is_word(P, "hex") || is_word(P, "x") || is_word(P, "X") || is_word(P, "p")))
            v = 16;
        else if (word && (is_word(P, "decimal") || is_word(P, "dec") || is_word(P, "d") ||
                          is_word(P, "i") || is_word(P, "u")))
            v = 10;
        else if (word)
            v = 0; /* false, encodings, clock maps: nothing the decoder needs */
        else if (P->t != T_NUM)
            return fail(P, "expected a value for '%s'", key);
        next(P);
        while (is_punct(P, '.')) { /* map = clock.tf.value */
            next(P);
            if (P->t == T_IDENT)
                next(P);
        }
        if (!strcmp(key, "size")) *size = v;
        else if (!strcmp(key, "align")) *align = v;
        else if (!strcmp(key, "signed")) *sign = v != 0;
        else if (!strcmp(key, "base")) *base = (int)v;
        else if (!strcmp(key, "exp_dig")) *exp = v;
        else if (!strcmp(key, "mant_dig")) *mant = v;
        if (expect(P, ';'))
            return -1;
    }
    return expect(P, '}');
}

static const tt_type *integer_type(parser *P)
{
    int64_t size = 0, align = 8, exp = 0, mant = 0;
    int sign = 0, base = 10;
    next(P);
    if (attrs(P, &size, &align, &sign, &base, &exp, &mant))
        return NULL;
    tt_type *t = palloc(P, sizeof *t);
    if (!t)
        return NULL;
    t->kind = TT_INT;
    t->bytes = (uint8_t)(size / 8);
    t->is_signed = (uint8_t)sign;
    t->hex = base == 16;
    /* The stream's uint5 and uint27 are never a field of an event. */
    if ((size != 8 && size != 16 && size != 32 && size != 64) || align % 8)
        t->bytes = 0;
    return t;
}

static const tt_type *float_type(parser *P)
{
    int64_t size = 0, align = 8, exp = 0, mant = 0;
    int sign = 0, base = 10;
    next(P);
    if (attrs(P, &size, &align, &sign, &base, &exp, &mant))
        return NULL;
    tt_type *t = palloc(P, sizeof *t);
    if (!t)
        return NULL;
    t->kind = TT_FLOAT;
    t->bytes = exp == 11 && mant == 53 ? 8 : exp == 8 && mant == 24 ? 4 : 0;
    if (!t->bytes) {
        fail(P, "a floating_point of %lld+%lld digits", (long long)exp, (long long)mant);
        return NULL;
    }
    return t;
}

static int map_order(const void *a, const void *b)
{
    const tt_map *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Labels by value in an array when the values are 0..n-1 (functions). */
static void make_dense(parser *P, tt_type *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->maps[i].lo != (int64_t)i || t->maps[i].hi != (int64_t)i)
            return;
    const char **d = alloc(P->m, (size_t)t->n * sizeof *d);
    if (!d)
        return;
    for (uint32_t i = 0; i < t->n; i++)
        d[i] = t->maps[i].label;
    t->dense = d;
    t->ndense = t->n;
}

static const tt_type *enum_type(parser *P)
{
    next(P);
    if (expect(P, ':'))
        return NULL;
    const tt_type *c = type_spec(P);
    if (!c || c->kind != TT_INT || !c->bytes) {
        fail(P, "an enum's container is not an integer");
        return NULL;
    }
    if (expect(P, '{'))
        return NULL;
    uint32_t n = 0, cap = 16;
    tt_map *maps = malloc(cap * sizeof *maps);
    int64_t at = 0;
    while (maps && !is_punct(P, '}') && !P->failed) {
        if (P->t != T_STR && P->t != T_IDENT) {
            fail(P, "expected an enumerator");
            break;
        }
        const char *label = P->t == T_STR ? P->s : ident_copy(P);
        next(P);
        int64_t lo = at, hi = at;
        if (is_punct(P, '=')) {
            next(P);
            if (P->t != T_NUM) {
                fail(P, "expected the enumerator's value");
                break;
            }
            lo = hi = P->num;
            next(P);
            if (P->t == T_DOTS) {
                next(P);
                hi = P->num;
                if (P->t != T_NUM || hi < lo) {
                    fail(P, "a bad range of values");
                    break;
                }
                next(P);
            }
        }
        at = hi + 1;
        if (n == cap) {
            tt_map *g = realloc(maps, 2 * (size_t)cap * sizeof *maps);
            if (!g) {
                fail(P, "out of memory"); /* not an enumeration cut short */
                break;
            }
            maps = g;
            cap *= 2;
        }
        maps[n++] = (tt_map){lo, hi, label};
        if (!is_punct(P, ','))
            break;
        next(P);
    }
    tt_type *t = maps ? palloc(P, sizeof *t) : NULL;
    tt_map *kept = t ? palloc(P, (n ? n : 1) * sizeof *kept) : NULL;
    if (!maps)
        fail(P, "out of memory");
    if (!kept || expect(P, '}')) {
        free(maps);
        return NULL;
    }
    memcpy(kept, maps, n * sizeof *kept);
    free(maps);
    qsort(kept, n, sizeof *kept, map_order);
    *t = *c;
    t->kind = TT_ENUM;
    t->maps = kept;
    t->n = n;
    make_dense(P, t);
    return t;
}

static const tt_type *struct_type(parser *P)
{
    next(P);
    if (expect(P, '{'))
        return NULL;
    uint32_t n = 0, cap = 8;
    tt_member *ms = palloc(P, cap * sizeof *ms);
    while (ms && !is_punct(P, '}') && !P->failed) {
        const tt_type *t = type_spec(P);
        if (!t)
            return NULL;
        if (P->t != T_IDENT) {
            fail(P, "expected a field name");
            return NULL;
        }
        const char *name = ident_copy(P);
        next(P);
        if (is_punct(P, '[')) { /* a static array: name[N] */
            next(P);
            if (P->t != T_NUM || P->num < 0 || P->num > 65536) {
                fail(P, "a bad array length");
                return NULL;
            }
            tt_type *a = palloc(P, sizeof *a);
            if (!a)
                return NULL;
            a->kind = TT_ARRAY;
            a->n = (uint32_t)P->num;
            a->elem = t;
            t = a;
            next(P);
            if (expect(P, ']'))
                return NULL;
        }
        if (expect(P, ';'))
            return NULL;
        if (n == cap) {
            tt_member *g = palloc(P, 2 * (size_t)cap * sizeof *g);
            if (!g)
                return NULL;
            memcpy(g, ms, n * sizeof *g);
            ms = g;
            cap *= 2;
        }
        ms[n].name = name && name[0] == '_' ? name + 1 : name; /* CTF 1.8: one '_' is not the name */
        ms[n++].type = t;
    }
    tt_type *t = ms ? palloc(P, sizeof *t) : NULL;
    if (!t)
        return NULL;
    if (expect(P, '}'))
        return NULL;
    if (is_word(P, "align")) { /* struct { ... } align(N) */
        next(P);
        if (expect(P, '(') || P->t != T_NUM) {
            fail(P, "a bad struct alignment");
            return NULL;
        }
        next(P);
        if (expect(P, ')'))
            return NULL;
    }
    t->kind = TT_STRUCT;
    t->members = ms;
    t->n = n;
    return t;
}

static const tt_type *alias(const parser *P)
{
    for (uint32_t i = P->naliases; i-- > 0;)
        if (strlen(P->aliases[i].name) == P->slen && memcmp(P->aliases[i].name, P->s, P->slen) == 0)
            return P->aliases[i].type;
    return NULL;
}

static const tt_type *type_spec(parser *P)
{
    if (P->failed)
        return NULL;
    if (is_word(P, "integer"))
        return integer_type(P);
    if (is_word(P, "floating_point"))
        return float_type(P);
    if (is_word(P, "enum"))
        return enum_type(P);
    if (is_word(P, "struct"))
        return struct_type(P);
    if (is_word(P, "string")) {
        next(P);
        if (is_punct(P, '{')) { /* string { encoding = UTF8; } */
            int64_t z = 0;
            int s = 0, b = 0;
            if (attrs(P, &z, &z, &s, &b, &z, &z))
                return NULL;
        }
        static const tt_type str = {.kind = TT_STRING};
        return &str;
    }
    const tt_type *t = P->t == T_IDENT ? alias(P) : NULL;
    if (!t) {
        fail(P, "unknown type '%.*s'", (int)(P->t == T_IDENT && P->slen < 64 ? P->slen : 0), P->s);
        return NULL;
    }
    next(P);
    return t;
}

/* ---- statements --------------------------------------------------------------- */

static int add_alias(parser *P, const char *name, const tt_type *t)
{
    if (P->naliases == P->cap_aliases) {
        uint32_t cap = P->cap_aliases ? 2 * P->cap_aliases : 32;
        struct alias *g = realloc(P->aliases, cap * sizeof *g);
        if (!g)
            return fail(P, "out of memory");
        P->aliases = g;
        P->cap_aliases = cap;
    }
    P->aliases[P->naliases++] = (struct alias){name, t};
    return 0;
}

static int typealias(parser *P)
{
    next(P);
    const tt_type *t = type_spec(P);
    if (!t || P->t != T_TYPE_ASSIGN)
        return fail(P, "expected ':=' in a typealias");
    next(P);
    if (P->t != T_IDENT)
        return fail(P, "expected the typealias's name");
    const char *name = ident_copy(P);
    next(P);
    return name && add_alias(P, name, t) == 0 ? expect(P, ';') : -1;
}

/* A block kept as text: from its '{' to the '}' that closes it. */
static int block_text(parser *P, const char **at, const char **end)
{
    next(P);
    *at = P->tok_at;
    if (!is_punct(P, '{'))
        return fail(P, "expected '{'");
    for (int depth = 0; !P->failed; next(P)) {
        if (P->t == T_END)
            return fail(P, "a block is not closed");
        depth += is_punct(P, '{') - is_punct(P, '}');
        if (!depth)
            break;
    }
    *end = P->p;
    next(P);
    return expect(P, ';');
}

static uint64_t env_count(const char *key, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(key, names[i]))
            return (uint64_t)i;
    return UINT64_MAX;
}

#define LOST_NAME(e, name, what) "tf_lost_" name,
#define DROP_NAME(e, name, what) "tf_dropped_" name,
static const char *const lost_names[] = {TFR_LOSSES(LOST_NAME)};
static const char *const drop_names[] = {TFR_DROPS(DROP_NAME)};

static void env_entry(parser *P, const char *key)
{
    td_meta *m = P->m;
    uint64_t i;
    if (!strcmp(key, "vpid") && P->t == T_NUM)
        m->pid = P->num;
    else if (!strcmp(key, "procname") && P->t == T_STR)
        m->procname = P->s;
    else if (!strcmp(key, "tf_recording") && P->t == T_STR)
        m->recording = P->s;
    else if (!strcmp(key, "tf_mode") && P->t == T_STR)
        m->stream = !strcmp(P->s, "stream");
    else if ((i = env_count(key, lost_names, TFR_NLOST)) != UINT64_MAX && P->t == T_NUM)
        m->lost[i] = (uint64_t)P->num, m->have_counts = 1;
    else if ((i = env_count(key, drop_names, TFR_NDROPS)) != UINT64_MAX && P->t == T_NUM)
        m->dropped[i] = (uint64_t)P->num, m->have_counts = 1;
    else if (!strcmp(key, "tracer_name") && P->t == T_STR && strcmp(P->s, "tf") != 0)
        fail(P, "tracer_name is \"%.*s\", not \"tf\"", 32, P->s);
}

static void clock_entry(parser *P, const char *key)
{
    td_meta *m = P->m;
    if (!strcmp(key, "freq") && P->t == T_NUM && P->num > 0)
        m->freq = (uint64_t)P->num;
    else if (!strcmp(key, "offset_s") && P->t == T_NUM)
        m->offset_s = P->num;
    else if (!strcmp(key, "offset") && P->t == T_NUM && P->num >= 0)
        m->offset = (uint64_t)P->num;
}

/* env { key = value; ... }; and clock's. */
static int assignments(parser *P, void (*entry)(parser *, const char *))
{
    next(P);
    if (expect(P, '{'))
        return -1;
    while (!is_punct(P, '}') && !P->failed) {
        if (P->t != T_IDENT)
            return fail(P, "expected a name");
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(P->slen < 63 ? P->slen : 63), P->s);
        next(P);
        if (expect(P, '='))
            return -1;
        if (P->t != T_NUM && P->t != T_STR && P->t != T_IDENT)
            return fail(P, "expected a value for '%s'", key);
        entry(P, key);
        next(P);
        if (expect(P, ';'))
            return -1;
    }
    next(P);
    return expect(P, ';');
}

static int kind_of(const char *name)
{
    static const char *const names[] = {"tf:enter", "tf:exit", "tf:info", "tf:exception", "tf:signal",
                                        "tf:counters", "tf:budget"};
    static const int kinds[] = {TD_ENTER, TD_EXIT, TD_INFO, TD_EXCEPTION, TD_SIGNAL, TD_COUNTERS, TD_BUDGET};
    for (int i = 0; i < 7; i++)
        if (!strcmp(name, names[i]))
            return kinds[i];
    return -1;
}

static int add_class(parser *P, uint64_t id, tt_class *c)
{
    td_meta *m = P->m;
    if (id >= (1u << 24))
        return fail(P, "event id %llu is too large", (unsigned long long)id);
    if (id >= m->nclasses) {
        uint32_t n = m->nclasses ? m->nclasses : 64;
        while (n <= id)
            n *= 2;
        tt_class **g = realloc(m->classes, n * sizeof *g);
        if (!g)
            return fail(P, "out of memory");
        memset(g + m->nclasses, 0, (n - m->nclasses) * sizeof *g);
        m->classes = g;
        m->nclasses = n;
    }
    if (m->classes[id])
        return fail(P, "event id %llu is declared twice", (unsigned long long)id);
    m->classes[id] = c;
    return 0;
}

static int event(parser *P)
{
    next(P);
    if (expect(P, '{'))
        return -1;
    tt_class *c = palloc(P, sizeof *c);
    int64_t id = -1;
    if (!c)
        return -1;
    while (!is_punct(P, '}') && !P->failed) {
        if (is_word(P, "fields")) {
            next(P);
            if (P->t != T_TYPE_ASSIGN)
                return fail(P, "expected 'fields :='");
            next(P);
            c->fields = type_spec(P);
        } else if (is_word(P, "name") || is_word(P, "id") || is_word(P, "stream_id") ||
                   is_word(P, "loglevel")) {
            int is_name = is_word(P, "name"), is_id = is_word(P, "id");
            next(P);
            if (expect(P, '='))
                return -1;
            if (is_name && P->t == T_STR)
                c->name = P->s;
            else if (is_id && P->t == T_NUM)
                id = P->num;
            next(P);
        } else {
            return fail(P, "unexpected '%.*s' in an event", (int)(P->slen < 32 ? P->slen : 32), P->s);
        }
        if (expect(P, ';'))
            return -1;
    }
    if (P->failed)
        return -1;
    next(P);
    if (!c->name || id < 0 || !c->fields || c->fields->kind != TT_STRUCT)
        return fail(P, "an event without a name, an id or fields");
    c->kind = kind_of(c->name);
    return add_class(P, (uint64_t)id, c) ? -1 : expect(P, ';');
}

/* The text between two marks, without white space, equals want's. */
static int same_words(const char *a, const char *a_end, const char *want)
{
    for (;;) {
        while (a < a_end && isspace((unsigned char)*a))
            a++;
        while (*want && isspace((unsigned char)*want))
            want++;
        if (a == a_end || !*want)
            return a == a_end && !*want;
        if (*a++ != *want++)
            return 0;
    }
}

/* The recorder's trace and stream blocks, so that native.c's fixed layout
 * is the one the metadata describes. */
static int layout_is_ours(parser *P)
{
    static char trace[512], stream[1024];
    if (!trace[0]) {
        const char *t = strstr(tfr_tsdl_types, "trace {"), *e = strstr(t, "\n};") + 1;
        snprintf(trace, sizeof trace, "%.*s", (int)(e - t - 6 + 1), t + 6);
        const char *s = strchr(tfr_tsdl_stream, '{');
        snprintf(stream, sizeof stream, "%.*s", (int)(strrchr(s, '}') - s + 1), s);
    }
    if (!P->trace_at || !same_words(P->trace_at, P->trace_end, trace))
        return fail(P, "the trace block is not the recorder's");
    if (!P->stream_at || !same_words(P->stream_at, P->stream_end, stream))
        return fail(P, "the stream block is not the recorder's");
    return 0;
}

/* One of the recorder's structs for a value (docs/trace-format.md,
 * "Values"): __int128, complex, vector, unknown, a struct's spelling. */
static int value_struct(const tt_type *t)
{
    const char *a = t->n ? t->members[0].name : "", *b = t->n == 2 ? t->members[1].name : "";
    if (t->n == 2)
        return (!strcmp(a, "lo") && !strcmp(b, "hi")) || (!strcmp(a, "re") && !strcmp(b, "im"));
    return t->n == 1 && (!strcmp(a, "v") || !strcmp(a, "unknown") || !strcmp(a, "type"));
}

/* Captured values (docs/trace-format.md, "Captured values", .cap.record)
 * are structures of the fields the recorder read behind a pointer. This
 * reader does not rebuild them: such a trace is babeltrace2's (fields.c,
 * captured.c), and a ring file holding them is refused with the reason. */
static void no_captured(parser *P)
{
    for (uint32_t id = 0; id < P->m->nclasses; id++) {
        const tt_class *c = P->m->classes[id];
        for (uint32_t i = 0; c && c->fields && i < c->fields->n; i++) {
            const tt_type *t = c->fields->members[i].type;
            if (t->kind == TT_STRUCT && !value_struct(t)) {
                fail(P, "event class %u (%s) holds captured values ('%s'), which only babeltrace2 reads", id,
                     c->name, c->fields->members[i].name);
                return;
            }
        }
    }
}

int td_meta_parse(td_meta *m, const char *text, size_t len, char *why, size_t whylen)
{
    memset(m, 0, sizeof *m);
    m->pid = -1;
    parser P = {.m = m, .p = text, .end = text + len, .line = 1, .why = why, .whylen = whylen};
    next(&P);
    while (P.t != T_END && !P.failed) {
        if (is_word(&P, "typealias"))
            typealias(&P);
        else if (is_word(&P, "trace"))
            block_text(&P, &P.trace_at, &P.trace_end);
        else if (is_word(&P, "stream"))
            block_text(&P, &P.stream_at, &P.stream_end);
        else if (is_word(&P, "env"))
            assignments(&P, env_entry);
        else if (is_word(&P, "clock"))
            assignments(&P, clock_entry);
        else if (is_word(&P, "event"))
            event(&P);
        else
            fail(&P, "unexpected '%.*s'", (int)(P.t == T_IDENT && P.slen < 32 ? P.slen : 1),
                 P.t == T_IDENT ? P.s : P.tok_at);
    }
    if (!P.failed && !m->freq)
        fail(&P, "no clock frequency");
    if (!P.failed)
        layout_is_ours(&P);
    if (!P.failed)
        no_captured(&P);
    free(P.aliases);
    if (P.failed) {
        td_meta_free(m);
        return -1;
    }
    return 0;
}

const char *td_meta_label(const tt_type *t, int64_t v)
{
    if (v >= 0 && (uint64_t)v < t->ndense)
        return t->dense[v];
    uint32_t lo = 0, hi = t->n;
    while (lo < hi) { /* the last map with lo <= v */
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->maps[mid].lo <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && v <= t->maps[lo - 1].hi ? t->maps[lo - 1].label : NULL;
}
