/*
 * rings.c: the ring file of a recording whose process did not get to write
 * its trace (runtime/record/layout.h: killed, out of memory, _exit, exec),
 * read as a trace of its own. Every complete event is read: a closed packet
 * up to its content, an open one up to its ring's commit. An event that
 * was half written when the process stopped (its ring busy) is left out
 * and said. The metadata is rebuilt from the file's header and log with the
 * recorder's own pieces (runtime/record/tsdl.h).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../runtime/record/layout.h"
#include "../../runtime/record/tsdl.h"
#include "rings.h"

typedef struct text {
    char *p;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 8192;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *g = realloc(t->p, cap);
        if (!g) {
            t->failed = 1;
            return;
        }
        t->p = g;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = 0;
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void printf_(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(text *t, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(t, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* A name from the file as a TSDL string: quotes, backslashes and control
 * bytes are not taken as they are. */
static void quoted(text *t, const char *s, size_t cap)
{
    puts_(t, "\"");
    for (size_t i = 0; i < cap && s[i]; i++) {
        char c = s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20 ? '_' : s[i];
        put(t, &c, 1);
    }
    puts_(t, "\"");
}

#define PUT_LOST(e, name, what) printf_(t, "\ttf_lost_" name " = %llu;\n", (unsigned long long)h->lost[TFR_LOST_##e]);
#define PUT_DROP(e, name, what) printf_(t, "\ttf_dropped_" name " = %llu;\n", (unsigned long long)h->drops[TFR_DROP_##e]);

static void env(text *t, const tfr_header *h)
{
    puts_(t, "env {\n\tdomain = \"ust\";\n\ttracer_name = \"tf\";\n\ttracer_major = 1;\n"
             "\ttracer_minor = 0;\n\thostname = ");
    quoted(t, h->host, sizeof h->host);
    printf_(t, ";\n\tvpid = %u;\n\tprocname = ", h->pid);
    quoted(t, h->proc, sizeof h->proc);
    printf_(t, ";\n\ttf_mode = \"ring\";\n\ttf_values = %d;\n\ttf_clock = \"%s\";\n",
            h->flags & TFR_VALUES ? 1 : 0, h->flags & TFR_TSC ? "tsc" : "monotonic");
    printf_(t, "\ttf_recording = \"%016llx\";\n\ttf_threads = %u;\n", (unsigned long long)h->id, h->threads);
    TFR_LOSSES(PUT_LOST)
    TFR_DROPS(PUT_DROP)
    puts_(t, "};\n\n");
}

/* The clock as the recorder declares it (tsdl.h, tfr_clock_of). */
static void clock_block(text *t, const tfr_header *h, const char *name)
{
    uint64_t freq, offset;
    int64_t offset_s;
    if (!tfr_clock_of(h, &freq, &offset_s, &offset))
        fprintf(stderr, "tf-dump: %s: the clock's rate was not measured before the process "
                "stopped: times are taken as nanoseconds\n", name);
    printf_(t, "clock {\n\tname = \"tf\";\n\tdescription = \"%s\";\n\tfreq = %llu;\n\tprecision = 1;\n"
               "\toffset_s = %lld;\n\toffset = %llu;\n\tabsolute = FALSE;\n};\n\n",
            h->flags & TFR_TSC ? "TSC, calibrated against CLOCK_MONOTONIC" : "CLOCK_MONOTONIC",
            (unsigned long long)freq, (long long)offset_s, (unsigned long long)offset);
}

/* The first id of a TU's labels ("\t\"tu.f\" = 12,\n..."). */
static uint64_t first_id(const char *s, size_t len)
{
    const char *eq = memmem(s, len, "\" = ", 4);
    return eq ? strtoull(eq + 4, NULL, 10) : UINT64_MAX;
}

/* Walks the log: the labels into both enumerations, the classes after. */
static int log_records(const unsigned char *log, uint64_t len, text *t, int wide, int events)
{
    int any = 0;
    for (uint64_t at = 0; at + sizeof(tfr_log) <= len;) {
        tfr_log r;
        memcpy(&r, log + at, sizeof r);
        uint64_t size = sizeof r + ((uint64_t)r.len + 7) / 8 * 8;
        if (size > len - at)
            return -1;
        const char *s = (const char *)log + at + sizeof r;
        if (!events && r.kind == TFR_LOG_LABELS && (wide || first_id(s, r.len) < 65536)) {
            put(t, s, r.len);
            any = 1;
        } else if (events && r.kind == TFR_LOG_EVENT) {
            put(t, s, r.len);
        }
        at += size;
    }
    if (!events && !any)
        puts_(t, "\t\"<none>\" = 0,\n");
    return 0;
}

