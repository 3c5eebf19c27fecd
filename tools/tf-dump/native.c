/*
 * native.c: TF recordings read by tf-dump itself (native.h). Each stream is
 * a run of packets (runtime/record/layout.h, TFR_P_*), decoded one event at
 * a time as the merge asks for it: the streams of all traces are merged in
 * time order through a binary heap, so the cost is linear in events and
 * logarithmic in streams. Classes and function names are found by index.
 *
 * Damage (.req.robust): a packet whose header does not hold together is
 * skipped up to the next one that does; an event that cannot be decoded
 * ends its packet. Each skip is said once with its bytes and why, and the
 * exit status is then 1; everything else is read.
 */
#define _GNU_SOURCE
#include <babeltrace2/babeltrace.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tf/monitors.h>

#include "../../runtime/record/layout.h"
#include "native.h"

typedef struct slot {
    tf_value v;
    tf_enum_type type;
    tf_enumerator item;
    char code[24];
    _Alignas(16) unsigned char bytes[256]; /* INT128, COMPLEX, VECTOR: v.p (RC_VECTOR_MAX) */
} slot;

typedef struct stream {
    td_trace *trace;
    char *name;
    unsigned char *data;
    size_t size;
    int mapped;
    size_t at, pos, content_end, end; /* this packet, the next event, its content, its end */
    uint64_t ts, seq, discarded, first_discarded, missing;
    int have_seq, in_packet;
    char thread[17];
    int64_t tid;
    /* the event decoded and waiting in the merge */
    int64_t ns;
    td_event e;
    slot *slots, result;
    tf_value *values;
    uint32_t cap, vcap;
    char num[24];
    uint32_t order; /* ties in time keep the order streams were added in */
} stream;

struct td_trace {
    char *name;
    td_meta meta;
    stream **streams;
    uint32_t n, cap;
    int damaged;
};

static unsigned char *read_file(const char *path, size_t *size, int *mapped)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    unsigned char *d = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        *size = (size_t)st.st_size;
        d = *size ? mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        d = d == MAP_FAILED ? NULL : d;
        *mapped = 1;
    }
    if (fd >= 0)
        close(fd);
    return d;
}

td_trace *td_trace_new(const char *name, const char *text, size_t len)
{
    td_trace *t = calloc(1, sizeof *t);
    char why[256];
    if (!t || !(t->name = strdup(name)) || td_meta_parse(&t->meta, text, len, why, sizeof why) != 0) {
        if (t && t->name)
            fprintf(stderr, "tf-dump: %s: the metadata cannot be read: %s\n", name, why);
        if (t)
            free(t->name);
        free(t);
        return NULL;
    }
    return t;
}

int td_trace_add(td_trace *t, const char *name, unsigned char *data, size_t size, int mapped)
{
    stream *s = calloc(1, sizeof *s);
    if (!s || !td_grow(&t->streams, &t->cap, t->n, sizeof *t->streams, 16) || !(s->name = strdup(name))) {
        free(s);
        if (mapped && data)
            munmap(data, size);
        else if (!mapped)
            free(data);
        return -1;
    }
    s->trace = t;
    s->data = data;
    s->size = data ? size : 0;
    s->mapped = mapped;
    s->tid = -1;
    t->streams[t->n++] = s;
    return 0;
}

void td_trace_damaged(td_trace *t)
{
    t->damaged = 1;
}

static void stream_free(stream *s)
{
    if (s->mapped && s->data)
        munmap(s->data, s->size);
    else if (!s->mapped)
        free(s->data);
    free(s->slots);
    free(s->values);
    free(s->name);
    free(s);
}

const td_meta *td_trace_meta(const td_trace *t)
{
    return &t->meta;
}

void td_trace_free(td_trace *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++)
        stream_free(t->streams[i]);
    free(t->streams);
    td_meta_free(&t->meta);
    free(t->name);
    free(t);
}

static int skip_entry(const struct dirent *e)
{
    return e->d_name[0] == '.' || strcmp(e->d_name, "metadata") == 0;
}

