/*
 * report.c: what the watchdog says, and what tf-ctl stacks and heartbeat
 * answer. Runs on the watchdog thread or the control server, never in a
 * hook: it may allocate and use stdio. A report is built in memory and
 * written to stderr in one write(2) (more only if the kernel takes less),
 * not line by line through the program's stdio buffer.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tf/record.h>

#include "watchdog.h"
#include "../clock.h"
#include "../config.h"
#include "../record/record.h"

#define SNAPSHOTS_MAX 16 /* per process: each may be TF_RECORD_SIZE a thread */

int wd_scan_open(wd_scan *s)
{
    s->f = open_memstream(&s->text, &s->len);
    return s->f ? 0 : -1;
}

void wd_scan_close(wd_scan *s)
{
    fclose(s->f);
    for (size_t at = 0; at < s->len;) {
        ssize_t w = write(2, s->text + at, s->len - at);
        if (w <= 0 && errno != EINTR)
            break;
        at += w > 0 ? (size_t)w : 0;
    }
    free(s->text);
}

int wd_scan_add(wd_scan *s, wd_thread *t)
{
    for (int i = 0; i < s->ndone; i++)
        if (s->done[i] == t)
            return 0;
    if (s->ndone == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        wd_thread **v = realloc(s->done, (size_t)cap * sizeof *v);
        if (!v)
            return 0;
        s->done = v;
        s->cap = cap;
    }
    s->done[s->ndone++] = t;
    return 1;
}

const char *wd_scan_where(wd_scan *s)
{
    if (s->snapped)
        return "";
    s->snapped = 1;
    char where[4096];
    if (!wd_snapshot(&s->spec, where, sizeof where))
        return "";
    snprintf(s->snap, sizeof s->snap, "; snapshot %s", where);
    return s->snap;
}

/* ---- the pieces of a report ------------------------------------------------------ */

void wd_put_thread(FILE *f, const wd_thread *t)
{
    char path[64], name[32] = "?";
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", t->tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, name, sizeof name - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n > 0)
        name[n - (name[n - 1] == '\n')] = 0;
    fprintf(f, "thread %d (", t->tid);
    tf__config_escaped(f, name);
    fputc(')', f);
}

static void put_duration(FILE *f, uint64_t ns)
{
    char text[64];
    tf_buf b = {text, sizeof text, 0};
    wd_buf_duration(&b, ns);
    fputs(tf__buf_end(&b), f);
}

static void put_call(FILE *f, const wd_frame *c)
{
    tf_args a = {c->nargs < WD_ARGS ? c->nargs : WD_ARGS, 0, c->args};
    char text[1024];
    tf_buf b = {text, sizeof text, 0};
    const char *name = tf_method_name(c->tu, c->id);
    tf__buf_puts(&b, c->tu->name);
    tf__buf_put(&b, ".", 1);
    tf__buf_puts(&b, name ? name : "?");
    tf__buf_put(&b, "(", 1);
    tf__buf_args(&b, &a);
    tf__buf_puts(&b, c->nargs > WD_ARGS ? ", ...)" : ")");
    fputs(tf__buf_end(&b), f);
}

int wd_put_stack(FILE *f, wd_thread *t, int depth, uint64_t now_ticks)
{
    int shown = 0;
    for (int i = 0; i < depth; i++) {
        wd_frame c;
        if (!wd_frame_at(t, i))
            break;
        if (!wd_frame_copy(t, i, &c)) {
            fputs("  (the thread moved on while its calls were read)\n", f);
            return shown;
        }
        char took[64];
        tf_buf b = {took, sizeof took, 0};
        wd_buf_duration(&b, wd_ns(now_ticks - c.t0));
        fprintf(f, "  %10s  ", tf__buf_end(&b));
        put_call(f, &c);
        fputc('\n', f);
        shown++;
    }
    if (shown < depth)
        fprintf(f, "  ... %d deeper calls not kept (the watchdog keeps %d a thread)\n",
                depth - shown, WD_CHUNK * WD_CHUNKS);
    return shown;
}

void wd_thread_block(wd_scan *s, wd_thread *t)
{
    int depth = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
    wd_frame top;
    fputs("tf: watchdog: ", s->f);
    wd_put_thread(s->f, t);
    if (depth > 0 && wd_frame_copy(t, depth - 1, &top)) {
        const char *name = tf_method_name(top.tu, top.id);
        fprintf(s->f, ": %s.%s has been open for ", top.tu->name, name ? name : "?");
        put_duration(s->f, wd_ns(s->now_ticks - top.t0));
        __atomic_store_n(&wd_frame_at(t, depth - 1)->mark, top.seq, __ATOMIC_RELAXED);
    } else if (depth > 0) {
        fprintf(s->f, ": %d calls open", depth);
    } else {
        fputs(": no monitored call open", s->f);
    }
    fprintf(s->f, "%s\n", wd_scan_where(s));
    if (depth > 0)
        wd_put_stack(s->f, t, depth, s->now_ticks);
    t->reported = t->seen_events;
}