static char *metadata_of(const tfr_header *h, const unsigned char *log, const char *name)
{
    text t = {0};
    puts_(&t, tfr_tsdl_types);
    env(&t, h);
    clock_block(&t, h, name);
    puts_(&t, tfr_tsdl_clocked);
    puts_(&t, "typealias enum : uint16_t {\n");
    int bad = log_records(log, h->log_len, &t, 0, 0);
    puts_(&t, "} := tf_func16_t;\n\ntypealias enum : uint32_t {\n");
    log_records(log, h->log_len, &t, 1, 0);
    puts_(&t, "} := tf_func32_t;\n\n");
    puts_(&t, tfr_tsdl_stream);
    puts_(&t, tfr_tsdl_fixed_events);
    log_records(log, h->log_len, &t, 0, 1);
    if (bad)
        fprintf(stderr, "tf-dump: %s: the metadata log ends in a record cut short; read up to it\n", name);
    if (h->flags & TFR_LOG_INCOMPLETE)
        fprintf(stderr, "tf-dump: %s: the recorder could not write all its metadata (the disk was "
                "full?): events of the classes it lacks are skipped\n", name);
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    return t.p;
}

/* ---- the header ----------------------------------------------------------------- */

static uint64_t round_up(uint64_t n, uint64_t to)
{
    return (n + to - 1) / to * to;
}

/* NULL if the header holds together in an image of size bytes. */
static const char *header_bad(const tfr_header *h, size_t size)
{
    if (size < TFR_HEADER || memcmp(h->magic, TFR_MAGIC, 8) != 0)
        return "not a ring file of this version (no TFRINGS1 header)";
    if (h->version != TFR_VERSION || h->header_size != TFR_HEADER)
        return "a ring file of another version";
    if (h->psize < 1024 || h->psize > 65536 || (h->psize & (h->psize - 1)) || !h->nslots ||
        h->nslots > 1u << 24 || h->nrings != (h->nslots < TFR_MAX_RINGS ? h->nslots : TFR_MAX_RINGS))
        return "its packet size or count is not one the recorder makes";
    uint64_t rings = round_up(TFR_HEADER + (uint64_t)h->nslots * sizeof(tfr_slot), 64);
    uint64_t packets = round_up(rings + (uint64_t)h->nrings * sizeof(tfr_ring), 4096);
    if (h->slots_off != TFR_HEADER || h->rings_off != rings || h->packets_off != packets ||
        h->log_off != round_up(packets + (uint64_t)h->nslots * h->psize, 4096))
        return "its tables are not where its sizes put them";
    if (h->log_off > size || h->log_len > size - h->log_off)
        return "it is shorter than its header says (cut short?)";
    return NULL;
}

/* ---- the packets ---------------------------------------------------------------- */

typedef struct ref {
    uint32_t number, slot;
    uint64_t seq;
    size_t len;
} ref;

