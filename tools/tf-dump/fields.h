/*
 * fields.h: one babeltrace2 event's fields as a td_event (fields.c).
 */
#ifndef TF_DUMP_FIELDS_H
#define TF_DUMP_FIELDS_H

#include <babeltrace2/babeltrace.h>

#include "dump.h"

typedef struct td_slot {   /* one value and what its formatting needs */
    tf_value v;
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

#endif