/* ---- the flight recorder ---------------------------------------------------------- */

int wd_snapshot(const wd_spec *spec, char *where, size_t len)
{
    static int taken;
    if (!(spec->actions & WD_ACT_SNAPSHOT) || !rt_pool_now())
        return 0;
    if (taken == SNAPSHOTS_MAX) {
        snprintf(where, len, "not written: %d were, the most the watchdog writes", SNAPSHOTS_MAX);
        return 1;
    }
    if (rt_cfg.stream) { /* the trace is on disk already: bring it up to date */
        tf_record_snapshot(NULL);
        snprintf(where, len, "in %s (stream mode: written up to now)", rd_dir());
        return 1;
    }
    char dir[4200];
    snprintf(dir, sizeof dir, "%s.watchdog-%d", rd_dir(), ++taken);
    if (tf_record_snapshot(dir) != TF_OK)
        snprintf(where, len, "not written: the recorder could not write %s (said above)", dir);
    else
        snprintf(where, len, "in %s", dir);
    return 1;
}

/* ---- tf-ctl ------------------------------------------------------------------------ */

static void put_locks(FILE *out, wd_thread *t)
{
    const void *waiting = __atomic_load_n(&t->waiting, __ATOMIC_ACQUIRE);
    if (waiting) {
        const tf_tu *tu = WD_GET(t->wait_tu);
        const char *fn = tu ? tf_method_name(tu, WD_GET(t->wait_id)) : NULL;
        fprintf(out, "  waits for %s %p (%s%s%s%s)\n", wd_lock_kind_name(WD_GET(t->wait_kind)), waiting,
                tu ? "in " : "outside monitored calls", tu ? tu->name : "", tu ? "." : "",
                tu ? (fn ? fn : "?") : "");
    }
    int n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n && i < WD_HELD; i++) {
        wd_held h = {WD_GET(t->held[i].lock), WD_GET(t->held[i].kind), WD_GET(t->held[i].id),
                     WD_GET(t->held[i].tu)};
        const char *fn = h.tu ? tf_method_name(h.tu, h.id) : NULL;
        fprintf(out, "  holds %s %p (taken in %s%s%s)\n", wd_lock_kind_name(h.kind), h.lock,
                h.tu ? h.tu->name : "no monitored call", h.tu ? "." : "", h.tu ? (fn ? fn : "?") : "");
    }
}

void wd_stacks(FILE *out)
{
    uint64_t now = tf__clock_now();
    int idle = 0;
    for (wd_thread *t = wd_threads(); t; t = wd_next(t)) {
        if (!__atomic_load_n(&t->rec.used, __ATOMIC_ACQUIRE))
            continue;
        int depth = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
        int busy = __atomic_load_n(&t->waiting, __ATOMIC_ACQUIRE) || __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
        if (!depth && !busy) {
            idle++;
            continue;
        }
        wd_put_thread(out, t);
        fprintf(out, ": %d call%s open\n", depth, depth == 1 ? "" : "s");
        wd_put_stack(out, t, depth, now);
        put_locks(out, t);
    }
    if (idle)
        fprintf(out, "%d other thread%s %s no monitored call open\n", idle, idle == 1 ? "" : "s",
                idle == 1 ? "has" : "have");
}

void wd_heartbeat(FILE *out)
{
    wd_spec spec;
    char text[128];
    uint64_t calls = wd_retired(), open = 0;
    int threads = 0;
    int on = wd_running(&spec);
    for (wd_thread *t = wd_threads(); t; t = wd_next(t))
        if (__atomic_load_n(&t->rec.used, __ATOMIC_ACQUIRE)) {
            calls += __atomic_load_n(&t->events, __ATOMIC_ACQUIRE) - t->base;
            open += (uint64_t)__atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
            threads++;
        }
    wd_spec_format(&spec, text, sizeof text);
    fprintf(out, "watchdog\t%s\n", on ? text : "off");
    if (on)
        fprintf(out, "calls\t%llu\nopen\t%llu\nthreads\t%d\n", (unsigned long long)calls,
                (unsigned long long)open, threads);
}