static int ref_order(const void *a, const void *b)
{
    const ref *x = a, *y = b;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Slot s's packet, if it holds events: its thread, seq and length. */
static int packet_of(const unsigned char *img, const tfr_header *h, uint32_t s, ref *out, const char *name)
{
    const tfr_slot *sl = (const tfr_slot *)(const void *)(img + h->slots_off) + s;
    if (!sl->ring)
        return 0;
    if (sl->ring > h->nrings || (sl->gen & 1)) {
        if (sl->gen & 1)
            fprintf(stderr, "tf-dump: %s: packet %u was being reused when the process stopped; "
                    "left out\n", name, s);
        return 0;
    }
    const tfr_ring *r = (const tfr_ring *)(const void *)(img + h->rings_off) + (sl->ring - 1);
    if (r->state != TFR_RING_LIVE && r->state != TFR_RING_ENDED)
        return 0;
    const unsigned char *pk = img + h->packets_off + (uint64_t)s * h->psize;
    uint64_t at = h->base + h->packets_off + (uint64_t)s * h->psize;
    size_t len = r->cur == s && r->pos >= at + TFR_P_HEADER && r->pos <= at + h->psize
                     ? (size_t)(r->pos - at) : tfr_get32(pk + TFR_P_CONTENT) / 8;
    if (len < TFR_P_HEADER || len > h->psize)
        return 0;
    *out = (ref){r->number, s, tfr_get64(pk + TFR_P_SEQ), len};
    return 1;
}

/* A copy of the packet, closed as the recorder closes one. */
static void copy_packet(unsigned char *to, const unsigned char *img, const tfr_header *h, const ref *f)
{
    const unsigned char *pk = img + h->packets_off + (uint64_t)f->slot * h->psize;
    const tfr_slot *sl = (const tfr_slot *)(const void *)(img + h->slots_off) + f->slot;
    const tfr_ring *r = (const tfr_ring *)(const void *)(img + h->rings_off) + (sl->ring - 1);
    memcpy(to, pk, f->len);
    if (r->cur == f->slot) {
        tfr_put64(to + TFR_P_TS_END, r->last);
        tfr_put32(to + TFR_P_CONTENT, (uint32_t)f->len * 8);
        tfr_put64(to + TFR_P_DISCARDED, r->discarded);
    }
    tfr_put32(to + TFR_P_SIZE, (uint32_t)f->len * 8);
    if (tfr_get64(to + TFR_P_TS_END) < tfr_get64(to + TFR_P_TS_BEGIN))
        tfr_put64(to + TFR_P_TS_END, tfr_get64(to + TFR_P_TS_BEGIN));
}

/* Rings that were writing an event when the process stopped: it is left out. */
static void say_torn(const unsigned char *img, const tfr_header *h, const char *name)
{
    const tfr_ring *rings = (const tfr_ring *)(const void *)(img + h->rings_off);
    for (uint32_t i = 0; i < h->nrings; i++)
        if (rings[i].state == TFR_RING_LIVE && rings[i].busy)
            fprintf(stderr, "tf-dump: %s: thread-%u was writing an event when the process stopped; "
                    "that event is left out\n", name, rings[i].number);
}

static int add_threads(td_trace *t, const unsigned char *img, const tfr_header *h, const char *name)
{
    ref *refs = malloc((size_t)h->nslots * sizeof *refs);
    uint32_t n = 0;
    for (uint32_t s = 0; refs && s < h->nslots; s++)
        n += (uint32_t)packet_of(img, h, s, &refs[n], name);
    if (!refs)
        return -1;
    qsort(refs, n, sizeof *refs, ref_order);
    int rc = 0;
    for (uint32_t i = 0, j; i < n && rc == 0; i = j) {
        size_t bytes = 0;
        for (j = i; j < n && refs[j].number == refs[i].number; j++)
            bytes += refs[j].len;
        unsigned char *buf = malloc(bytes), *at = buf;
        char *stream = NULL;
        for (uint32_t k = i; buf && k < j; k++) {
            copy_packet(at, img, h, &refs[k]);
            at += refs[k].len;
        }
        if (!buf || asprintf(&stream, "%s:thread-%u", name, refs[i].number) < 0)
            rc = -1;
        else
            rc = td_trace_add(t, stream, buf, bytes, 0);
        free(stream);
    }
    free(refs);
    return rc;
}

td_trace *td_rings_read(const char *name, const unsigned char *img, size_t size)
{
    const tfr_header *h = (const tfr_header *)(const void *)img;
    const char *bad = header_bad(h, size);
    if (bad) {
        fprintf(stderr, "tf-dump: %s: %s\n", name, bad);
        return NULL;
    }
    char *meta = metadata_of(h, img + h->log_off, name);
    td_trace *t = meta ? td_trace_new(name, meta, strlen(meta)) : NULL;
    free(meta);
    if (!t)
        return NULL;
    say_torn(img, h, name);
    if (add_threads(t, img, h, name) != 0) {
        fprintf(stderr, "tf-dump: %s: out of memory\n", name);
        td_trace_free(t);
        return NULL;
    }
    return t;
}

td_trace *td_rings_open(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "tf-dump: %s: %m\n", path);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    void *img = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (img == MAP_FAILED) {
        fprintf(stderr, "tf-dump: %s: not a ring file (empty, or cannot be mapped)\n", path);
        return NULL;
    }
    td_trace *t = td_rings_read(path, img, size);
    munmap(img, size);
    return t;
}

int td_rings_name(const char *base)
{
    return strncmp(base, ".rings-", 7) == 0;
}
