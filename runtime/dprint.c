/*
 * dprint.c: one line per event (Java: MethodMonitorFactoryDefaults.dprint), in
 * the format of docs/design.md .use.dprint (a contract):
 *
 *   (<thread>): <tu>.<name>->(<p1>=<v1>, ...)       enter
 *   (<thread>): <tu>.<caller>::(<info>)(<args>)      info call inside <caller>
 *   (<thread>): <tu>.<name><-  or  <-(<value>)       exit
 *   (<thread>): <tu>.<name>:throw:<type>             exception
 *
 * Each line is built in a local buffer and written with one fwrite (atomic
 * against other stdio on the stream) under the stream's dprint mutex (which
 * ThreadSanitizer can see, unlike stdio's internal lock), so lines of
 * different threads never interleave.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define LINE_MAX_BYTES 4096

struct dprint_factory {
    tf_factory base;
    FILE *out;
    pthread_mutex_t lock;
    struct dprint_factory *next;
    size_t buffered;     /* libtf buffers out fully (TF_OUTPUT) in this many bytes */
    uint64_t flushed_ms; /* CLOCK_MONOTONIC_COARSE of its last flush */
    /* Lines not yet known written; what a write error lost (.req: no silent loss). */
    uint64_t pending_lines, pending_bytes, lost_lines, lost_bytes;
    int lost_errno;
};

#define FLUSH_EVERY_MS 100

/* Lock held. After a write or flush: a failed one loses what was pending,
 * counted and reported at exit (dprint_lost); its buffer is dropped so that
 * later lines get their own chance. */
static void check_written(struct dprint_factory *s, int flushed)
{
    if (ferror(s->out)) {
        s->lost_errno = s->lost_errno ? s->lost_errno : errno;
        s->lost_lines += s->pending_lines;
        s->lost_bytes += s->pending_bytes;
        clearerr(s->out);
        __fpurge(s->out);
    } else if (!flushed && s->buffered) {
        return;
    }
    s->pending_lines = s->pending_bytes = 0;
}

static void stream_flush(struct dprint_factory *s)
{
    fflush(s->out);
    check_written(s, 1);
}

/* A fully buffered stream still shows a live trace (tail -f) within about
 * FLUSH_EVERY_MS of tracing; the coarse clock is a vDSO read, no syscall. */
static void flush_if_due(struct dprint_factory *stream)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    if (now - stream->flushed_ms >= FLUSH_EVERY_MS) {
        stream_flush(stream);
        stream->flushed_ms = now;
    }
}

struct dprint {
    tf_monitor base;
    struct dprint_factory *stream;
    const tf_out_item **out; /* TF_OUT's item for each id, or NULL (out.c) */
};

/* The arguments as printed at an entry: TF_OUT's buffer (filled by the call,
 * garbage yet) as the pointer it is, its string kept for the exit. */
/* "p1=v1, p2=v2", the value out (TF_OUT's, if any) shown as a pointer. */
static void put_args(tf_buf *b, const tf_args *args, const tf_value *out)
{
    for (uint32_t i = 0; args && args->values && i < args->count; i++) {
        const tf_value *v = &args->values[i];
        tf_value as_ptr;
        if (v == out) {
            as_ptr = *v;
            as_ptr.kind = TF_K_PTR;
            as_ptr.type = NULL; /* the pointer, not what a capture reads behind it */
            v = &as_ptr;
        }
        if (i)
            tf__buf_puts(b, ", ");
        tf__buf_puts(b, v->name ? v->name : "?");
        tf__buf_put(b, "=", 1);
        if (tf__captured(v)) /* args: the lengths of its `buf[len]` arrays */
            tf__buf_capture(b, v, args);
        else
            tf__buf_value(b, v);
    }
}

static void start(tf_buf *b, const tf_monitor *m, int id)
{
    char thread[16];
    tf__thread_name(thread);
    tf__buf_put(b, "(", 1);
    tf__buf_puts(b, thread);
    tf__buf_puts(b, "): ");
    tf__buf_puts(b, m->tu->name);
    tf__buf_put(b, ".", 1);
    const char *name = tf_method_name(m->tu, id);
    if (name)
        tf__buf_puts(b, name);
    else
        tf__buf_int(b, id);
}

