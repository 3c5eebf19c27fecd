/*
 * wc.h: a small word-frequency counter, instrumented with TF timing groups.
 *
 *   wc                      everything below
 *   ├── io                  reading files (and writing the demo corpus)
 *   ├── parse               splitting a file into lines and lines into words
 *   │   └── tokenize        one line into words
 *   ├── index               the word -> count hash table
 *   └── report              sorting and printing the most frequent words
 */
#ifndef WC_H
#define WC_H

#include <stddef.h>
#include <stdint.h>

#include <tf/tf.h>

TF_GROUP(io);
TF_GROUP(tokenize);
TF_GROUP(parse, tokenize);
TF_GROUP(index);
TF_GROUP(report);
TF_GROUP(wc, io, parse, index, report);

/* io.c */
char *read_file(const char *path, size_t *len);
int write_corpus(const char *path, size_t bytes, unsigned seed);

/* index.c: word -> count, open addressing. */
enum hash_kind { HASH_PREFIX, HASH_FNV };
struct entry {
    char *word;
    uint64_t count;
};
struct index {
    struct entry *slots;
    size_t cap, used;
    enum hash_kind hash;
};
void index_init(struct index *ix, enum hash_kind hash);
void index_add(struct index *ix, const char *word, size_t len);
void index_free(struct index *ix);

/* text.c */
size_t parse_text(const char *text, size_t len, struct index *ix);

/* report.c */
void print_top(const struct index *ix, size_t n);

#endif
