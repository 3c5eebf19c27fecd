/*
 * out_sqlite.c: `--format=sqlite`, the recording as the relations of
 * schema.sql in a SQLite database (docs/design.md .ask.schema): SmartMonitor's
 * primitive events as stored relations, with Perfetto's names on top.
 *
 * Streaming and linear (.ask.load): one pass over the events, every row
 * inserted by a prepared statement inside one transaction; a call's row is
 * written at its exit, when its duration and self time are known (its
 * arguments at its enter); the indexes of indexes.sql are made after the
 * load. Memory holds the open calls and the names of functions and threads,
 * never the rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tf/monitors.h>

#include "db.h"
#include "intern.h"
#include "names.h"
#include "query.h"
#include "schema_sql.h"
#include "stacks.h"

enum { S_PROCESS, S_THREAD, S_FUNCTION, S_CALL, S_ARG, S_INFO, S_INFO_ARG, S_EXC, S_END, S_COUNT };

static const char *const statements[S_COUNT] = {
    "INSERT INTO process (upid, pid) VALUES (?1, ?2)",
    "INSERT INTO thread (utid, upid, pid, tid, name, start_ts) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    "INSERT INTO function (id, name, tu, full_name) VALUES (?1, ?2, ?3, ?4)",
    "INSERT INTO call VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    "INSERT INTO arg VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    "INSERT INTO info VALUES (?1, ?2, ?3, ?4, ?5)",
    "INSERT INTO info_arg VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    "INSERT INTO exception VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    "UPDATE thread SET end_ts = ?2 WHERE utid = ?1",
};

typedef struct dframe {    /* an open call */
    int64_t id, start, child; /* child: time in its callees so far */
    size_t args;           /* its arguments' text in its thread's texts */
    uint32_t func;
} dframe;

typedef struct dthread {
    dframe *frames;
    uint32_t depth, cap;
    int64_t utid, last;
    char *texts;           /* the open calls' argument texts, a stack too */
    size_t ntexts, ctexts;
} dthread;

struct dbout {
    td_output base;
    sqlite3 *db;
    const char *name;      /* the database, for messages */
    sqlite3_stmt *st[S_COUNT];
    td_threads threads;    /* identity only; the stacks are in dthreads */
    dthread *dthreads;     /* by td_thread.index */
    uint32_t ndthreads;
    td_names funcs;
    int64_t *pids;         /* upid - 1 -> pid */
    uint32_t npids, cpids;
    int64_t calls, infos, excs;
    int failed, *failed_out;
};

static int failed(struct dbout *d)
{
    if (!d->failed)
        fprintf(stderr, "tf-dump: %s: %s\n", d->name, sqlite3_errmsg(d->db));
    return d->failed = 1;
}

static int oom(struct dbout *d)
{
    if (!d->failed)
        fputs("tf-dump: out of memory\n", stderr);
    return d->failed = 1;
}

/* Runs st with what is bound to it, and makes it ready for the next row. */
static int step(struct dbout *d, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : failed(d);
}

static void bind_id(sqlite3_stmt *st, int col, int64_t id)
{
    if (id > 0)
        sqlite3_bind_int64(st, col, id);
    else
        sqlite3_bind_null(st, col);
}

/* ---- values: text as dprint shows it, numbers where they are numbers ---- */
static void bind_typed(sqlite3_stmt *st, const tf_value *v)
{
    char small[256];
    size_t n = v->kind == TF_K_STR && v->v.s ? 0 : tf_value_format(small, sizeof small, v);
    char *big = n < sizeof small ? NULL : malloc(n + 1);
    if (big)
        tf_value_format(big, n + 1, v);
    const char *text = v->kind == TF_K_STR && v->v.s ? v->v.s : big ? big : small;
    sqlite3_bind_text(st, 4, text, -1, SQLITE_TRANSIENT);
    free(big);
    switch (v->kind) {
    case TF_K_INT:
    case TF_K_ENUM: sqlite3_bind_int64(st, 5, v->v.i); break;
    case TF_K_UINT:
    case TF_K_BOOL:
    case TF_K_PTR:
        if (v->v.u <= INT64_MAX) /* SQLite integers are signed 64-bit; the text keeps the rest */
            sqlite3_bind_int64(st, 5, (int64_t)v->v.u);
        break;
    case TF_K_FLOAT: sqlite3_bind_double(st, 6, v->v.d); break;
    default: break;
    }
}