td_trace *td_trace_open_dir(const char *dir, char *why, size_t len)
{
    char *path = NULL;
    size_t size = 0;
    int mapped = 0;
    if (asprintf(&path, "%s/metadata", dir) < 0)
        return NULL;
    unsigned char *text = read_file(path, &size, &mapped);
    free(path);
    td_trace *t = calloc(1, sizeof *t);
    if (!text || !t || !(t->name = strdup(dir)) ||
        td_meta_parse(&t->meta, (const char *)text, size, why, len) != 0) {
        if (!text)
            snprintf(why, len, "its metadata cannot be read");
        if (text)
            munmap(text, size);
        if (t)
            free(t->name);
        free(t);
        return NULL;
    }
    munmap(text, size);
    struct dirent **names;
    int n = scandir(dir, &names, NULL, versionsort); /* thread-2 before thread-10 */
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (!skip_entry(names[i]) && asprintf(&path, "%s/%s", dir, names[i]->d_name) >= 0) {
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
                unsigned char *d = read_file(path, &size, &mapped);
                if (!d || td_trace_add(t, path, d, size, 1) != 0)
                    fprintf(stderr, "tf-dump: %s: cannot be read: %m\n", path), t->damaged = 1;
            }
            free(path);
        }
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    return t;
}

/* ---- packets ------------------------------------------------------------------ */

static uint32_t u32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static void skipped(stream *s, size_t from, size_t to, const char *why)
{
    fprintf(stderr, "tf-dump: %s: bytes %zu-%zu skipped: %s\n", s->name, from, to - 1, why);
    s->trace->damaged = 1;
}

/* NULL if a packet that holds together begins at o, else why not. */
static const char *packet_bad(const stream *s, size_t o, char *why, size_t len)
{
    const unsigned char *p = s->data + o;
    if (s->size - o < TFR_P_HEADER)
        return "fewer bytes are left than a packet header takes";
    if (u32(p) != TFR_PACKET_MAGIC) {
        snprintf(why, len, "the packet header's magic is 0x%08x, not 0x%08x", u32(p), TFR_PACKET_MAGIC);
        return why;
    }
    uint64_t content = u32(p + TFR_P_CONTENT), size = u32(p + TFR_P_SIZE);
    if (content % 8 || size % 8 || content < 8 * TFR_P_HEADER || content > size) {
        snprintf(why, len, "its sizes (content %llu bits, packet %llu bits) do not hold together",
                 (unsigned long long)content, (unsigned long long)size);
        return why;
    }
    if (size / 8 > s->size - o) {
        snprintf(why, len, "its packet of %llu bytes runs past the end of the file",
                 (unsigned long long)size / 8);
        return why;
    }
    if (u64(p + TFR_P_TS_BEGIN) > u64(p + TFR_P_TS_END))
        return "it ends before it begins";
    if (s->have_seq && u64(p + TFR_P_SEQ) <= s->seq) {
        snprintf(why, len, "its sequence number %llu does not follow %llu",
                 (unsigned long long)u64(p + TFR_P_SEQ), (unsigned long long)s->seq);
        return why;
    }
    if (s->have_seq && u64(p + TFR_P_TS_BEGIN) < s->ts)
        return "it begins before the previous packet's last event";
    return NULL;
}

