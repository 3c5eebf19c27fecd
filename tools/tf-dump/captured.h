/*
 * captured.h: captured values in a recording, rebuilt for libtf's
 * formatter (captured.c).
 */
#ifndef TF_DUMP_CAPTURED_H
#define TF_DUMP_CAPTURED_H

#include <babeltrace2/babeltrace.h>

#include "fields.h"

/* Whether a payload field is a captured value the recorder wrote (a
 * structure of fields, an array, or "<unreadable>"). */
int td_captured_field(const bt_field *f);
/* *v becomes the captured value f, named name, as a monitor got it; 0 or -1. */
int td_captured_of(td_captured *c, tf_value *v, const bt_field *f, const char *name);
void td_captured_free(td_captured *c);

#endif
