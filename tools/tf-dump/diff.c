/*
 * diff.c: `--diff A B` (docs/design.md .ask.diff), what `uftrace report
 * --diff` and `llvm-xray graph-diff` do: per function, calls, total and self
 * time in run A and in run B and the change, sorted by how much the self
 * time changed (then the total): the functions where the time went come
 * first. A function without calls in a run is not in it (a live report
 * lists every function registered). A and B are timing reports in JSON
 * (TF_REPORT=x.json) or
 * recordings, whose report libtf's timing monitor computes (out_report.c),
 * so both sides count alike. The join and the order are SQL on an
 * in-memory database, printed like --sql's rows.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "db.h"
#include "names.h"
#include "query.h"

static const char diff_sql[] =
    "SELECT coalesce(a.name, b.name) AS function,\n"
    "       a.calls AS calls_a, b.calls AS calls_b,\n"
    "       a.total_ns AS total_a_ns, b.total_ns AS total_b_ns,\n"
    "       coalesce(b.total_ns, 0) - coalesce(a.total_ns, 0) AS total_change_ns,\n"
    "       a.self_ns AS self_a_ns, b.self_ns AS self_b_ns,\n"
    "       coalesce(b.self_ns, 0) - coalesce(a.self_ns, 0) AS self_change_ns,\n"
    "       CASE WHEN a.name IS NULL THEN 'B' WHEN b.name IS NULL THEN 'A' ELSE '' END AS only_in\n"
    "  FROM a FULL JOIN b ON b.name = a.name\n"
    " ORDER BY abs(self_change_ns) DESC, abs(total_change_ns) DESC, function";

/* A recording's timing report, as JSON text in memory. */
static json_t *report_of_recording(const char *path, const td_filter_opts *filter, int *damaged)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    td_output *r = m ? td_report_new(m, "report.json") : NULL;
    td_output *f = r ? td_filter_new(filter, r, NULL) : NULL;
    if (!f) {
        if (m)
            fclose(m);
        free(buf);
        fputs("tf-dump: out of memory\n", stderr);
        return NULL;
    }
    *damaged |= td_read(path, f);
    fclose(m);
    json_error_t err;
    json_t *doc = buf && len ? json_loads(buf, 0, &err) : NULL;
    if (!doc)
        fprintf(stderr, "tf-dump: %s: no timing report could be computed from it\n", path);
    free(buf);
    return doc;
}

static json_t *report_of(const char *path, const td_filter_opts *filter, int *damaged)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "tf-dump: %s: %m\n", path);
        return NULL;
    }
    if (S_ISDIR(st.st_mode))
        return report_of_recording(path, filter, damaged);
    if (td_filter_any(filter)) {
        fprintf(stderr, "tf-dump: %s is a timing report: the filters choose what is read of a "
                        "recording\n", path);
        return NULL;
    }
    json_error_t err;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!doc)
        fprintf(stderr, "tf-dump: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
    return doc;
}

/* The report's timers as rows of table side (a or b). */
static int load(sqlite3 *db, const char *side, const char *path, json_t *doc)
{
    json_t *format = json_object_get(doc, "format"), *timers = json_object_get(doc, "timers");
    if (!json_is_string(format) || strcmp(json_string_value(format), "tf-timing-report") != 0 ||
        !json_is_array(timers)) {
        fprintf(stderr, "tf-dump: %s: not a TF timing report in JSON (TF_REPORT=x.json) nor "
                        "a recording\n", path);
        return 1;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?1, ?2, round(?3), round(?4)) ON CONFLICT "
             "DO UPDATE SET calls = calls + excluded.calls, total_ns = total_ns + excluded.total_ns, "
             "self_ns = self_ns + excluded.self_ns", side);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "tf-dump: --diff: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; !rc && i < json_array_size(timers); i++) {
        json_t *t = json_array_get(timers, i), *name = json_object_get(t, "name");
        json_t *count = json_object_get(t, "count"), *total = json_object_get(t, "total_ns");
        json_t *self = json_object_get(t, "self_ns");
        if (!json_is_string(name) || !json_is_integer(count) || !json_is_number(total) ||
            !json_is_number(self)) {
            fprintf(stderr, "tf-dump: %s: timer %zu: no name, count, total_ns or self_ns\n", path, i);
            rc = 1;
            break;
        }
        if (json_integer_value(count) == 0)
            continue; /* registered but never called: not in this run */
        sqlite3_bind_text(st, 1, json_string_value(name), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, json_integer_value(count));
        sqlite3_bind_double(st, 3, json_number_value(total));
        sqlite3_bind_double(st, 4, json_number_value(self));
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = fprintf(stderr, "tf-dump: --diff: %s\n", sqlite3_errmsg(db)) > 0;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int compare(sqlite3 *db, const char *const *paths, const char *format, FILE *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, diff_sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "tf-dump: --diff: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    if (!format || strcmp(format, "table") == 0)
        fprintf(out, "A: %s\nB: %s\n\n", paths[0], paths[1]);
    int rc = td_print_rows(db, st, format, out, "--diff");
    sqlite3_finalize(st);
    return rc;
}

int td_diff_run(const char *const *paths, int n, const char *format, const char *out_path,
                const td_filter_opts *filter)
{
    if (n != 2) {
        fprintf(stderr, "tf-dump: --diff compares two runs, A and B (recordings or TF_REPORT="
                        "x.json reports), not %d\n", n);
        return 2;
    }
    if (!td_rows_format_ok(format, "--format"))
        return 2;
    int damaged = 0, rc = 1;
    json_t *a = report_of(paths[0], filter, &damaged), *b = a ? report_of(paths[1], filter, &damaged) : NULL;
    sqlite3 *db = NULL;
    FILE *out = NULL;
    if (b && sqlite3_open(":memory:", &db) == SQLITE_OK &&
        sqlite3_exec(db, "CREATE TABLE a (name TEXT PRIMARY KEY, calls INTEGER, total_ns INTEGER, "
                         "self_ns INTEGER); CREATE TABLE b (name TEXT PRIMARY KEY, calls INTEGER, "
                         "total_ns INTEGER, self_ns INTEGER)", NULL, NULL, NULL) == SQLITE_OK &&
        !load(db, "a", paths[0], a) && !load(db, "b", paths[1], b)) {
        out = !out_path || strcmp(out_path, "-") == 0 ? stdout : fopen(out_path, "w");
        if (!out)
            fprintf(stderr, "tf-dump: cannot write %s: %m\n", out_path);
        else
            rc = compare(db, paths, format, out);
    }
    if (out && out != stdout && fclose(out) != 0)
        rc = 1;
    sqlite3_close(db);
    json_decref(a);
    json_decref(b);
    return rc || damaged;
}
