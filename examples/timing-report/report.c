/* report.c: the most frequent words (group report). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wc.h"

static int by_count(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->word, y->word);
}

TF_MONITOR(report) static struct entry *sorted_entries(const struct index *ix)
{
    struct entry *v = malloc((ix->used ? ix->used : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < ix->cap; i++)
        if (ix->slots[i].word)
            v[n++] = ix->slots[i];
    if (v)
        qsort(v, n, sizeof *v, by_count);
    return v;
}

TF_MONITOR(report) void print_top(const struct index *ix, size_t n)
{
    struct entry *v = sorted_entries(ix);
    if (!v)
        return;
    printf("%zu distinct words; the %zu most frequent:\n", ix->used, n);
    for (size_t i = 0; i < n && i < ix->used; i++)
        printf("  %-12s %8llu\n", v[i].word, (unsigned long long)v[i].count);
    free(v);
}