static void emit(const tf_monitor *m, tf_buf *b)
{
    if (b->len + 1 > b->cap) { /* cut: mark it, and keep the line a line */
        memcpy(b->p + b->cap - 4, "...\n", 4);
        b->len = b->cap;
    } else {
        b->p[b->len++] = '\n';
    }
    struct dprint_factory *stream = ((const struct dprint *)m)->stream;
    pthread_mutex_lock(&stream->lock);
    /* A flush that stdio makes when the buffer is full would end mid-line,
     * and a forked child writing the same file would tear it: flush first. */
    if (stream->buffered && __fpending(stream->out) + b->len > stream->buffered)
        stream_flush(stream);
    fwrite(b->p, 1, b->len, stream->out);
    stream->pending_lines++;
    stream->pending_bytes += b->len;
    check_written(stream, 0);
    if (stream->buffered)
        flush_if_due(stream);
    pthread_mutex_unlock(&stream->lock);
}

#define LINE(b)                                                                \
    char line_[LINE_MAX_BYTES];                                                \
    tf_buf b = {line_, sizeof line_, 0}

/* A line longer than the stack buffer (long names, many arguments) is built
 * again in pages of its length: no name or argument count is a limit
 * (hooks never malloc: pages.c). 1 if b must be built again; a line that
 * cannot grow is emitted cut, marked "...". */
static int regrow(tf_buf *b, char *stack)
{
    if (b->len + 1 <= b->cap || b->p != stack)
        return 0;
    char *p = tf__pages_alloc(b->len + 1);
    if (!p)
        return 0;
    *b = (tf_buf){p, b->len + 1, 0};
    return 1;
}

static void line_done(tf_buf *b, char *stack)
{
    if (b->p != stack)
        tf__pages_free(b->p, b->cap);
}

static void d_enter(tf_monitor *self, int id, const tf_args *args)
{
    TF_GUARD_BEGIN(1);
    LINE(b);
    const struct dprint *d = (const struct dprint *)self;
    /* TF_OUT: its argument shown as a pointer now, as a string at the exit. */
    const tf_value *out = d->out && d->out[id] && args
                              ? tf__out_enter(d, d->out[id], id, args, TF_FRAME_CALLER_SP())
                              : NULL;
    do {
        start(&b, self, id);
        tf__buf_puts(&b, "->(");
        put_args(&b, args, out);
        tf__buf_put(&b, ")", 1);
    } while (regrow(&b, line_));
    emit(self, &b);
    line_done(&b, line_);
    TF_GUARD_END();
}

static void d_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp)
{
    TF_GUARD_BEGIN(1);
    LINE(b);
    const char *name = tf_method_name(self->tu, id);
    do {
        start(&b, self, caller);
        tf__buf_puts(&b, "::(");
        if (name)
            tf__buf_puts(&b, name);
        else
            tf__buf_int(&b, id);
        tf__buf_puts(&b, ")(");
        tf__buf_args(&b, args);
        tf__buf_put(&b, ")", 1);
    } while (regrow(&b, line_));
    emit(self, &b);
    line_done(&b, line_);
    TF_GUARD_END();
}

static void d_exit(tf_monitor *self, int id, const tf_value *result)
{
    TF_GUARD_BEGIN(0);
    LINE(b);
    const struct dprint *d = (const struct dprint *)self;
    tf_value out;
    int has_out = d->out && d->out[id] && tf__out_exit(d, d->out[id], id, TF_FRAME_CALLER_SP(), &out);
    do {
        start(&b, self, id);
        tf__buf_puts(&b, "<-");
        if (result) {
            tf__buf_put(&b, "(", 1);
            tf__buf_value(&b, result);
            tf__buf_put(&b, ")", 1);
        }
        if (has_out) { /* TF_OUT: the buffer as the call left it */
            tf__buf_put(&b, " ", 1);
            tf__buf_puts(&b, out.name);
            tf__buf_put(&b, "=", 1);
            tf__buf_value(&b, &out);
        }
    } while (regrow(&b, line_));
    emit(self, &b);
    line_done(&b, line_);
    TF_GUARD_END();
}

static void d_exception(tf_monitor *self, int id, const tf_exception *exc)
{
    TF_GUARD_BEGIN(0);
    LINE(b);
    char type[1024]; /* a longer name is shown cut, with "..." */
    const char *shown = tf_exception_type(exc, type, sizeof type);
    do {
        start(&b, self, id);
        tf__buf_puts(&b, ":throw:");
        tf__buf_puts(&b, shown);
    } while (regrow(&b, line_));
    emit(self, &b);
    line_done(&b, line_);
    TF_GUARD_END();
}

static void d_clear(tf_monitor *self) {}

