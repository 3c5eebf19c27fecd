/*
 * query.h: what main.c calls for the SQLite side (db.h has the rest):
 * --format=sqlite, --sql, --ask and --diff (docs/design.md .ask).
 */
#ifndef TF_DUMP_QUERY_H
#define TF_DUMP_QUERY_H

#include "filter.h"

typedef struct td_query_opts {
    const char *sql;       /* --sql QUERY */
    const char *ask;       /* --ask QUESTION */
    int explain;           /* --explain: the question's SQL first */
} td_query_opts;

/* Takes argv[*i] (and the value after it) if it is a query option, setting
 * *taken; nonzero on a bad one (said). */
int td_query_option(td_query_opts *q, int argc, char **argv, int *i, int *taken);
/* Answers q on the recordings under paths (filtered) or on one database
 * file, printing to out_path (NULL or "-": stdout) in format: 0, 1 on
 * failure, 2 for a bad query or question. */
int td_query_run(const td_query_opts *q, const char *const *paths, int n, const char *format,
                 const char *out_path, const td_filter_opts *filter);
/* --format=sqlite: the recordings, filtered, as a database written to path
 * (made under another name, renamed when complete); a flame graph too when
 * flame is given. 0, or 1 on failure. */
int td_sqlite_export(const char *const *paths, int n, const char *path, const td_filter_opts *filter,
                     const char *flame);
/* --diff A B: per function, run A against run B (recordings, filtered, or
 * timing reports in JSON). */
int td_diff_run(const char *const *paths, int n, const char *format, const char *out_path,
                const td_filter_opts *filter);

#endif