/* A value in dprint's text (an LTTng trace): a number if it reads as one. */
static void bind_text(sqlite3_stmt *st, const char *s, size_t n)
{
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        sqlite3_bind_text(st, 4, s + 1, (int)n - 2, SQLITE_TRANSIENT);
        return;
    }
    char *copy = strndup(s, n), *end;
    sqlite3_bind_text(st, 4, copy ? copy : "", -1, SQLITE_TRANSIENT);
    if (copy && *copy) {
        errno = 0;
        long long i = strtoll(copy, &end, 0);
        if (!*end && !errno) {
            sqlite3_bind_int64(st, 5, i);
        } else {
            double r = strtod(copy, &end);
            if (!*end)
                sqlite3_bind_double(st, 6, r);
        }
    }
    free(copy);
}

/* The end of the value starting at s: the ", " outside quotes and brackets. */
static const char *value_end(const char *s)
{
    int depth = 0, quoted = 0;
    for (; *s; s++) {
        if (quoted && *s == '\\' && s[1])
            s++;
        else if (*s == '"')
            quoted = !quoted;
        else if (!quoted && strchr("{[(", *s))
            depth++;
        else if (!quoted && strchr("}])", *s))
            depth--;
        else if (!quoted && depth <= 0 && s[0] == ',' && s[1] == ' ')
            break;
    }
    return s;
}

/* Rows of st (arg or info_arg) for owner: typed values, or LTTng's text
 * "a=1, s=\"x\"" split at the commas between values. */
static int put_args(struct dbout *d, sqlite3_stmt *st, int64_t owner, const td_event *e)
{
    int pos = 0;
    for (uint32_t i = 0; !e->args_text && i < e->nargs; i++, pos++) {
        sqlite3_bind_int64(st, 1, owner);
        sqlite3_bind_int(st, 2, pos);
        sqlite3_bind_text(st, 3, e->args[i].name ? e->args[i].name : "?", -1, SQLITE_STATIC);
        bind_typed(st, &e->args[i]);
        if (step(d, st))
            return 1;
    }
    for (const char *s = e->args_text; s && *s; pos++) {
        const char *eq = strchr(s, '='), *end = eq ? value_end(eq + 1) : s + strlen(s);
        sqlite3_bind_int64(st, 1, owner);
        sqlite3_bind_int(st, 2, pos);
        sqlite3_bind_text(st, 3, eq ? s : "args", eq ? (int)(eq - s) : -1, SQLITE_TRANSIENT);
        bind_text(st, eq ? eq + 1 : s, (size_t)(end - (eq ? eq + 1 : s)));
        if (step(d, st))
            return 1;
        s = *end ? end + 2 : end;
    }
    return 0;
}

static int put_result(struct dbout *d, int64_t call, const td_event *e)
{
    if (!e || (!e->result && !(e->result_text && *e->result_text)))
        return 0;
    sqlite3_stmt *st = d->st[S_ARG];
    sqlite3_bind_int64(st, 1, call);
    sqlite3_bind_int(st, 2, -1);
    sqlite3_bind_text(st, 3, "return", -1, SQLITE_STATIC);
    if (e->result)
        bind_typed(st, e->result);
    else
        bind_text(st, e->result_text, strlen(e->result_text));
    return step(d, st);
}

/* ---- threads, processes, functions --------------------------------------- */
static int64_t upid_of(struct dbout *d, int64_t pid)
{
    for (uint32_t i = 0; i < d->npids; i++)
        if (d->pids[i] == pid)
            return i + 1;
    if (!td_grow(&d->pids, &d->cpids, d->npids, sizeof *d->pids, 8)) {
        oom(d);
        return -1;
    }
    d->pids[d->npids++] = pid;
    sqlite3_stmt *st = d->st[S_PROCESS];
    sqlite3_bind_int64(st, 1, d->npids);
    if (pid >= 0)
        sqlite3_bind_int64(st, 2, pid);
    return step(d, st) ? -1 : (int64_t)d->npids;
}