/* Begins the packet at s->at, or the next one that holds together. */
static int begin_packet(stream *s)
{
    char why[128];
    const char *bad = s->at < s->size ? packet_bad(s, s->at, why, sizeof why) : NULL;
    if (bad) {
        char first[160], scratch[128];
        snprintf(first, sizeof first, "%s", bad);
        size_t o = s->at + 1;
        while (o + TFR_P_HEADER <= s->size && packet_bad(s, o, scratch, sizeof scratch))
            o++;
        o = o + TFR_P_HEADER <= s->size ? o : s->size;
        skipped(s, s->at, o, first);
        s->at = o;
    }
    if (s->at >= s->size)
        return 0;
    const unsigned char *p = s->data + s->at;
    s->pos = s->at + TFR_P_HEADER;
    s->content_end = s->at + u32(p + TFR_P_CONTENT) / 8;
    s->end = s->at + u32(p + TFR_P_SIZE) / 8;
    s->ts = u64(p + TFR_P_TS_BEGIN);
    if (s->have_seq)
        s->missing += u64(p + TFR_P_SEQ) - s->seq - 1;
    s->seq = u64(p + TFR_P_SEQ);
    uint64_t disc = u64(p + TFR_P_DISCARDED);
    if (!s->have_seq)
        s->first_discarded = disc;
    s->discarded = disc > s->discarded ? disc : s->discarded;
    s->have_seq = 1;
    s->tid = u32(p + TFR_P_TID);
    memcpy(s->thread, p + TFR_P_THREAD, 16);
    s->thread[16] = 0;
    s->in_packet = 1;
    return 1;
}

static void end_packet(stream *s)
{
    s->in_packet = 0;
    s->at = s->end;
}

/* ---- values ------------------------------------------------------------------- */

typedef struct cursor {
    const unsigned char *p, *end;
    const char *why;
} cursor;

static int need(cursor *c, size_t n)
{
    if ((size_t)(c->end - c->p) >= n)
        return 1;
    c->why = "an event runs past its packet's content";
    return 0;
}

static int64_t integer(cursor *c, const tt_type *t, uint64_t *u)
{
    uint64_t v = 0;
    if (!t->bytes) {
        c->why = "a field of an integer size the recorder never writes";
        return 0;
    }
    if (!need(c, t->bytes))
        return 0;
    memcpy(&v, c->p, t->bytes); /* little-endian */
    c->p += t->bytes;
    if (t->is_signed && t->bytes < 8 && (v >> (8 * t->bytes - 1) & 1))
        v |= ~0ull << (8 * t->bytes);
    *u = v;
    return (int64_t)v;
}

static double real(cursor *c, const tt_type *t)
{
    if (!need(c, t->bytes))
        return 0;
    double d;
    if (t->bytes == 4) {
        float f;
        memcpy(&f, c->p, 4);
        d = f;
    } else {
        memcpy(&d, c->p, 8);
    }
    c->p += t->bytes;
    return d;
}

static const char *string(cursor *c)
{
    const unsigned char *nul = c->p < c->end ? memchr(c->p, 0, (size_t)(c->end - c->p)) : NULL;
    if (!nul) {
        c->why = "a string runs past its packet's content";
        return NULL;
    }
    const char *s = (const char *)c->p;
    c->p = nul + 1;
    return s;
}

static void skip_type(cursor *c, const tt_type *t);

static void skip_type(cursor *c, const tt_type *t)
{
    uint64_t u;
    switch (t->kind) {
    case TT_INT: case TT_ENUM: integer(c, t, &u); break;
    case TT_FLOAT: real(c, t); break;
    case TT_STRING: string(c); break;
    case TT_STRUCT:
        for (uint32_t i = 0; i < t->n && !c->why; i++)
            skip_type(c, t->members[i].type);
        break;
    default:
        for (uint32_t i = 0; i < t->n && !c->why; i++)
            skip_type(c, t->elem);
        break;
    }
}

static const tt_member *member(const tt_type *t, const char *name)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (!strcmp(t->members[i].name, name))
            return &t->members[i];
    return NULL;
}

/* {lo, hi}: an __int128 into out (little-endian), 1 if signed; -1 if not one. */
static int int128(cursor *c, const tt_type *t, unsigned char *out)
{
    if (t->kind != TT_STRUCT || t->n != 2 || strcmp(t->members[0].name, "lo") ||
        strcmp(t->members[1].name, "hi") || t->members[0].type->kind != TT_INT ||
        t->members[1].type->kind != TT_INT)
        return -1;
    uint64_t lo, hi;
    integer(c, t->members[0].type, &lo);
    integer(c, t->members[1].type, &hi);
    memcpy(out, &lo, 8);
    memcpy(out + 8, &hi, 8);
    return t->members[1].type->is_signed;
}

