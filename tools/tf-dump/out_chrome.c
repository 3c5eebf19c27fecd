/*
 * out_chrome.c: Chrome trace JSON (the format ui.perfetto.dev and
 * chrome://tracing load): one track per thread (pid, tid, named by a
 * thread_name record), a B event at each enter with the arguments in "args",
 * an E at its exit with the result, instant events for info calls and
 * exceptions, a C event per resource counter (tf:counters). Times are microseconds since the first event, whose time since
 * the clock's origin is otherData.origin_ns. B and E balance on every
 * thread (stacks.h says how).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stacks.h"

struct chrome {
    td_output base;
    FILE *out;
    td_threads threads;
    int64_t origin;
    int any;
};

static void head(struct chrome *c, const char *ph, const char *name, const td_thread *t, int64_t ns)
{
    int64_t d = ns - c->origin;
    uint64_t a = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
    fprintf(c->out, "%s\n{\"ph\":\"%s\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":%s%" PRIu64
            ".%03" PRIu64 ",\"name\":", c->any++ ? "," : "", ph, t->pid, t->tid, d < 0 ? "-" : "",
            a / 1000, a % 1000);
    td_json_string(c->out, name);
}

static void args(struct chrome *c, const td_event *e)
{
    fputs(",\"args\":{", c->out);
    if (e->args_text) {
        fputs("\"args\":", c->out);
        td_json_string(c->out, e->args_text);
    }
    for (uint32_t i = 0; !e->args_text && i < e->nargs; i++) {
        fputs(i ? "," : "", c->out);
        td_json_string(c->out, e->args[i].name ? e->args[i].name : "?");
        putc(':', c->out);
        td_json_value(c->out, &e->args[i]);
    }
    fputs("}}", c->out);
}

static void end(struct chrome *c, td_thread *t, int64_t ns, const td_event *e)
{
    td_frame f = td_pop(t);
    head(c, "E", f.func, t, ns);
    if (e && e->result) {
        fputs(",\"args\":{\"result\":", c->out);
        td_json_value(c->out, e->result);
        fputs("}", c->out);
    } else if (e && e->result_text && *e->result_text) {
        fputs(",\"args\":{\"result\":", c->out);
        td_json_text_value(c->out, e->result_text);
        fputs("}", c->out);
    }
    fputs("}", c->out);
    free(f.func);
}

static void on_exit_event(struct chrome *c, td_thread *t, const td_event *e)
{
    uint32_t at = td_find(t, e->func);
    if (!at) {
        c->threads.unmatched++;
        return;
    }
    while (t->depth > at)
        end(c, t, e->ns, NULL);
    end(c, t, e->ns, e);
}

/* Times are from the first event, whichever kind it is. */
static void begin(struct chrome *c, int64_t ns)
{
    if (!c->any) {
        c->origin = ns;
        fputs("{\"traceEvents\":[", c->out);
    }
}

/* A C event per counter: Perfetto draws each name as its own counter track
 * of the process (bytes and counts never share a scale). A decision of the
 * budget is an instant event of the process, with its fields. */
static int c_counters(void *self, const td_event *e)
{
    struct chrome *c = self;
    begin(c, e->ns);
    td_thread t = {.pid = e->pid, .tid = e->tid};
    if (strcmp(e->func, "budget") == 0) {
        head(c, "i", "budget", &t, e->ns);
        fputs(",\"s\":\"p\"", c->out);
        args(c, e);
        return ferror(c->out) != 0;
    }
    for (uint32_t i = 0; i < e->nargs; i++) {
        const char *name = e->args[i].name ? e->args[i].name : "?";
        head(c, "C", name, &t, e->ns);
        fputs(",\"args\":{", c->out);
        td_json_string(c->out, name);
        fprintf(c->out, ":%" PRIu64 "}}", e->args[i].v.u); /* a number: Perfetto plots it */
    }
    return ferror(c->out) != 0;
}

static int c_event(void *self, const td_event *e)
{
    struct chrome *c = self;
    begin(c, e->ns);
    uint32_t before = c->threads.n;
    td_thread *t = td_thread_of(&c->threads, e);
    if (!t) {
        fputs("tf-dump: out of memory\n", stderr);
        return 1;
    }
    t->last = e->ns;
    if (c->threads.n != before) {
        head(c, "M", "thread_name", t, e->ns);
        fputs(",\"args\":{\"name\":", c->out);
        td_json_string(c->out, t->name);
        fputs("}}", c->out);
    }
    if (e->kind == TD_ENTER) {
        if (!td_push(t, e->func, e->ns)) {
            fputs("tf-dump: out of memory\n", stderr);
            return 1;
        }
        head(c, "B", e->func, t, e->ns);
        args(c, e);
    } else if (e->kind == TD_EXIT) {
        on_exit_event(c, t, e);
    } else if (e->kind == TD_INFO) {
        head(c, "i", e->info ? e->info : "?", t, e->ns);
        fputs(",\"s\":\"t\"", c->out);
        args(c, e);
    } else if (e->kind == TD_SIGNAL) { /* the end of the process: a global instant */
        head(c, "i", e->sig_name, t, e->ns);
        fprintf(c->out, ",\"s\":\"g\",\"args\":{\"code\":%lld", (long long)e->sig_code);
        if (e->sig_has_addr)
            fprintf(c->out, ",\"address\":\"0x%llx\"", (unsigned long long)e->sig_addr);
        fputs("}}", c->out);
    } else {
        char name[512];
        snprintf(name, sizeof name, "%s:throw:%s", e->func, e->exc_type ? e->exc_type : "unknown");
        head(c, "i", name, t, e->ns);
        fputs(",\"s\":\"t\",\"args\":{\"kind\":", c->out);
        td_json_string(c->out, e->exc_kind ? e->exc_kind : "?");
        fputs("}}", c->out);
    }
    return ferror(c->out) != 0;
}

static int c_finish(void *self)
{
    struct chrome *c = self;
    if (!c->any)
        fputs("{\"traceEvents\":[", c->out);
    for (uint32_t i = 0; i < c->threads.n; i++)
        while (c->threads.all[i]->depth)
            end(c, c->threads.all[i], c->threads.all[i]->last, NULL);
    fprintf(c->out, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"origin_ns\":%" PRId64 "}}\n",
            c->origin);
    td_threads_note(&c->threads, "chrome");
    td_threads_free(&c->threads);
    return fflush(c->out) != 0 || ferror(c->out);
}

td_output *td_chrome_new(FILE *out)
{
    struct chrome *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->base = (td_output){c, c_event, c_finish, c_counters};
    c->out = out;
    return &c->base;
}
