/*
 * table.c: a query's rows as a table for people, or CSV or JSON for
 * programs (db.h). The table waits for the last row to size its columns;
 * CSV and JSON are written row by row, so they suit any number of rows.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "json.h"
#include "names.h"

int td_rows_format_ok(const char *format, const char *option)
{
    if (!format || strcmp(format, "table") == 0 || strcmp(format, "csv") == 0 ||
        strcmp(format, "json") == 0)
        return 1;
    fprintf(stderr, "tf-dump: %s: unknown format '", option);
    td_put_text(stderr, format);
    fputs("' (known: table, csv, json)\n", stderr);
    return 0;
}

/* ---- CSV and JSON, row by row ------------------------------------------- */
static void csv_field(FILE *out, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, out);
        return;
    }
    putc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            putc('"', out);
        putc(*s, out);
    }
    putc('"', out);
}

static void csv_row(FILE *out, sqlite3_stmt *st, int n, int header)
{
    for (int i = 0; i < n; i++) {
        const char *s = header ? sqlite3_column_name(st, i) : (const char *)sqlite3_column_text(st, i);
        fputs(i ? "," : "", out);
        csv_field(out, s ? s : "");
    }
    putc('\n', out);
}

static void json_row(FILE *out, sqlite3_stmt *st, int n, int first)
{
    fputs(first ? "[\n  {" : ",\n  {", out);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "", out);
        td_json_string(out, sqlite3_column_name(st, i));
        fputs(": ", out);
        int type = sqlite3_column_type(st, i);
        const unsigned char *s = sqlite3_column_text(st, i);
        if (type == SQLITE_NULL || !s)
            fputs("null", out);
        else if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
            fputs((const char *)s, out);
        else
            td_json_string(out, (const char *)s);
    }
    putc('}', out);
}

/* ---- the table ------------------------------------------------------------ */
typedef struct grid {
    char **cells;          /* rows * n, row 0 the names */
    size_t rows, cap;
    int n;
    size_t *width;
    int *right;            /* a column of numbers (and of something) */
} grid;

static char *escaped(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p >= 0x20 && *p != 0x7f && *p != '\\')
        p++;
    if (!*p)
        return strdup(s); /* nothing to escape, as nearly always */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    td_put_text(m, s);
    return fclose(m) == 0 ? buf : (free(buf), NULL);
}

/* Characters, not bytes: UTF-8's continuation bytes take no column. */
static size_t columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static int add_row(grid *g, sqlite3_stmt *st, int header)
{
    if (g->rows == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        char **c = realloc(g->cells, cap * g->n * sizeof *c);
        if (!c)
            return 0;
        g->cells = c;
        g->cap = cap;
    }
    for (int i = 0; i < g->n; i++) {
        int type = header ? SQLITE_TEXT : sqlite3_column_type(st, i);
        const char *s = header ? sqlite3_column_name(st, i)
                        : type == SQLITE_NULL ? "NULL" : (const char *)sqlite3_column_text(st, i);
        char *c = escaped(s ? s : "");
        g->cells[g->rows * g->n + i] = c;
        if (!c)
            return 0;
        g->width[i] = columns(c) > g->width[i] ? columns(c) : g->width[i];
        if (!header && type != SQLITE_NULL) /* -1: nothing seen yet */
            g->right[i] = (g->right[i] != 0) && (type == SQLITE_INTEGER || type == SQLITE_FLOAT);
    }
    g->rows++;
    return 1;
}

/* A row, cells padded to their column's width, no blanks at its end. */
static void put_row(FILE *out, const grid *g, size_t r)
{
    size_t pending = 0; /* blanks owed before the next text */
    for (int i = 0; i < g->n; i++) {
        const char *s = g->cells[r * g->n + i];
        size_t pad = g->width[i] - columns(s);
        pending += (i ? 2 : 0) + (g->right[i] ? pad : 0);
        if (*s) {
            fprintf(out, "%*s%s", (int)pending, "", s);
            pending = 0;
        }
        pending += g->right[i] ? 0 : pad;
    }
    putc('\n', out);
}

static void put_grid(FILE *out, const grid *g)
{
    for (size_t r = 0; r < g->rows; r++) {
        put_row(out, g, r);
        for (int i = 0; r == 0 && i < g->n; i++) {
            fputs(i ? "  " : "", out);
            for (size_t k = 0; k < g->width[i]; k++)
                putc('-', out);
        }
        if (r == 0)
            putc('\n', out);
    }
    if (g->rows == 1)
        fputs("(no rows)\n", out);
}

static void free_grid(grid *g)
{
    for (size_t i = 0; i < g->rows * (size_t)g->n; i++)
        free(g->cells[i]);
    free(g->cells);
    free(g->width);
    free(g->right);
}

/* ---- all together ---------------------------------------------------------- */
int td_print_rows(sqlite3 *db, sqlite3_stmt *st, const char *format, FILE *out, const char *what)
{
    int n = sqlite3_column_count(st), rc = SQLITE_DONE, ok = 1, row = 0;
    int csv = format && strcmp(format, "csv") == 0, json = format && strcmp(format, "json") == 0;
    grid g = {NULL, 0, 0, n, calloc((size_t)n + 1, sizeof *g.width), malloc(((size_t)n + 1) * sizeof *g.right)};
    if (!g.width || !g.right)
        ok = 0;
    for (int i = 0; ok && i < n; i++)
        g.right[i] = -1;
    if (csv)
        csv_row(out, st, n, 1);
    else if (!json && ok)
        ok = add_row(&g, st, 1);
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (csv)
            csv_row(out, st, n, 0);
        else if (json)
            json_row(out, st, n, row == 0);
        else
            ok = add_row(&g, st, 0);
        row++;
    }
    if (!ok) {
        fputs("tf-dump: out of memory\n", stderr);
    } else if (rc != SQLITE_DONE) {
        fprintf(stderr, "tf-dump: %s: %s\n", what, sqlite3_errmsg(db));
        ok = 0;
    } else if (json) {
        fputs(row ? "\n]\n" : "[]\n", out);
    } else if (!csv) {
        for (int i = 0; i < n; i++)
            g.right[i] = g.right[i] == 1; /* only NULLs: text */
        put_grid(out, &g);
    }
    free_grid(&g);
    return !ok;
}
