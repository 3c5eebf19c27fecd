/*
 * meta.h: the CTF metadata of a TF recording, parsed by tf-dump itself
 * (meta.c): the subset of TSDL the recorder writes (runtime/record/tsdl.h,
 * classes.c). A metadata file outside it (an LTTng trace, a mutated one) is
 * refused with the reason, and tf-dump reads that trace with babeltrace2.
 * Everything is looked up by index (classes by id, labels by value when
 * dense): reading is linear in events, whatever the number of functions.
 */
#ifndef TF_DUMP_META_H
#define TF_DUMP_META_H

#include <stddef.h>
#include <stdint.h>

#include "dump.h"

enum { TT_INT, TT_ENUM, TT_FLOAT, TT_STRING, TT_STRUCT, TT_ARRAY };

typedef struct tt_map {
    int64_t lo, hi;
    const char *label;
} tt_map;

typedef struct tt_type tt_type;
typedef struct tt_member {
    const char *name; /* without CTF 1.8's one leading underscore */
    const tt_type *type;
} tt_member;

struct tt_type {
    uint8_t kind;
    uint8_t bytes;     /* INT, ENUM (its container), FLOAT: 1, 2, 4, 8 */
    uint8_t is_signed;
    uint8_t hex;       /* INT: base 16 */
    uint32_t n;        /* STRUCT: members; ENUM: maps; ARRAY: length */
    const tt_member *members;
    const tt_map *maps;     /* sorted by lo */
    const char **dense;     /* ENUM: labels by value when values are 0..n-1 */
    uint32_t ndense;
    const tt_type *elem;    /* ARRAY */
};

typedef struct tt_class {
    const char *name;  /* "tf:enter" ... */
    int kind;          /* td_kind, or -1: not a tf:* event */
    const tt_type *fields;
} tt_class;

typedef struct td_meta {
    uint64_t freq;       /* the clock */
    int64_t offset_s;
    uint64_t offset;
    int64_t pid;         /* env.vpid, -1 if none */
    const char *procname;
    tt_class **classes;  /* by id */
    uint32_t nclasses;
    uint64_t lost[16], dropped[16]; /* env.tf_lost_*, tf_dropped_* (names in layout.h) */
    int have_counts;
    const char *recording; /* env.tf_recording */
    int stream;            /* env.tf_mode is "stream": every packet was meant to be written */
    struct td_arena *arena;
} td_meta;

/* Parses text[0, len) into *m; 0, or -1 with the reason in why (which
 * names the line). Every allocation is m's (td_meta_free). */
int td_meta_parse(td_meta *m, const char *text, size_t len, char *why, size_t whylen);
void td_meta_free(td_meta *m);
/* The label of value v of an enumeration, NULL if none. */
const char *td_meta_label(const tt_type *t, int64_t v);

#endif