/* A vector {v[N]}: its elements into s->bytes; TF_K_NONE if it is none. */
static int vector(cursor *c, slot *s, const tt_type *arr)
{
    const tt_type *el = arr->elem;
    unsigned bytes = el->kind == TT_STRUCT ? 16 : el->bytes, at = 0;
    char cls = el->kind == TT_FLOAT ? 'f' : el->kind == TT_INT ? (el->is_signed ? 'i' : 'u') : 0;
    for (uint32_t i = 0; i < arr->n && !c->why; i++) {
        unsigned char e[16];
        uint64_t u;
        int sign = 0;
        if (el->kind == TT_FLOAT) {
            double d = real(c, el);
            memcpy(e, &d, 8);
        } else if (el->kind == TT_INT) {
            integer(c, el, &u);
            memcpy(e, &u, el->bytes);
        } else if ((sign = int128(c, el, e)) >= 0) {
            cls = sign ? 'i' : 'u';
        } else {
            skip_type(c, el);
            cls = 0;
        }
        if (cls && bytes && at + bytes <= sizeof s->bytes)
            memcpy(s->bytes + at, e, bytes);
        at += bytes;
    }
    if (!cls || !bytes || !arr->n || at > sizeof s->bytes)
        return TF_K_NONE;
    snprintf(s->code, sizeof s->code, "%c%u*%u", cls, bytes, arr->n);
    s->v.size = at;
    return TF_K_VECTOR;
}

/* The recorder's structs for values (docs/trace-format.md, "Values"). */
static int wide(cursor *c, slot *s, const tt_type *t)
{
    const tt_member *re = member(t, "re"), *im = member(t, "im"), *v = member(t, "v");
    s->v.v.p = s->bytes;
    s->v.type = s->code;
    int sign = int128(c, t, s->bytes);
    if (sign >= 0) {
        s->v.size = 16;
        return sign ? TF_K_INT128 : TF_K_UINT128;
    }
    if (t->n == 2 && re == &t->members[0] && im == &t->members[1] && re->type->kind == TT_FLOAT &&
        im->type->kind == TT_FLOAT) {
        double d[2];
        d[0] = real(c, re->type);
        d[1] = real(c, im->type);
        memcpy(s->bytes, d, sizeof d);
        strcpy(s->code, "f8*2");
        s->v.size = 16;
        return TF_K_COMPLEX;
    }
    if (t->n == 1 && v && v->type->kind == TT_ARRAY)
        return vector(c, s, v->type);
    skip_type(c, t);
    s->v.v.p = NULL;
    s->v.type = NULL;
    return t->n == 1 && member(t, "unknown") ? TF_K_NONE : TF_K_STRUCT;
}

/* One field as fields.c makes one of babeltrace2's: the same tf_value. */
static void value(cursor *c, slot *s, const tt_type *t, const char *name)
{
    memset(s, 0, offsetof(slot, bytes));
    s->v.name = name;
    uint64_t u;
    switch (t->kind) {
    case TT_ENUM:
        s->v.kind = TF_K_ENUM;
        s->v.v.i = integer(c, t, &u);
        s->item.value = s->v.v.i;
        s->item.name = td_meta_label(t, s->v.v.i);
        s->type.count = s->item.name ? 1 : 0;
        s->type.items = &s->item;
        s->v.type = &s->type;
        break;
    case TT_INT:
        s->v.v.i = integer(c, t, &u);
        s->v.kind = t->is_signed ? TF_K_INT : t->hex ? TF_K_PTR : TF_K_UINT;
        break;
    case TT_FLOAT:
        s->v.kind = TF_K_FLOAT;
        s->v.v.d = real(c, t);
        break;
    case TT_STRING:
        s->v.kind = TF_K_STR;
        s->v.v.s = string(c);
        break;
    case TT_STRUCT:
        s->v.kind = (uint32_t)wide(c, s, t);
        break;
    default:
        skip_type(c, t);
        s->v.kind = TF_K_STRUCT;
        break;
    }
}

