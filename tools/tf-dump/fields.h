/*
 * fields.h: one babeltrace2 event's fields as a td_event (fields.c).
 */
#ifndef TF_DUMP_FIELDS_H
#define TF_DUMP_FIELDS_H

#include <babeltrace2/babeltrace.h>

#include "dump.h"

/* What one captured value's tree and image take (captured.c); freed together. */
typedef struct td_captured {
    void *blocks;
} td_captured;

typedef struct td_slot {   /* one value and what its formatting needs */
    tf_value v;
    td_captured cap;           /* a captured value's tree and image */
    tf_enum_type type;
    tf_enumerator item;
    char code[24];             /* COMPLEX, VECTOR: the element code */
    _Alignas(16) unsigned char bytes[256]; /* INT128, COMPLEX, VECTOR: v.p (the recorder's RC_VECTOR_MAX) */
} td_slot;

typedef struct td_fields {
    td_event e;
    td_slot *args;         /* e.args points into a copy made at the end */
    tf_value *values;
    uint32_t cap;
    td_slot result;
    int lttng;             /* args and result are text */
    char func_num[24], tid_text[24];
} td_fields;

void td_fields_init(td_fields *f, td_kind kind);
void td_fields_of_event(td_fields *f, const bt_event *ev);
void td_fields_free(td_fields *f);

/* For captured.c: a field's value as a slot, and the value with its
 * pointers into the slot; a variant's or option's content; an
 * enumeration's first label; whether a structure is one the recorder
 * writes for a plain value (__int128, complex, vector, unknown, by-value
 * struct) rather than a captured one. */
void td_value_of(td_slot *s, const bt_field *fld, const char *name);
tf_value td_slot_value(td_slot *s);
const bt_field *td_selected(const bt_field *fld);
const char *td_enum_label(const bt_field *fld);
int td_recorded_struct(const bt_field *fld);

#endif