static dthread *thread_of(struct dbout *d, const td_event *e)
{
    uint32_t before = d->threads.n;
    td_thread *t = td_thread_of(&d->threads, e);
    if (!t || !td_grow(&d->dthreads, &d->ndthreads, t->index, sizeof *d->dthreads, 16)) {
        oom(d);
        return NULL;
    }
    dthread *dt = &d->dthreads[t->index];
    if (d->threads.n == before)
        return dt;
    *dt = (dthread){NULL, 0, 0, t->index + 1, e->ns, NULL, 0, 0};
    int64_t upid = upid_of(d, e->pid);
    sqlite3_stmt *st = d->st[S_THREAD];
    sqlite3_bind_int64(st, 1, dt->utid);
    bind_id(st, 2, upid);
    if (e->pid >= 0)
        sqlite3_bind_int64(st, 3, e->pid);
    if (e->tid >= 0)
        sqlite3_bind_int64(st, 4, e->tid);
    sqlite3_bind_text(st, 5, e->thread, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, e->ns);
    return upid < 0 || step(d, st) ? NULL : dt;
}

static uint32_t function_of(struct dbout *d, const char *full)
{
    int added;
    uint32_t i = td_names_add(&d->funcs, full, &added);
    if (i == UINT32_MAX) {
        oom(d);
        return UINT32_MAX;
    }
    if (!added)
        return i;
    const char *name = td_short_name(full);
    sqlite3_stmt *st = d->st[S_FUNCTION];
    sqlite3_bind_int64(st, 1, (int64_t)i + 1);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    if (name != full)
        sqlite3_bind_text(st, 3, full, (int)(name - full - 1), SQLITE_STATIC);
    sqlite3_bind_text(st, 4, full, -1, SQLITE_STATIC);
    return step(d, st) ? UINT32_MAX : i;
}

/* ---- calls --------------------------------------------------------------- */
/* e's arguments as text, pushed on t's texts: their offset, or -1. */
static ptrdiff_t push_args(dthread *t, const td_event *e)
{
    size_t at = t->ntexts, need = td_args_text(t->texts + at, t->ctexts - at, e) + 1;
    if (at + need > t->ctexts) {
        size_t cap = t->ctexts ? 2 * t->ctexts : 4096;
        while (cap < at + need)
            cap *= 2;
        char *p = realloc(t->texts, cap);
        if (!p)
            return -1;
        t->texts = p;
        t->ctexts = cap;
        td_args_text(t->texts + at, cap - at, e);
    }
    t->ntexts += need;
    return (ptrdiff_t)at;
}

static int on_enter(struct dbout *d, dthread *t, const td_event *e)
{
    uint32_t f = function_of(d, e->func);
    if (f == UINT32_MAX || !td_grow(&t->frames, &t->cap, t->depth, sizeof *t->frames, 64))
        return f == UINT32_MAX ? 1 : oom(d);
    ptrdiff_t args = push_args(t, e);
    if (args < 0)
        return oom(d);
    t->frames[t->depth++] = (dframe){++d->calls, e->ns, 0, (size_t)args, f};
    return put_args(d, d->st[S_ARG], d->calls, e);
}

/* Writes t's innermost call: ended by exit e at now, or with no exit (NULL:
 * skipped by a longjmp, or open at the end) and no duration; the time until
 * now is its caller's time in callees either way. */