/* The slot's value with its pointers into the slot where it is now. */
static tf_value slot_value(slot *s)
{
    tf_value v = s->v;
    if (v.kind == TF_K_ENUM)
        v.type = &s->type;
    if (v.kind == TF_K_INT128 || v.kind == TF_K_UINT128 || v.kind == TF_K_COMPLEX || v.kind == TF_K_VECTOR) {
        v.v.p = s->bytes;
        v.type = s->code;
    }
    return v;
}

/* ---- events ------------------------------------------------------------------- */

static const char *const known[][4] = {
    [TD_ENTER] = {"func", NULL},
    [TD_EXIT] = {"func", "result", NULL},
    [TD_INFO] = {"func", "info", "tp", NULL},
    [TD_EXCEPTION] = {"func", "kind", "type", NULL},
    [TD_SIGNAL] = {"signal", "code", "addr", NULL},
    [TD_COUNTERS] = {NULL}, /* every field is a counter, an argument */
    [TD_BUDGET] = {NULL},   /* every field an argument: "function" is no "func" */
};

static int is_known(int kind, const char *name)
{
    for (int i = 0; known[kind][i]; i++)
        if (!strcmp(known[kind][i], name))
            return 1;
    return 0;
}

static const char *text_of(const slot *s)
{
    return s->v.kind == TF_K_STR ? s->v.v.s : s->v.kind == TF_K_ENUM ? s->item.name : NULL;
}

static int one_field(stream *s, cursor *c, const tt_member *f)
{
    td_event *e = &s->e;
    slot scratch, *to = &scratch;
    int arg = !is_known((int)e->kind, f->name) && e->kind != TD_EXCEPTION;
    if (arg && !td_grow(&s->slots, &s->cap, e->nargs, sizeof *s->slots, 8))
        return -1;
    if (arg)
        to = &s->slots[e->nargs++];
    else if (e->kind == TD_EXIT && !strcmp(f->name, "result"))
        to = &s->result;
    value(c, to, f->type, arg ? f->name : NULL);
    if (c->why || arg)
        return c->why ? -1 : 0;
    if (!strcmp(f->name, "func") && e->kind != TD_SIGNAL) {
        e->func = text_of(to);
        if (!e->func && to->v.kind != TF_K_STR) {
            snprintf(s->num, sizeof s->num, "%lld", (long long)to->v.v.i);
            e->func = s->num;
        }
        e->func = e->func ? e->func : "?";
    } else if (e->kind == TD_INFO && !strcmp(f->name, "info")) {
        e->info = text_of(to);
    } else if (e->kind == TD_INFO && !strcmp(f->name, "tp")) {
        e->info_tp = text_of(to);
    } else if (e->kind == TD_EXCEPTION && !strcmp(f->name, "kind")) {
        e->exc_kind = text_of(to);
    } else if (e->kind == TD_EXCEPTION && !strcmp(f->name, "type")) {
        e->exc_type = text_of(to);
    } else if (to == &s->result) {
        e->result = &s->result.v;
    } else if (e->kind == TD_SIGNAL && !strcmp(f->name, "signal")) {
        e->sig_name = text_of(to) ? text_of(to) : "?";
    } else if (e->kind == TD_SIGNAL && !strcmp(f->name, "code")) {
        e->sig_code = to->v.v.i;
    } else if (e->kind == TD_SIGNAL && !strcmp(f->name, "addr")) {
        e->sig_addr = to->v.v.u;
    }
    return 0;
}

static int fault_signal(const char *name)
{
    static const char *const faults[] = {"SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGTRAP"};
    for (int i = 0; name && i < 5; i++)
        if (!strcmp(name, faults[i]))
            return 1;
    return 0;
}

