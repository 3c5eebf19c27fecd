/*
 * nearest.c: see nearest.h. The distance is the optimal string alignment
 * distance (Damerau-Levenshtein without moving a letter twice): "wrok" is
 * one swap from "work", "dprnt" one deletion from "dprint".
 */
#include "nearest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
    unsigned m = a < b ? a : b;
    return m < c ? m : c;
}

/* Three rows of the dynamic programme: two back for a swap, one back, this. */
unsigned tf_nearest_distance(const char *a, const char *b, unsigned limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if ((la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    unsigned *rows = malloc(3 * (lb + 1) * sizeof *rows);
    if (!rows)
        return limit + 1; /* no suggestion rather than a wrong one */
    unsigned *back2 = rows, *back = rows + lb + 1, *cur = rows + 2 * (lb + 1);
    for (size_t j = 0; j <= lb; j++)
        back[j] = (unsigned)j;
    unsigned result = 0;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (unsigned)i;
        unsigned row_min = cur[0];
        for (size_t j = 1; j <= lb; j++) {
            unsigned cost = lower(a[i - 1]) != lower(b[j - 1]);
            cur[j] = min3(back[j] + 1, cur[j - 1] + 1, back[j - 1] + cost);
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
                lower(a[i - 2]) == lower(b[j - 1]) && back2[j - 2] + 1 < cur[j])
                cur[j] = back2[j - 2] + 1;
            if (cur[j] < row_min)
                row_min = cur[j];
        }
        if (row_min > limit) { /* every later row is at least this */
            free(rows);
            return limit + 1;
        }
        unsigned *t = back2;
        back2 = back;
        back = cur;
        cur = t;
    }
    result = back[lb];
    free(rows);
    return result > limit ? limit + 1 : result;
}

/* One letter can be any letter; longer names may differ more. */
static unsigned limit_for(size_t len)
{
    return len <= 1 ? 0 : len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

void tf_nearest_begin(tf_nearest *n, const char *want)
{
    memset(n, 0, sizeof *n);
    n->want = strdup(want ? want : "");
    n->limit = limit_for(want ? strlen(want) : 0);
    n->best = n->limit + 1;
}

static void drop_all(tf_nearest *n)
{
    for (int i = 0; i < n->n; i++)
        free(n->names[i]);
    n->n = 0;
}

/* Keeps name among the best (sorted, each once, at most TF_NEAREST_KEEP). */
static void keep(tf_nearest *n, const char *name)
{
    int at = 0;
    while (at < n->n && strcmp(n->names[at], name) < 0)
        at++;
    if ((at < n->n && strcmp(n->names[at], name) == 0) || at == TF_NEAREST_KEEP)
        return;
    char *copy = strdup(name);
    if (!copy)
        return;
    if (n->n == TF_NEAREST_KEEP)
        free(n->names[--n->n]);
    memmove(n->names + at + 1, n->names + at, (size_t)(n->n - at) * sizeof *n->names);
    n->names[at] = copy;
    n->n++;
}

void tf_nearest_offer(tf_nearest *n, const char *name)
{
    if (!name || !n->want || strcmp(name, n->want) == 0)
        return;
    unsigned d = tf_nearest_distance(n->want, name, n->limit);
    if (d > n->limit || d > n->best)
        return;
    if (d < n->best) {
        drop_all(n);
        n->best = d;
    }
    keep(n, name);
}

size_t tf_nearest_say_quoted(const tf_nearest *n, char *out, size_t len, const char *open,
                             const char *close)
{
    size_t at = 0;
    if (len)
        out[0] = 0;
    for (int i = 0; i < n->n && at < len; i++) {
        const char *before = i == 0 ? "did you mean " : i == n->n - 1 ? " or " : ", ";
        int w = snprintf(out + at, len - at, "%s%s%s%s%s", before, open, n->names[i], close,
                         i == n->n - 1 ? "?" : "");
        at += w > 0 ? (size_t)w : 0;
    }
    return at < len ? at : len ? len - 1 : 0;
}

size_t tf_nearest_say(const tf_nearest *n, char *out, size_t len)
{
    return tf_nearest_say_quoted(n, out, len, "'", "'");
}

void tf_nearest_end(tf_nearest *n)
{
    drop_all(n);
    free(n->want);
    n->want = NULL;
}
