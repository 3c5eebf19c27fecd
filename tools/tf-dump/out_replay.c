/*
 * out_replay.c: `--format=replay`, the recording as `uftrace replay` shows a
 * program (docs/design.md .ask.replay): one line per call, indented two
 * spaces a level on its thread, the duration on the line that closes it:
 *
 *   #         TIME     DURATION      TID  THREAD           FUNCTION
 *     0.000000000                   4242  app            | app.work(n=2) {
 *     0.000000210     0.080 us      4242  app            |   app.leaf(i=0) = 0;
 *     0.000001000     1.000 us      4242  app            | } = 1; (then app.work's name)
 *
 * A call with nothing recorded inside it (a leaf) takes one line, written
 * when its exit comes: the time is its enter's. Info calls and exceptions
 * are C comments on lines of their own, as the exit's name is. Times are
 * since the first event of the recording (filtered out or not), or since
 * the clock's origin (--time=abs).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include <tf/monitors.h>

#include "dump.h"
#include "names.h"
#include "stacks.h"

typedef struct line {      /* a thread's enter not written yet: a leaf or not? */
    char *text;            /* "func(args)" */
    size_t len, cap;
    int64_t ns;
    uint32_t indent;       /* its depth on the thread */
    int open;
} line;

struct replay {
    td_output base;
    FILE *out;
    td_threads threads;
    line *pending;         /* by td_thread.index */
    uint32_t npending;
    const int64_t *origin; /* NULL: --time=abs */
    int started, oom;
};

static void add(line *l, const char *s, size_t n, int *oom)
{
    if (l->len + n + 1 > l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        while (cap < l->len + n + 1)
            cap *= 2;
        char *p = realloc(l->text, cap);
        if (!p) {
            *oom = 1;
            return;
        }
        l->text = p;
        l->cap = cap;
    }
    memcpy(l->text + l->len, s, n);
    l->len += n;
    l->text[l->len] = 0;
}

static void add_value(line *l, const tf_value *v, int *oom)
{
    char small[256];
    size_t n = tf_value_format(small, sizeof small, v);
    char *big = n < sizeof small ? NULL : malloc(n + 1);
    if (big)
        tf_value_format(big, n + 1, v);
    add(l, big ? big : small, big ? n : strlen(small), oom);
    free(big);
}

static void add_args(line *l, const td_event *e, int *oom)
{
    add(l, "(", 1, oom);
    if (e->args_text)
        add(l, e->args_text, strlen(e->args_text), oom);
    for (uint32_t i = 0; !e->args_text && i < e->nargs; i++) {
        const char *name = e->args[i].name ? e->args[i].name : "?";
        if (i)
            add(l, ", ", 2, oom);
        add(l, name, strlen(name), oom);
        add(l, "=", 1, oom);
        add_value(l, &e->args[i], oom);
    }
    add(l, ")", 1, oom);
}

static void add_result(line *l, const td_event *e, int *oom)
{
    if (e && e->result) {
        add(l, " = ", 3, oom);
        add_value(l, e->result, oom);
    } else if (e && e->result_text && *e->result_text) {
        add(l, " = ", 3, oom);
        add(l, e->result_text, strlen(e->result_text), oom);
    }
}

/* The columns before the bar: time, duration, tid, thread. */
static void head(struct replay *r, const td_thread *t, int64_t ns, int64_t dur, int with_time,
                 uint32_t indent)
{
    char when[32] = "", took[32] = "";
    if (with_time)
        td_format_time(when, sizeof when, r->origin ? ns - *r->origin : ns);
    if (dur >= 0)
        td_format_duration(took, sizeof took, dur);
    fprintf(r->out, "%*s %12s %8" PRId64 "  ", r->origin ? 13 : 20, when, took, t->tid);
    td_put_text(r->out, t->name);
    fprintf(r->out, "%*s| %*s", (int)(strlen(t->name) < 15 ? 15 - strlen(t->name) : 0), "",
            2 * (int)indent, "");
}

/* Writes t's pending enter as the opening of a call with more inside. */
static void open_pending(struct replay *r, td_thread *t)
{
    line *l = &r->pending[t->index];
    if (!l->open)
        return;
    l->open = 0;
    head(r, t, l->ns, -1, 1, l->indent);
    fprintf(r->out, "%s {\n", l->text);
}

