/*
 * timing_trace.c: the event log and its export as Chrome trace JSON (the
 * "Trace Event Format" that chrome://tracing and ui.perfetto.dev load).
 *
 * Each thread keeps its last N completed timed calls in a ring it alone
 * writes (.req.hot): one "X" (complete) event each, so a ring that dropped
 * its oldest entries still yields well-formed nesting. pid is the process,
 * tid the kernel thread id, so every thread is its own track, named by a
 * thread_name metadata event. Exited threads hand their ring to the manager,
 * which keeps the last TT_MAX_RETIRED_LOGS of them.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "timing_internal.h"

#define TT_MAX_RETIRED_LOGS 256

/* One mapping: the ring's events follow the log. */
static size_t log_size(size_t cap)
{
    return sizeof(tt_log) + cap * sizeof(tt_event);
}

tt_log *tt_log_new(size_t cap, pid_t tid)
{
    tt_log *log = tf__pages_alloc(log_size(cap));
    if (!log)
        return NULL;
    log->ev = (tt_event *)(log + 1);
    log->cap = cap;
    log->tid = tid;
    if (pthread_getname_np(pthread_self(), log->thread, sizeof log->thread) != 0)
        log->thread[0] = 0;
    return log;
}

void tt_log_free_all(tt_log *log)
{
    for (tt_log *next; log; log = next) {
        next = log->next;
        tf__pages_free(log, log_size(log->cap));
    }
}

void tt_log_record(tt_thread *ts, tt_manager *m, const tt_frame *f, uint64_t now)
{
    tt_log *log = ts->log;
    tt_event *e = &log->ev[log->written % log->cap];
    TT_ST(e->timer, f->timer->index);
    TT_ST(e->flags, f->flags);
    TT_ST(e->start, f->start);
    TT_ST(e->dur, now > f->start ? now - f->start : 0);
    TT_ST(log->written, log->written + 1);
}

void tt_log_retire(tt_manager *m, tt_log *log)
{
    log->next = NULL;
    tt_log **p = &m->retired_logs;
    int n = 0;
    while (*p) {
        p = &(*p)->next;
        n++;
    }
    *p = log;
    if (n + 1 > TT_MAX_RETIRED_LOGS) {
        tt_log *old = m->retired_logs;
        m->retired_logs = old->next;
        m->dropped_events += old->written < old->cap ? old->written : old->cap;
        old->next = NULL;
        tt_log_free_all(old);
    }
}

/* Also the reports' JSON strings (timing_report.c). */
void tt_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void write_log(tt_manager *m, FILE *out, const tt_log *log, int *first)
{
    int pid = (int)getpid();
    uint64_t written = TT_LD(log->written);
    uint64_t from = written > log->cap ? written - log->cap : 0;
    fprintf(out, "%s\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
            *first ? "" : ",", pid, (int)log->tid);
    char fallback[32];
    snprintf(fallback, sizeof fallback, "thread %d", (int)log->tid);
    tt_json_string(out, log->thread[0] ? log->thread : fallback);
    fputs("}}", out);
    *first = 0;
    for (uint64_t k = from; k < written; k++) {
        const tt_event *e = &log->ev[k % log->cap];
        uint32_t ti = TT_LD(e->timer);
        if (ti >= m->ntimers)
            continue;
        const tt_timer *t = tt_timer_at(m, ti);
        uint64_t start = TT_LD(e->start);
        double ts = tt_ticks_to_ns(m, start > m->epoch ? (double)(start - m->epoch) : 0) / 1e3;
        double dur = tt_ticks_to_ns(m, (double)TT_LD(e->dur)) / 1e3;
        fputs(",\n{\"ph\":\"X\",\"name\":", out);
        tt_json_string(out, t->full);
        fputs(",\"cat\":", out);
        tt_json_string(out, t->group >= 0 ? m->groups[t->group].name : "info");
        fprintf(out, ",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f", pid, (int)log->tid, ts, dur);
        uint32_t flags = TT_LD(e->flags);
        if (flags & TT_F_UNWIND)
            fputs(",\"args\":{\"end\":\"unwind\"}", out);
        fputc('}', out);
    }
}

uint64_t tt_dropped_events(tt_manager *m)
{
    uint64_t dropped = m->dropped_events;
    for (tt_log *log = m->retired_logs; log; log = log->next)
        dropped += log->written > log->cap ? log->written - log->cap : 0;
    for (tt_thread *ts = m->threads; ts; ts = ts->next)
        if (ts->log)
            dropped += TT_LD(ts->log->written) > ts->log->cap ? TT_LD(ts->log->written) - ts->log->cap : 0;
    return dropped;
}

int tt_write_chrome_trace(tt_manager *m, FILE *out)
{
    int any = m->retired_logs != NULL;
    for (tt_thread *ts = m->threads; ts && !any; ts = ts->next)
        any = ts->log != NULL;
    if (!any)
        return TF_ENOENT;
    uint64_t dropped = tt_dropped_events(m);
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"tf timing\",", out);
    fprintf(out, "\"dropped_events\":%" PRIu64 "},\n\"traceEvents\":[", dropped);
    int first = 1;
    for (tt_log *log = m->retired_logs; log; log = log->next)
        write_log(m, out, log, &first);
    for (tt_thread *ts = m->threads; ts; ts = ts->next)
        if (ts->log)
            write_log(m, out, ts->log, &first);
    fputs("\n]}\n", out);
    return ferror(out) ? TF_EINVAL : TF_OK;
}