static void fill(stream *s, const tt_class *cls)
{
    td_event *e = &s->e;
    memset(e, 0, sizeof *e);
    e->kind = (td_kind)cls->kind;
    e->pid = s->trace->meta.pid;
    e->tid = s->tid;
    e->thread = s->thread;
    e->func = e->kind == TD_SIGNAL     ? ""
              : e->kind == TD_COUNTERS ? "counters"
              : e->kind == TD_BUDGET   ? "budget"
                                       : "?";
}

static int64_t to_ns(const td_meta *m, uint64_t cycles)
{
    int64_t ns = 0;
    uint64_t freq = m->freq, off = m->offset % freq;
    int64_t off_s = m->offset_s + (int64_t)(m->offset / freq);
    bt_util_clock_cycles_to_ns_from_origin(cycles, freq, off_s, off, &ns);
    return ns;
}

/* The event at s->pos: header, class, fields. 1, or 0 with c->why. */
static int decode(stream *s, cursor *c)
{
    const td_meta *m = &s->trace->meta;
    if (!need(c, 4))
        return 0;
    uint32_t w = u32(c->p), id = w & 31;
    uint64_t ts;
    if (id == 31) {
        if (!need(c, 13))
            return 0;
        id = u32(c->p + 1);
        ts = u64(c->p + 5);
        c->p += 13;
        if (ts < s->ts) {
            c->why = "an event goes back in time";
            return 0;
        }
    } else {
        uint64_t low = w >> 5, mask = (1ull << 27) - 1;
        ts = (s->ts & ~mask) | low;
        if (low < (s->ts & mask))
            ts += 1ull << 27;
        c->p += 4;
    }
    const tt_class *cls = id < m->nclasses ? m->classes[id] : NULL;
    if (!cls) {
        c->why = "an event's class is not in the metadata";
        return 0;
    }
    s->ts = ts;
    if (cls->kind < 0) { /* not one of TF's kinds: decoded past, not shown */
        skip_type(c, cls->fields);
        s->e.kind = (td_kind)-1;
        return !c->why;
    }
    fill(s, cls);
    for (uint32_t i = 0; i < cls->fields->n && !c->why; i++)
        if (one_field(s, c, &cls->fields->members[i]) != 0 && !c->why)
            c->why = "out of memory";
    if (c->why)
        return 0;
    s->e.sig_has_addr = s->e.kind == TD_SIGNAL && fault_signal(s->e.sig_name) && s->e.sig_code > 0;
    s->ns = to_ns(m, ts);
    s->e.ns = s->ns;
    return 1;
}

/* The stream's next TF event into s->e: 1, or 0 at its end. */
static int next_event(stream *s)
{
    for (;;) {
        if (!s->in_packet && !begin_packet(s))
            return 0;
        if (s->pos >= s->content_end) {
            end_packet(s);
            continue;
        }
        cursor c = {s->data + s->pos, s->data + s->content_end, NULL};
        size_t at = s->pos;
        if (!decode(s, &c)) {
            char why[160];
            snprintf(why, sizeof why, "%s (the event at byte %zu)", c.why, at);
            skipped(s, at, s->end, why);
            end_packet(s);
            continue;
        }
        s->pos = (size_t)(c.p - s->data);
        if ((int)s->e.kind >= 0)
            return 1;
    }
}

/* ---- the merge ---------------------------------------------------------------- */

static int earlier(const stream *a, const stream *b)
{
    return a->ns != b->ns ? a->ns < b->ns : a->order < b->order;
}

static void sift_down(stream **h, uint32_t n, uint32_t i)
{
    for (uint32_t k; (k = 2 * i + 1) < n; i = k) {
        if (k + 1 < n && earlier(h[k + 1], h[k]))
            k++;
        if (!earlier(h[k], h[i]))
            return;
        stream *t = h[i];
        h[i] = h[k];
        h[k] = t;
    }
}