/* A pending line for every thread seen. */
static int pending_for(struct replay *r)
{
    if (r->npending >= r->threads.n)
        return 1;
    uint32_t n = r->threads.n + 16;
    line *p = realloc(r->pending, n * sizeof *p);
    if (!p)
        return 0;
    memset(p + r->npending, 0, (n - r->npending) * sizeof *p);
    r->pending = p;
    r->npending = n;
    return 1;
}

static int on_enter(struct replay *r, td_thread *t, const td_event *e)
{
    open_pending(r, t);
    line *l = &r->pending[t->index];
    l->len = 0;
    l->indent = t->depth;
    add(l, e->func, strlen(e->func), &r->oom);
    add_args(l, e, &r->oom);
    l->ns = e->ns;
    l->open = 1;
    return td_push(t, e->func, e->ns) ? 0 : (r->oom = 1);
}

/* Closes t's innermost call: at its exit e, or with none (NULL). */
static void close_top(struct replay *r, td_thread *t, const td_event *e, int64_t ns)
{
    td_frame f = td_pop(t);
    line *l = &r->pending[t->index];
    line tail = {0};
    add_result(&tail, e, &r->oom);
    if (e && l->open) { /* a leaf: one line */
        l->open = 0;
        head(r, t, f.start, ns - f.start, 1, t->depth);
        fprintf(r->out, "%s%s;\n", l->text, tail.text ? tail.text : "");
    } else if (e) {
        head(r, t, ns, ns - f.start, 1, t->depth);
        fprintf(r->out, tail.text ? "}%s; /* %s */\n" : "}%s /* %s */\n", tail.text ? tail.text : "",
                f.func);
    } else {
        open_pending(r, t);
        head(r, t, ns, -1, 0, t->depth);
        fprintf(r->out, "} /* %s: no exit in the recording */\n", f.func);
    }
    free(tail.text);
    free(f.func);
}

static void on_exit_event(struct replay *r, td_thread *t, const td_event *e)
{
    uint32_t at = td_find(t, e->func);
    if (!at) {
        r->threads.unmatched++;
        return;
    }
    while (t->depth > at)
        close_top(r, t, NULL, e->ns);
    close_top(r, t, e, e->ns);
}

static void comment(struct replay *r, td_thread *t, const td_event *e)
{
    open_pending(r, t);
    head(r, t, e->ns, -1, 1, t->depth);
    if (e->kind == TD_INFO) {
        line l = {0};
        add_args(&l, e, &r->oom);
        fprintf(r->out, "/* %s%s */\n", e->info ? td_short_name(e->info) : "?", l.text ? l.text : "()");
        free(l.text);
    } else {
        fprintf(r->out, "/* %s %s */\n", e->exc_kind ? e->exc_kind : "?",
                e->exc_type ? e->exc_type : "unknown");
    }
}

static void header(struct replay *r)
{
    fprintf(r->out, "#%*s %12s %8s  %-15s  %s\n", r->origin ? 12 : 19, "TIME", "DURATION", "TID",
            "THREAD", "FUNCTION");
    r->started = 1;
}

static int rp_event(void *self, const td_event *e)
{
    struct replay *r = self;
    if (!r->started)
        header(r);
    td_thread *t = td_thread_of(&r->threads, e);
    if (!t || !pending_for(r)) {
        fputs("tf-dump: out of memory\n", stderr);
        return 1;
    }
    t->last = e->ns;
    if (e->kind == TD_ENTER && on_enter(r, t, e)) {
        fputs("tf-dump: out of memory\n", stderr);
        return 1;
    }
    if (e->kind == TD_EXIT)
        on_exit_event(r, t, e);
    else if (e->kind != TD_ENTER)
        comment(r, t, e);
    if (r->oom) {
        fputs("tf-dump: out of memory\n", stderr);
        return 1;
    }
    return ferror(r->out) != 0;
}

static int rp_finish(void *self)
{
    struct replay *r = self;
    if (!r->started)
        header(r);
    for (uint32_t i = 0; i < r->threads.n; i++)
        while (r->threads.all[i]->depth)
            close_top(r, r->threads.all[i], NULL, r->threads.all[i]->last);
    td_threads_note(&r->threads, "replay");
    td_threads_free(&r->threads);
    for (uint32_t i = 0; i < r->npending; i++)
        free(r->pending[i].text);
    free(r->pending);
    int rc = fflush(r->out) != 0 || ferror(r->out);
    free(r);
    return rc;
}

td_output *td_replay_new(FILE *out, const int64_t *origin)
{
    struct replay *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->base = (td_output){r, rp_event, rp_finish, NULL}; /* counters are no calls */
    r->out = out;
    r->origin = origin;
    return &r->base;
}
