/* index.c: the word -> count table (group index). The table doubles when
 * half full; the rehash is bracketed by a TF_TP_ENTER/TF_TP_EXIT info pair,
 * so it is a timing point of its own ("rehash") inside index_add. */
#include <stdlib.h>
#include <string.h>

#include "wc.h"

TF_INFO(TF_TP_ENTER) TF_TRACING_NAME("rehash") static void rehash_begin(size_t cap) {}
TF_INFO(TF_TP_EXIT) TF_TRACING_NAME("rehash") static void rehash_end(size_t cap) {}

/* A weak hash (only the length and the first two letters count, so the words
 * sharing them collide) and a good one (FNV-1a over the whole word). */
static uint64_t hash(enum hash_kind kind, const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull ^ len;
    size_t n = kind == HASH_PREFIX && len > 2 ? 2 : len;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

void index_init(struct index *ix, enum hash_kind kind)
{
    ix->cap = 1024;
    ix->used = 0;
    ix->hash = kind;
    ix->slots = calloc(ix->cap, sizeof *ix->slots);
}

static struct entry *slot_for(struct entry *slots, size_t cap, enum hash_kind kind,
                              const char *word, size_t len)
{
    size_t i = (size_t)hash(kind, word, len) & (cap - 1);
    while (slots[i].word && (strlen(slots[i].word) != len || memcmp(slots[i].word, word, len) != 0))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

TF_MONITOR(index) void index_add(struct index *ix, const char *word, size_t len)
{
    if (2 * (ix->used + 1) > ix->cap) {
        rehash_begin(ix->cap);
        size_t cap = 2 * ix->cap;
        struct entry *slots = calloc(cap, sizeof *slots);
        for (size_t i = 0; slots && i < ix->cap; i++)
            if (ix->slots[i].word)
                *slot_for(slots, cap, ix->hash, ix->slots[i].word, strlen(ix->slots[i].word)) =
                    ix->slots[i];
        if (slots) {
            free(ix->slots);
            ix->slots = slots;
            ix->cap = cap;
        }
        rehash_end(ix->cap);
    }
    struct entry *e = slot_for(ix->slots, ix->cap, ix->hash, word, len);
    if (!e->word) {
        e->word = strndup(word, len);
        ix->used++;
    }
    e->count++;
}

void index_free(struct index *ix)
{
    for (size_t i = 0; i < ix->cap; i++)
        free(ix->slots[i].word);
    free(ix->slots);
}
