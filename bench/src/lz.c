/*
 * lz: the realistic workload. A small LZ77 compressor with a hash table, its
 * decompressor, an input generator and checksums: many small functions called
 * per byte or per token (hashing, match extension, varints, literal copies)
 * and a few large ones (the compress and decompress loops). Every function is
 * monitored, as a program instrumented throughout would be.
 *
 *   lz KB REPS THREADS   each thread generates KB KiB of text, then REPS times
 *                        compresses, decompresses and checks it;
 *                        units = REPS (per thread)
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

#define HASH_BITS 14
#define MIN_MATCH 4
#define MAX_OFFSET 65535

struct buf {
    uint8_t *p;
    size_t len, cap;
};

struct job {
    size_t size;
    long reps;
    uint32_t seed;
    uint32_t crc;       /* of the compressed stream */
    size_t packed;      /* its length */
    int ok;
};

static const char *const words[] = {
    "the", "of", "and", "a", "to", "in", "is", "you", "that", "it", "he", "was",
    "for", "on", "are", "as", "with", "his", "they", "at", "be", "this", "have",
    "from", "or", "one", "had", "by", "word", "but", "not", "what", "all", "were",
    "monitor", "group", "tracing", "facility", "compiler", "plugin", "runtime",
    "function", "argument", "exception", "timing", "point", "holder", "registry",
};

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

