/*
 * query.c: --sql and --ask (docs/design.md .ask.sql): a recording is loaded
 * into a temporary database (SQLite's private file, removed when closed) or
 * a database written by --format=sqlite is opened read-only; one statement
 * runs and its rows are printed (table.c). A statement SQLite refuses is
 * said with SQLite's words, the place it points at, and for a table or a
 * column that does not exist, the nearest names that do.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"
#include "names.h"
#include "query.h"

int td_query_option(td_query_opts *q, int argc, char **argv, int *i, int *taken)
{
    const char *a = argv[*i];
    const char **slot = strncmp(a, "--sql", 5) == 0 ? &q->sql : strncmp(a, "--ask", 5) == 0 ? &q->ask : NULL;
    *taken = 1;
    if (slot && a[5] == '=') {
        *slot = a + 6;
    } else if (slot && !a[5]) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "tf-dump: %s wants a %s after it\n", a,
                    slot == &q->sql ? "query" : "question");
            return 1;
        }
        *slot = argv[++*i];
    } else if (strcmp(a, "--explain") == 0) {
        q->explain = 1;
    } else {
        *taken = 0;
    }
    return 0;
}

/* A file that starts as every SQLite database does. */
static int is_database(const char *path)
{
    struct stat st;
    char head[16] = "";
    FILE *f = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}


/* A database given with recordings, or with filters: 2 (said), else 0. */
static int inputs_ok(const char *const *paths, int n, const td_filter_opts *filter)
{
    for (int i = 0; i < n; i++) {
        if (!is_database(paths[i]))
            continue;
        if (n > 1) {
            fprintf(stderr, "tf-dump: %s is a database: give it alone, or recordings only\n",
                    paths[i]);
            return 2;
        }
        if (td_filter_any(filter)) {
            fprintf(stderr, "tf-dump: %s is a database: the filters choose what a recording "
                    "loads; write them in SQL instead\n", paths[0]);
            return 2;
        }
    }
    return 0;
}

/* The database to ask: *db opened; 0, 1 if a recording was damaged (what
 * precedes the damage is loaded), 2 on failure (said). */
