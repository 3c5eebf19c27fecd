/*
 * dump.h: what tf-dump's parts share. read.c turns a CTF trace (a TF
 * recording, or an LTTng session with tf:* events) into td_events in time
 * order; each output module (out_*.c) consumes them. DESIGN.md section 9.
 */
#ifndef TF_DUMP_H
#define TF_DUMP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <tf/types.h>

typedef enum td_kind { TD_ENTER, TD_EXIT, TD_INFO, TD_EXCEPTION } td_kind;

/* Valid only during the call it is passed to. */
typedef struct td_event {
    td_kind kind;
    int64_t ns;             /* since the clock's origin (the epoch with an offset) */
    int64_t pid, tid;       /* -1: not in the trace */
    const char *thread;     /* the thread's name, "?" if unknown */
    const char *func;       /* "<tu>.<name>" */
    const char *info;       /* TD_INFO: the info function's name */
    const tf_value *args;   /* typed values (a TF recording) */
    uint32_t nargs;
    const char *args_text;  /* already formatted (LTTng), or NULL */
    const tf_value *result; /* TD_EXIT: NULL when void or after an exception */
    const char *result_text;
    const char *exc_kind;   /* TD_EXCEPTION: throw, unwind, noreturn */
    const char *exc_type;   /* ... and what dprint prints after :throw: */
} td_event;

typedef struct td_output {
    void *self;
    int (*event)(void *self, const td_event *e); /* nonzero: stop, a write failed */
    int (*finish)(void *self);                   /* also after damage; nonzero: failed */
    /* tf:counters, the watchdog's resource samples: e->args are the counters
     * by name (unsigned), func is "counters"; and tf:budget, a decision of
     * the overhead budget: func is "budget", e->args its fields (numbers,
     * then the function and the action as strings). NULL: the output shows
     * neither. */
    int (*counters)(void *self, const td_event *e);
} td_output;

/* Reads every trace under path (a trace directory or a tree holding several,
 * as LTTng writes) into out. Damage is reported on stderr, naming the file
 * and offset, after the events before it went to out. 0, or 1 on any error. */
int td_read(const char *path, td_output *out);

/* Output modules; each writes to out (and may name a file for errors). */
td_output *td_text_new(FILE *out);
td_output *td_chrome_new(FILE *out);
td_output *td_report_new(FILE *out, const char *path);
/* suggest.c: rules-file exclude lines for the functions a timing report in
 * JSON flags at the overhead floor with at least min_calls calls; 0 or 1
 * (an error said on stderr). */
int td_suggest_rules(const char *report_json, FILE *out, uint64_t min_calls);
td_output *td_flame_new(FILE *out);
/* Feeds every event to each of n outputs. */
td_output *td_tee_new(td_output **outs, int n);

/* The function's name without its "<tu>." (func as given when it has none). */
const char *td_short_name(const char *func);

/* Room for one more element in the array *items (n used of *cap, each size
 * bytes), doubling from first: 0 when out of memory, the array kept. */
static inline int td_grow(void *items, uint32_t *cap, uint32_t n, size_t size, uint32_t first)
{
    if (n < *cap)
        return 1;
    uint32_t c = *cap ? 2 * *cap : first;
    void *p = realloc(*(void **)items, (size_t)c * size);
    if (!p)
        return 0;
    *(void **)items = p;
    *cap = c;
    return 1;
}
#endif
