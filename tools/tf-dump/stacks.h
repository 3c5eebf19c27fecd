/*
 * stacks.h: each recorded thread's stack of open calls, for the outputs that
 * pair enters with exits (chrome, flamegraph). A recording may start inside
 * calls (a ring keeps the last events: exits without their enter, which are
 * skipped and counted) and end inside them (closed at the thread's last
 * event); an exit below the top closes the frames above it at the same time
 * (a longjmp or an exception skipped their exits).
 */
#ifndef TF_DUMP_STACKS_H
#define TF_DUMP_STACKS_H

#include "dump.h"

typedef struct td_frame {
    char *func;
    int64_t start;
    void *node;            /* the output's own data */
} td_frame;

typedef struct td_thread {
    int64_t pid, tid;
    char *name;
    td_frame *stack;
    uint32_t depth, cap;
    int64_t last;          /* time of its latest event */
    uint32_t index;        /* order of first appearance */
} td_thread;

typedef struct td_threads {
    td_thread **all;
    uint32_t n, cap;
    uint64_t unmatched;    /* exits without an enter in the recording */
} td_threads;

/* The event's thread (made at its first event); NULL when out of memory. */
td_thread *td_thread_of(td_threads *ts, const td_event *e);
/* Pushes func; NULL when out of memory. */
td_frame *td_push(td_thread *t, const char *func, int64_t start);
/* Depth of the innermost open frame of func + 1, or 0 if none is open. */
uint32_t td_find(const td_thread *t, const char *func);
/* Pops the top frame (its func is freed by the caller: returned). */
td_frame td_pop(td_thread *t);
void td_threads_free(td_threads *ts);
/* Says on stderr what the pairing could not match. */
void td_threads_note(const td_threads *ts, const char *what);

#endif
