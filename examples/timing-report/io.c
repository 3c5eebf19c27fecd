/* io.c: reading input files and writing the demo corpus (group io). */
#include <stdio.h>
#include <stdlib.h>

#include "wc.h"

TF_MONITOR(io) char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, 2 * cap + 1);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}

/* A deterministic text where a few words are very common and most are rare
 * (rank r has weight ~ log(60000 / r)), each rank always spelt the same. */
TF_MONITOR(io) int write_corpus(const char *path, size_t bytes, unsigned seed)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    static const char letters[] = "etaoinshrdlcumwfgypbvkjxqz";
    size_t written = 0;
    uint64_t x = seed ? seed : 1;
    int col = 0;
    while (written < bytes) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t rank = (x >> 20) % (1 + x % 60000); /* small ranks common, as in prose */
        char word[16];
        uint64_t h = (rank + 1) * 0x9e3779b97f4a7c15ull; /* the same spelling for a rank */
        int n = 2 + (int)(h >> 61);
        for (int i = 0; i < n; i++, h = h * 6364136223846793005ull + 1442695040888963407ull)
            word[i] = letters[(h >> 33) % 26];
        if (x % 7 == 0)
            word[0] = (char)(word[0] - 'a' + 'A');
        word[n] = 0;
        col += n + 1;
        written += (size_t)fprintf(f, "%s%s", word, col > 70 ? (col = 0, ".\n") : " ");
    }
    return fclose(f);
}