MON static uint32_t rng_next(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

MON static const char *pick_word(uint32_t *state)
{
    uint32_t r = rng_next(state);
    /* Zipf-like: small indices far more often, so the text repeats. */
    uint32_t n = sizeof words / sizeof *words;
    return words[r % 7 == 0 ? r % n : r % 4];
}

MON static void buf_put(struct buf *b, uint8_t c)
{
    if (b->len < b->cap)
        b->p[b->len] = c;
    b->len++;
}

MON static void buf_append(struct buf *b, const char *s)
{
    while (*s)
        buf_put(b, (uint8_t)*s++);
}

MON static void gen_text(struct buf *b, size_t size, uint32_t seed)
{
    uint32_t st = seed;
    while (b->len < size) {
        buf_append(b, pick_word(&st));
        buf_put(b, rng_next(&st) % 11 == 0 ? '\n' : ' ');
    }
    b->len = size;
}

MON static uint32_t read32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

MON static uint32_t hash4(const uint8_t *p)
{
    return (read32(p) * 2654435761u) >> (32 - HASH_BITS);
}

MON static size_t match_len(const uint8_t *a, const uint8_t *b, const uint8_t *end)
{
    const uint8_t *start = b;
    while (b < end && *a == *b) {
        a++;
        b++;
    }
    return (size_t)(b - start);
}

MON static void put_varint(struct buf *out, size_t v)
{
    while (v >= 0x80) {
        buf_put(out, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    buf_put(out, (uint8_t)v);
}

MON static size_t get_varint(const uint8_t **p, const uint8_t *end)
{
    size_t v = 0;
    int shift = 0;
    while (*p < end) {
        uint8_t c = *(*p)++;
        v |= (size_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            break;
        shift += 7;
    }
    return v;
}

/* Token: varint(literal count) literals varint(match length) varint(offset);
 * a match length of 0 ends the stream. */
MON static void emit_literals(struct buf *out, const uint8_t *lit, size_t n)
{
    put_varint(out, n);
    for (size_t i = 0; i < n; i++)
        buf_put(out, lit[i]);
}

MON static void emit_match(struct buf *out, size_t len, size_t offset)
{
    put_varint(out, len);
    put_varint(out, offset);
}

MON static void compress(const uint8_t *in, size_t n, struct buf *out, uint32_t *table)
{
    memset(table, 0, sizeof(uint32_t) << HASH_BITS);
    size_t i = 0, lit = 0;
    while (i + MIN_MATCH <= n) {
        uint32_t h = hash4(in + i);
        size_t cand = table[h];
        table[h] = (uint32_t)i + 1;
        size_t len = 0;
        if (cand && i - (cand - 1) <= MAX_OFFSET && read32(in + cand - 1) == read32(in + i))
            len = match_len(in + cand - 1, in + i, in + n);
        if (len >= MIN_MATCH) {
            emit_literals(out, in + lit, i - lit);
            emit_match(out, len, i - (cand - 1));
            i += len;
            lit = i;
        } else {
            i++;
        }
    }
    emit_literals(out, in + lit, n - lit);
    emit_match(out, 0, 0);
}

MON static int copy_match(struct buf *out, size_t len, size_t offset)
{
    if (offset == 0 || offset > out->len || out->len + len > out->cap)
        return -1;
    uint8_t *dst = out->p + out->len, *src = dst - offset;
    for (size_t i = 0; i < len; i++)
        dst[i] = src[i];
    out->len += len;
    return 0;
}

MON static int decompress(const uint8_t *in, size_t n, struct buf *out)
{
    const uint8_t *p = in, *end = in + n;
    for (;;) {
        size_t lit = get_varint(&p, end);
        if (lit > (size_t)(end - p) || out->len + lit > out->cap)
            return -1;
        memcpy(out->p + out->len, p, lit);
        out->len += lit;
        p += lit;
        size_t len = get_varint(&p, end);
        size_t offset = get_varint(&p, end);
        if (len == 0)
            return p == end ? 0 : -1;
        if (copy_match(out, len, offset) != 0)
            return -1;
    }
}

MON static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

MON static uint32_t crc_byte(uint32_t crc, uint8_t b)
{
    return crc_table[(crc ^ b) & 0xff] ^ (crc >> 8);
}

MON static uint32_t crc32(const uint8_t *p, size_t n)
{
    pthread_once(&crc_once, crc_init);
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++)
        crc = crc_byte(crc, p[i]);
    return ~crc;
}

MON static void *worker(void *arg)
{
    struct job *j = arg;
    struct buf text = {malloc(j->size), 0, j->size};
    size_t cap = j->size + j->size / 2 + 64;
    struct buf packed = {malloc(cap), 0, cap}, back = {malloc(j->size), 0, j->size};
    uint32_t *table = malloc(sizeof(uint32_t) << HASH_BITS);
    gen_text(&text, j->size, j->seed);
    j->ok = 1;
    for (long r = 0; r < j->reps; r++) {
        packed.len = back.len = 0;
        compress(text.p, text.len, &packed, table);
        j->ok &= packed.len <= packed.cap && decompress(packed.p, packed.len, &back) == 0 &&
                 back.len == text.len && memcmp(back.p, text.p, text.len) == 0;
        j->crc = crc32(packed.p, packed.len);
        j->packed = packed.len;
    }
    free(text.p);
    free(packed.p);
    free(back.p);
    free(table);
    return NULL;
}

MON int main(int argc, char **argv)
{
    long kb = bench_arg(argc, argv, 1, 256), reps = bench_arg(argc, argv, 2, 1);
    long nthreads = bench_arg(argc, argv, 3, 1);
    if (nthreads < 1 || nthreads > 64 || kb < 1 || reps < 1)
        return 2;
    struct job jobs[64];
    pthread_t tids[64];
    struct bench_timer t0 = bench_start();
    for (long t = 0; t < nthreads; t++) {
        jobs[t] = (struct job){(size_t)kb * 1024, reps, 12345u, 0, 0, 0};
        if (pthread_create(&tids[t], NULL, worker, &jobs[t]) != 0)
            return 3;
    }
    for (long t = 0; t < nthreads; t++)
        pthread_join(tids[t], NULL);
    bench_report(reps, t0);
    int same = 1;
    for (long t = 1; t < nthreads; t++)
        same &= jobs[t].crc == jobs[0].crc && jobs[t].packed == jobs[0].packed;
    printf("lz %ld KiB -> %zu bytes, crc %08x, round trip %s\n", kb, jobs[0].packed,
           (unsigned)jobs[0].crc, jobs[0].ok && same ? "ok" : "FAILED");
    return jobs[0].ok && same ? 0 : 1;
}