/* The event's values as an array the outputs read (td_event.args). */
static int emit(stream *s, td_output *out)
{
    td_event *e = &s->e;
    if (e->nargs) {
        if (e->nargs > s->vcap) {
            tf_value *v = realloc(s->values, e->nargs * sizeof *v);
            if (!v) {
                fputs("tf-dump: out of memory\n", stderr);
                return 1;
            }
            s->values = v;
            s->vcap = e->nargs;
        }
        for (uint32_t i = 0; i < e->nargs; i++)
            s->values[i] = slot_value(&s->slots[i]);
        e->args = s->values;
    }
    if (e->result)
        e->result = &s->result.v;
    if (e->kind == TD_COUNTERS || e->kind == TD_BUDGET)
        return out->counters ? out->counters(out->self, e) : 0;
    return out->event(out->self, e);
}

#define LOST_WHAT(e, name, what) what,
static const char *const lost_what[] = {TFR_LOSSES(LOST_WHAT)};

/* What the recording could not keep, as the recorder said it at exit. */
static void say_losses(const td_trace *t)
{
    const td_meta *m = &t->meta;
    uint64_t all = 0, between = 0;
    for (int i = 0; i < TFR_NLOST; i++)
        all += m->lost[i];
    for (uint32_t i = 0; i < t->n; i++)
        between += t->streams[i]->discarded - t->streams[i]->first_discarded;
    if (m->have_counts && all) {
        fprintf(stderr, "tf-dump: %s: the recorder discarded %llu events (%llu of them between the "
                "packets kept here), which", t->name, (unsigned long long)all, (unsigned long long)between);
        for (int i = 0, n = 0; i < TFR_NLOST; i++)
            if (m->lost[i])
                fprintf(stderr, "%s%llu %s", n++ ? ", " : ": ", (unsigned long long)m->lost[i], lost_what[i]);
        fprintf(stderr, "\n");
    } else if (!m->have_counts && between) {
        fprintf(stderr, "tf-dump: %s: the recording lost %llu events (the recorder could not keep them; "
                "they are missing above)\n", t->name, (unsigned long long)between);
    }
    if (m->dropped[TFR_DROP_THREADS])
        fprintf(stderr, "tf-dump: %s: the events of %llu ended threads were dropped to stay within "
                "TF_RECORD_TOTAL\n", t->name, (unsigned long long)m->dropped[TFR_DROP_THREADS]);
    for (uint32_t i = 0; m->stream && i < t->n; i++)
        if (t->streams[i]->missing)
            fprintf(stderr, "tf-dump: %s: %llu packets are missing (their sequence numbers are "
                    "skipped): stream mode could not write them\n", t->streams[i]->name,
                    (unsigned long long)t->streams[i]->missing);
    if (m->dropped[TFR_DROP_DISK])
        fprintf(stderr, "tf-dump: %s: %llu packets could not be written to the disk\n", t->name,
                (unsigned long long)m->dropped[TFR_DROP_DISK]);
}

int td_native_read(td_trace **traces, int n, td_output *out)
{
    uint32_t total = 0, k = 0;
    for (int i = 0; i < n; i++)
        total += traces[i]->n;
    stream **heap = malloc((total ? total : 1) * sizeof *heap);
    if (!heap) {
        fputs("tf-dump: out of memory\n", stderr);
        return 1;
    }
    for (int i = 0; i < n; i++)
        for (uint32_t j = 0; j < traces[i]->n; j++) {
            stream *s = traces[i]->streams[j];
            s->order = k;
            if (next_event(s))
                heap[k++] = s;
        }
    for (uint32_t i = k / 2; i-- > 0;)
        sift_down(heap, k, i);
    int failed = 0;
    while (k && !failed) {
        stream *s = heap[0];
        failed = emit(s, out);
        if (!next_event(s))
            heap[0] = heap[--k];
        sift_down(heap, k, 0);
    }
    free(heap);
    int damaged = 0;
    for (int i = 0; i < n; i++) {
        say_losses(traces[i]);
        damaged |= traces[i]->damaged;
    }
    return failed || damaged;
}