static void d_destroy(tf_monitor *self)
{
    free(((struct dprint *)self)->out);
    free(self);
}

static const tf_monitor_ops dprint_ops = {
    .enter = d_enter, .info = d_info, .exit = d_exit, .exception = d_exception, .clear = d_clear,
    .destroy = d_destroy
};

static tf_monitor *dprint_create(tf_factory *self, const tf_tu *tu)
{
    struct dprint *d = malloc(sizeof *d);
    if (d) {
        d->base = (tf_monitor){&dprint_ops, tu, self};
        d->stream = (struct dprint_factory *)self;
        d->out = tf__out_params(tu);
    }
    return d ? &d->base : NULL;
}

/* One factory per stream, kept for the life of the process. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct dprint_factory *streams;

/* fork: a child must not inherit a stream locked by a thread it does not
 * have, nor lines buffered by libtf, which both processes would then write. */
void tf__dprint_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&lock);
    for (struct dprint_factory *f = streams; f; f = f->next)
        if (phase == TF_FORK_PREPARE) {
            pthread_mutex_lock(&f->lock);
            if (f->buffered)
                stream_flush(f);
        } else {
            pthread_mutex_unlock(&f->lock);
        }
    if (phase != TF_FORK_PREPARE)
        pthread_mutex_unlock(&lock);
}

TF_API tf_factory *tf_dprint(FILE *out)
{
    if (!out)
        return NULL;
    pthread_mutex_lock(&lock);
    struct dprint_factory *f = streams;
    while (f && f->out != out)
        f = f->next;
    if (!f && (f = malloc(sizeof *f))) {
        *f = (struct dprint_factory){.base = {"dprint", dprint_create, TF_FACTORY_NO_GUARD},
                                     .out = out, .lock = PTHREAD_MUTEX_INITIALIZER, .next = streams};
        streams = f;
    }
    pthread_mutex_unlock(&lock);
    return f ? &f->base : NULL;
}

static tf_factory *make_dprint(const char *name)
{
    return tf_dprint(tf__env_output());
}
TF_ENV_FACTORY(dprint, "dprint", "one line per event to TF_OUTPUT", make_dprint)

/* ---- the TF_OUTPUT file: fully buffered, flushed on a fatal signal ----------
 * abort() (a failed assert) and crashes no longer flush stdio, so the lines
 * that led there would stay in the buffer. The handler flushes what it can
 * without waiting (a stream another thread is writing is skipped), then hands
 * the signal on as it came (tf__fatal_pass_on). */
static struct sigaction before_us[TF_NFATAL];
static FILE *volatile buffered_out;

static void flush_on_fatal(int sig, siginfo_t *info, void *uctx)
{
    tf__probe_recover(sig);
    FILE *out = buffered_out;
    if (out && ftrylockfile(out) == 0) {
        fflush_unlocked(out);
        funlockfile(out);
    }
    tf__fatal_pass_on(sig, info, uctx, before_us);
}

/* At exit (before stdio's own flush): what could not be written is said,
 * once per stream, on stderr (unless stderr is the stream that failed).
 * Only TF_OUTPUT, which libtf opened, is flushed here: a stream the program
 * gave tf_dprint may be closed by now, and only its counts are read. */
static void dprint_lost(void)
{
    pthread_mutex_lock(&lock);
    for (struct dprint_factory *f = streams; f; f = f->next) {
        tf__lock(&f->lock);
        if (f->out == buffered_out)
            stream_flush(f);
        if (f->lost_lines && f->out != stderr)
            fprintf(stderr, "tf: dprint: %llu lines (%llu bytes) could not be written to %s: %s\n",
                    (unsigned long long)f->lost_lines, (unsigned long long)f->lost_bytes,
                    f->out == buffered_out ? "TF_OUTPUT" : "its stream", strerror(f->lost_errno));
        tf__unlock(&f->lock);
    }
    pthread_mutex_unlock(&lock);
}

void tf__dprint_buffered(FILE *out, size_t size)
{
    struct dprint_factory *f = (struct dprint_factory *)tf_dprint(out);
    if (!f || buffered_out)
        return;
    tf__lock(&f->lock);
    f->buffered = size;
    tf__unlock(&f->lock);
    buffered_out = out;
    if (size) {
        tf__catch_fatal(flush_on_fatal, before_us);
        tf__term_arm(); /* the buffer is flushed on SIGTERM and friends too */
    }
}

void tf__dprint_init(void)
{
    tf__at_exit(dprint_lost);
}
