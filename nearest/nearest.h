/*
 * nearest.h: "did you mean 'work'?", the one helper every TF message uses
 * when a name matches nothing (docs/design.md .silent.nearest): libtf, the
 * tools and, through plugin-core, both plugins compile this one file.
 *
 *   tf_nearest n;
 *   tf_nearest_begin(&n, "wrok");
 *   for each existing name: tf_nearest_offer(&n, name);
 *   char hint[256];
 *   tf_nearest_say(&n, hint, sizeof hint);   // "did you mean 'work'?" or ""
 *   tf_nearest_end(&n);
 *
 * Names are compared by their edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours, letter case ignored); the
 * closest ones within a limit that grows with the name's length are kept,
 * at most TF_NEAREST_KEEP of them, alphabetically. Nothing here is called
 * from a hook: it allocates.
 */
#ifndef TF_NEAREST_H
#define TF_NEAREST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TF_NEAREST_KEEP 3

typedef struct tf_nearest {
    char *want;                     /* the name that matched nothing (a copy) */
    unsigned limit;                 /* the largest distance worth suggesting */
    unsigned best;                  /* the distance of what is kept */
    int n;                          /* names kept */
    char *names[TF_NEAREST_KEEP];   /* copies, sorted, each once */
} tf_nearest;

void tf_nearest_begin(tf_nearest *n, const char *want);
/* Considers one existing name (NULL and the wanted name itself are ignored). */
void tf_nearest_offer(tf_nearest *n, const char *name);
/* Writes "did you mean 'a'?", "... 'a' or 'b'?", "... 'a', 'b' or 'c'?" to
 * out, or "" when no name was near; returns the length written. */
size_t tf_nearest_say(const tf_nearest *n, char *out, size_t len);
/* The same with other quotes around each name (GCC's locale quotes). */
size_t tf_nearest_say_quoted(const tf_nearest *n, char *out, size_t len, const char *open,
                             const char *close);
void tf_nearest_end(tf_nearest *n);

/* The edit distance of a and b as above, or limit + 1 as soon as it must
 * exceed limit. */
unsigned tf_nearest_distance(const char *a, const char *b, unsigned limit);

#ifdef __cplusplus
}
#endif

#endif