static int open_db(sqlite3 **db, const char *const *paths, int n, const td_filter_opts *filter)
{
    if (n == 1 && is_database(paths[0])) {
        if (sqlite3_open_v2(paths[0], db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
            return 0;
        fprintf(stderr, "tf-dump: %s: %s\n", paths[0], *db ? sqlite3_errmsg(*db) : "out of memory");
        return 2;
    }
    if (sqlite3_open_v2("", db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        fprintf(stderr, "tf-dump: cannot make a temporary database: %s\n",
                *db ? sqlite3_errmsg(*db) : "out of memory");
        return 2;
    }
    return td_sqlite_load(*db, "the temporary database", paths, n, filter, NULL);
}

/* ---- SQLite's refusals ----------------------------------------------------- */
static void put_names(sqlite3 *db, const char *sql, const char *want)
{
    sqlite3_stmt *st;
    const char **names = NULL;
    uint32_t n = 0, cap = 0;
    char **copies = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    while (sqlite3_step(st) == SQLITE_ROW && td_grow(&copies, &cap, n, sizeof *copies, 32)) {
        copies[n] = strdup((const char *)sqlite3_column_text(st, 0));
        if (copies[n])
            n++;
    }
    sqlite3_finalize(st);
    names = (const char **)copies;
    td_put_nearest(stderr, want, names, n);
    for (uint32_t i = 0; i < n; i++)
        free(copies[i]);
    free(copies);
}

/* "no such table: X", "no such column: X": X's nearest names in the schema. */
static void put_nearest_of(sqlite3 *db, const char *msg)
{
    static const char table[] = "no such table: ", column[] = "no such column: ";
    if (strncmp(msg, table, sizeof table - 1) == 0)
        put_names(db, "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') "
                      "AND name NOT LIKE 'sqlite%'", msg + sizeof table - 1);
    if (strncmp(msg, column, sizeof column - 1) != 0)
        return;
    const char *want = msg + sizeof column - 1, *dot = strrchr(want, '.');
    put_names(db, "SELECT DISTINCT p.name FROM sqlite_schema m, pragma_table_info(m.name) p "
                  "WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite%'",
              dot ? dot + 1 : want);
}

/* The line of sql holding byte at, and a caret under it. */
static void put_place(const char *sql, int at)
{
    if (at < 0 || (size_t)at > strlen(sql))
        return;
    const char *line = sql + at;
    while (line > sql && line[-1] != '\n')
        line--;
    size_t len = strcspn(line, "\n");
    char *head = strndup(line, (size_t)(sql + at - line)), *whole = strndup(line, len);
    if (head && whole) {
        fputs("  ", stderr);
        td_put_text(stderr, whole);
        char *esc = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&esc, &n);
        if (m) {
            td_put_text(m, head);
            fclose(m);
        }
        fprintf(stderr, "\n  %*s^\n", (int)(esc ? strlen(esc) : 0), "");
        free(esc);
    }
    free(head);
    free(whole);
}

static int refused(sqlite3 *db, const char *what, const char *sql)
{
    const char *msg = sqlite3_errmsg(db);
    fprintf(stderr, "tf-dump: %s: ", what);
    td_put_text(stderr, msg);
    put_nearest_of(db, msg);
    fputs("\n", stderr);
#if SQLITE_VERSION_NUMBER >= 3038000
    put_place(sql, sqlite3_error_offset(db));
#endif
    return 2;
}

/* One statement of sql, prepared: 0, or 2 (said). */
static int prepare(sqlite3 *db, const char *sql, const char *what, sqlite3_stmt **st)
{
    const char *tail = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, st, &tail) != SQLITE_OK)
        return refused(db, what, sql);
    if (!*st) {
        fprintf(stderr, "tf-dump: %s: no statement in the query, only blanks or comments\n",
                what);
        return 2;
    }
    sqlite3_stmt *next = NULL;
    if (!tail || !*tail || (sqlite3_prepare_v2(db, tail, -1, &next, NULL) == SQLITE_OK && !next))
        return 0; /* nothing, or only blanks or comments, after it */
    sqlite3_finalize(next);
    sqlite3_finalize(*st);
    *st = NULL;
    fprintf(stderr, "tf-dump: %s: one statement at a time; a second begins at '", what);
    td_put_text(stderr, tail);
    fputs("'\n", stderr);
    return 2;
}

static int answer(sqlite3 *db, const td_query_opts *q, const char *format, FILE *out)
{
    const char *what = q->sql ? "--sql" : "--ask";
    char *asked = q->ask ? td_ask_sql(db, q->ask) : NULL;
    const char *sql = q->sql ? q->sql : asked;
    sqlite3_stmt *st = NULL;
    if (!sql)
        return 2;
    if (q->explain)
        fprintf(out, "%s;\n\n", sql);
    int rc = prepare(db, sql, what, &st);
    if (rc == 0)
        rc = td_print_rows(db, st, format, out, what);
    sqlite3_finalize(st);
    free(asked);
    return rc;
}

int td_query_run(const td_query_opts *q, const char *const *paths, int n, const char *format,
                 const char *out_path, const td_filter_opts *filter)
{
    if (q->sql && q->ask) {
        fputs("tf-dump: --sql or --ask, one at a time\n", stderr);
        return 2;
    }
    if (q->explain && !q->ask) {
        fputs("tf-dump: --explain shows the SQL of an --ask question\n", stderr);
        return 2;
    }
    if (!td_rows_format_ok(format, "--format"))
        return 2;
    if (q->sql && !q->sql[strspn(q->sql, " \t\n")]) {
        fputs("tf-dump: --sql: the query is empty\n", stderr);
        return 2;
    }
    if ((q->ask && !td_ask_check(q->ask)) || inputs_ok(paths, n, filter))
        return 2;
    FILE *out = !out_path || strcmp(out_path, "-") == 0 ? stdout : fopen(out_path, "w");
    if (!out) {
        fprintf(stderr, "tf-dump: cannot write %s: %m\n", out_path);
        return 1;
    }
    sqlite3 *db = NULL;
    int loaded = open_db(&db, paths, n, filter);
    int rc = loaded == 2 ? 1 : answer(db, q, format, out);
    sqlite3_close(db);
    if (out != stdout && fclose(out) != 0)
        rc = rc ? rc : 1;
    return rc ? rc : loaded;
}
