/*
 * dump.h: what tf-dump's parts share. read.c turns a CTF trace (a TF
 * recording, or an LTTng session with tf:* events) into td_events in time
 * order; each output module (out_*.c) consumes them. docs/design.md .rec.reader.
 */
#ifndef TF_DUMP_H
#define TF_DUMP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <tf/types.h>

/* TD_COUNTERS, the watchdog's resource samples, and TD_BUDGET, the overhead
 * budget's decisions, go to td_output.counters only. */
typedef enum td_kind { TD_ENTER, TD_EXIT, TD_INFO, TD_EXCEPTION, TD_SIGNAL, TD_COUNTERS, TD_BUDGET } td_kind;

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
    const char *info_tp;    /* TD_INFO: "none", "enter" or "exit" (NULL: not recorded) */
    /* TD_SIGNAL: the signal that ended the process, on the thread that took
     * it (func is ""): its name, si_code, and the fault address when the
     * signal was a fault (has_addr). */
    const char *sig_name;
    int64_t sig_code;
    uint64_t sig_addr;
    int sig_has_addr;
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
/* The same with options: core (with executable): the rings in a core dump
 * instead of path (core.c); reader: TF's CTF traces read by tf-dump's own
 * reader and, if it cannot, by babeltrace2 (AUTO), by the first only (TF:
 * its refusal is an error), or by babeltrace2 only (the tests' oracle). */
typedef struct td_read_options {
    const char *core, *executable;
    int reader; /* TD_READER_* */
} td_read_options;
enum { TD_READER_AUTO, TD_READER_TF, TD_READER_BABELTRACE2 };
int td_read_with(const char *path, td_output *out, const td_read_options *o);
/* Seconds babeltrace2 may read no event before tf-dump stops it and reads
 * the trace as damaged (read.c's probe). */
extern unsigned td_probe_stall_s;
/* The same for several paths at once: one time order over all their traces
 * (a recording and its forked children's, several processes); o as above. */
int td_read_paths(const char *const *paths, int n, td_output *out, const td_read_options *o);

/* Output modules; each writes to out (and may name a file for errors). */
td_output *td_text_new(FILE *out);
td_output *td_chrome_new(FILE *out);
td_output *td_report_new(FILE *out, const char *path);
/* suggest.c: rules-file exclude lines for the functions a timing report in
 * JSON flags at the overhead floor with at least min_calls calls; 0 or 1
 * (an error said on stderr). */
int td_suggest_rules(const char *report_json, FILE *out, uint64_t min_calls);
td_output *td_flame_new(FILE *out);
/* The same, its title saying which threads it shows ("all threads"). */
td_output *td_flame_for(FILE *out, const char *threads);
/* out_replay.c: uftrace-replay lines; times since *origin (the first event's
 * time, set before the first event comes), or absolute when it is NULL. */
td_output *td_replay_new(FILE *out, const int64_t *origin);
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