static int close_top(struct dbout *d, dthread *t, const td_event *e, int64_t now)
{
    dframe *f = &t->frames[--t->depth];
    dframe *parent = t->depth ? &t->frames[t->depth - 1] : NULL;
    sqlite3_stmt *st = d->st[S_CALL];
    sqlite3_bind_int64(st, 1, f->id);
    sqlite3_bind_int64(st, 2, f->start);
    if (e) {
        sqlite3_bind_int64(st, 3, now - f->start);
        sqlite3_bind_int64(st, 4, now - f->start - f->child);
    }
    sqlite3_bind_int64(st, 5, t->utid);
    sqlite3_bind_int64(st, 6, (int64_t)f->func + 1);
    sqlite3_bind_int64(st, 7, t->depth);
    bind_id(st, 8, parent ? parent->id : 0);
    sqlite3_bind_text(st, 9, t->texts + f->args, -1, SQLITE_STATIC);
    if (parent)
        parent->child += now - f->start;
    int rc = step(d, st);
    t->ntexts = f->args;
    return rc || put_result(d, f->id, e);
}

static int on_exit_event(struct dbout *d, dthread *t, const td_event *e)
{
    uint32_t f = td_names_find(&d->funcs, e->func);
    uint32_t at = f == UINT32_MAX ? 0 : t->depth;
    while (at > 0 && t->frames[at - 1].func != f)
        at--;
    if (!at) {
        d->threads.unmatched++;
        return 0;
    }
    int rc = 0;
    while (!rc && t->depth > at)
        rc = close_top(d, t, NULL, e->ns);
    return rc || close_top(d, t, e, e->ns);
}

static int on_info(struct dbout *d, dthread *t, const td_event *e)
{
    sqlite3_stmt *st = d->st[S_INFO];
    sqlite3_bind_int64(st, 1, ++d->infos);
    sqlite3_bind_int64(st, 2, e->ns);
    sqlite3_bind_int64(st, 3, t->utid);
    bind_id(st, 4, t->depth ? t->frames[t->depth - 1].id : 0);
    sqlite3_bind_text(st, 5, e->info ? td_short_name(e->info) : "?", -1, SQLITE_STATIC);
    return step(d, st) || put_args(d, d->st[S_INFO_ARG], d->infos, e);
}

static int on_exception(struct dbout *d, dthread *t, const td_event *e)
{
    sqlite3_stmt *st = d->st[S_EXC];
    sqlite3_bind_int64(st, 1, ++d->excs);
    sqlite3_bind_int64(st, 2, e->ns);
    sqlite3_bind_int64(st, 3, t->utid);
    bind_id(st, 4, t->depth ? t->frames[t->depth - 1].id : 0);
    sqlite3_bind_text(st, 5, e->exc_type ? e->exc_type : "unknown", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, e->exc_kind ? e->exc_kind : "?", -1, SQLITE_STATIC);
    return step(d, st);
}

static int db_event(void *self, const td_event *e)
{
    struct dbout *d = self;
    dthread *t = d->failed ? NULL : thread_of(d, e);
    if (!t)
        return 1;
    t->last = e->ns;
    switch (e->kind) {
    case TD_ENTER: return on_enter(d, t, e);
    case TD_EXIT: return on_exit_event(d, t, e);
    case TD_INFO: return on_info(d, t, e);
    default: return on_exception(d, t, e);
    }
}

/* ---- the end ------------------------------------------------------------- */
static int exec(struct dbout *d, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(d->db, sql, NULL, NULL, &err) == SQLITE_OK)
        return 0;
    if (!d->failed)
        fprintf(stderr, "tf-dump: %s: %s\n", d->name, err ? err : sqlite3_errmsg(d->db));
    sqlite3_free(err);
    return d->failed = 1;
}

/* Calls still open are written without a duration; threads get their end. */
static int close_threads(struct dbout *d)
{
    for (uint32_t i = 0; i < d->threads.n && !d->failed; i++) {
        dthread *t = &d->dthreads[i];
        while (t->depth && !close_top(d, t, NULL, t->last))
            continue;
        sqlite3_bind_int64(d->st[S_END], 1, t->utid);
        sqlite3_bind_int64(d->st[S_END], 2, t->last);
        step(d, d->st[S_END]);
    }
    return d->failed;
}

