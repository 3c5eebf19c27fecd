/*
 * filter.h: the filters every output takes (filter.c, docs/design.md
 * .ask.filter): --thread, --function, --from/--to, --depth, --min-duration.
 * They select whole calls, so every output sees enters and exits that pair
 * up, and an info call or exception goes with the call it happened in.
 */
#ifndef TF_DUMP_FILTER_H
#define TF_DUMP_FILTER_H

#include "dump.h"

typedef struct td_when {   /* a --from or --to bound */
    int64_t ns;
    int relative;          /* since the first event; else since the clock's origin */
    const char *text;      /* as given; NULL: not set */
} td_when;

typedef struct td_filter_opts {
    const char **threads;  /* --thread values: a tid, or a glob on the thread's name */
    uint32_t nthreads, cthreads;
    const char **functions; /* --function globs, on "<tu>.<name>" or on the name */
    uint32_t nfunctions, cfunctions;
    td_when from, to;
    uint32_t depth;        /* --depth: calls this many levels deep at most; 0: any */
    int64_t min_dur;       /* --min-duration in ns; 0: any */
} td_filter_opts;

/* Takes arg if it is a filter option: 1 taken, 0 not a filter option, 2 a
 * bad value (said on stderr, naming it). */
int td_filter_option(td_filter_opts *o, const char *arg);
/* 1 if any filter is set. */
int td_filter_any(const td_filter_opts *o);
/* 0, or 2 when the options contradict each other (said on stderr). */
int td_filter_check(const td_filter_opts *o);
/* "250us", "1.5ms", "2s", "40ns" into *ns: 1, or 0 if s is no such duration. */
int td_parse_duration(const char *s, int64_t *ns);
/* A stage in front of next passing on what the filters keep (everything when
 * none is set). *origin, when given, gets the first event's time, filtered
 * or not, before any event reaches next. */
td_output *td_filter_new(const td_filter_opts *o, td_output *next, int64_t *origin);
/* "all threads", or "thread A, 1234" for the --thread values (malloc'd). */
char *td_filter_threads_label(const td_filter_opts *o);
void td_filter_opts_free(td_filter_opts *o);

#endif
