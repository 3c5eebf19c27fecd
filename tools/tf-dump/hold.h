/* hold.h: a copy of an event that outlives the call it came with (hold.c),
 * for the stages that must wait before they know what to do with it. */
#ifndef TF_DUMP_HOLD_H
#define TF_DUMP_HOLD_H

#include "dump.h"

typedef struct td_held td_held;

/* A deep copy of e (strings, values and what they point to), freed with
 * free(); NULL when out of memory. */
td_held *td_hold(const td_event *e);
const td_event *td_held_event(const td_held *h);

#endif