static int db_finish(void *self)
{
    struct dbout *d = self;
    if (!d->failed && !close_threads(d) &&
        !exec(d, "UPDATE process SET name = (SELECT name FROM thread "
                 "WHERE thread.upid = process.upid AND thread.tid = process.pid)") &&
        !exec(d, "COMMIT") && !exec(d, "BEGIN") && !exec(d, td_indexes_sql) && !exec(d, "COMMIT"))
        exec(d, "PRAGMA analysis_limit = 1000; ANALYZE"); /* the planner's statistics, sampled */
    td_threads_note(&d->threads, "sqlite");
    for (uint32_t i = 0; i < d->threads.n; i++) {
        free(d->dthreads[i].frames);
        free(d->dthreads[i].texts);
    }
    td_threads_free(&d->threads);
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(d->st[i]);
    int rc = d->failed;
    if (d->failed_out)
        *d->failed_out = rc;
    free(d->dthreads);
    free(d->pids);
    td_names_free(&d->funcs);
    free(d);
    return rc;
}

td_output *td_sqlite_new(sqlite3 *db, const char *name, int *failed_out)
{
    struct dbout *d = calloc(1, sizeof *d);
    if (!d) {
        fputs("tf-dump: out of memory\n", stderr);
        return NULL;
    }
    d->base = (td_output){d, db_event, db_finish, NULL}; /* the schema has no counters yet */
    d->db = db;
    d->name = name;
    d->failed_out = failed_out;
    /* the file is made anew, and dropped if anything fails: no journal */
    if (exec(d, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
                "PRAGMA cache_size = -65536") || exec(d, td_schema_sql) || exec(d, "BEGIN")) {
        free(d);
        return NULL;
    }
    for (int i = 0; i < S_COUNT; i++)
        if (sqlite3_prepare_v2(db, statements[i], -1, &d->st[i], NULL) != SQLITE_OK) {
            failed(d);
            while (i-- > 0)
                sqlite3_finalize(d->st[i]);
            free(d);
            return NULL;
        }
    return &d->base;
}

int td_sqlite_load(sqlite3 *db, const char *name, const char *const *paths, int n,
                   const td_filter_opts *filter, FILE *flame)
{
    int db_failed = 1;
    td_output *outs[2] = {td_sqlite_new(db, name, &db_failed), NULL};
    if (!outs[0])
        return 2;
    char *what = flame ? td_filter_threads_label(filter) : NULL;
    if (flame && !(what && (outs[1] = td_flame_for(flame, what)))) {
        free(what);
        outs[0]->finish(outs[0]->self);
        fputs("tf-dump: out of memory\n", stderr);
        return 2;
    }
    td_output *tee = flame ? td_tee_new(outs, 2) : outs[0];
    td_output *f = tee ? td_filter_new(filter, tee, NULL) : NULL;
    int rc = f ? td_read_paths(paths, n, f, NULL) : (fputs("tf-dump: out of memory\n", stderr), 2);
    free(what);
    return db_failed ? 2 : rc;
}

int td_sqlite_export(const char *const *paths, int n, const char *path, const td_filter_opts *filter,
                     const char *flame_path)
{
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp) {
        fputs("tf-dump: out of memory\n", stderr);
        return 1;
    }
    snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
    unlink(tmp);
    sqlite3 *db = NULL;
    FILE *flame = flame_path ? fopen(flame_path, "w") : NULL;
    int rc = 2;
    if (flame_path && !flame)
        fprintf(stderr, "tf-dump: cannot write %s: %s\n", flame_path, strerror(errno));
    else if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        fprintf(stderr, "tf-dump: cannot write %s: %s\n", path, db ? sqlite3_errmsg(db) : "out of memory");
    else
        rc = td_sqlite_load(db, path, paths, n, filter, flame);
    if (sqlite3_close(db) != SQLITE_OK || (flame && fclose(flame) != 0))
        rc = 2;
    /* a damaged recording (1) still gives the database of what could be read */
    if (rc < 2 && rename(tmp, path) != 0) {
        fprintf(stderr, "tf-dump: cannot write %s: %s\n", path, strerror(errno));
        rc = 2;
    }
    if (rc == 2)
        unlink(tmp);
    free(tmp);
    return rc != 0;
}
