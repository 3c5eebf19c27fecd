/*
 * db.h: tf-dump's SQLite side: the database of a recording (out_sqlite.c,
 * schema.sql), queries on it (query.c), the questions (ask.c), the printing
 * of results (table.c) and the comparison of two runs (diff.c).
 */
#ifndef TF_DUMP_DB_H
#define TF_DUMP_DB_H

#include <sqlite3.h>

#include "dump.h"
#include "filter.h"

/* An output loading every event into db, which gets schema.sql's tables (in
 * one transaction) and, at finish, indexes.sql's indexes. name is the
 * database as messages call it; *failed, when given, is set at finish: 1 if
 * anything could not be written. NULL on failure (said). */
td_output *td_sqlite_new(sqlite3 *db, const char *name, int *failed);
/* The recordings under paths, filtered, into db (and a flame graph into
 * flame, when given): 0, 1 if a recording is damaged (what precedes the
 * damage is in db), 2 if the database could not be written. */
int td_sqlite_load(sqlite3 *db, const char *name, const char *const *paths, int n,
                   const td_filter_opts *filter, FILE *flame);

/* Prints every row st gives, in format: "table" (or NULL: aligned columns,
 * control bytes escaped), "csv" (RFC 4180, with a header line) or "json" (an
 * array of objects). 0, or 1 on an error (said, after what). */
int td_print_rows(sqlite3 *db, sqlite3_stmt *st, const char *format, FILE *out, const char *what);
/* 1 if format is one td_print_rows knows; else says so, naming the option. */
int td_rows_format_ok(const char *format, const char *option);

/* 1 if question is well formed (ask.c); else 0, said. */
int td_ask_check(const char *question);
/* The SQL answering question (ask.c) on db, in a malloc'd string; NULL after
 * saying why (a malformed question, a function or argument not in db). */
char *td_ask_sql(sqlite3 *db, const char *question);

#endif
