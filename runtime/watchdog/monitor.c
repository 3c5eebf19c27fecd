/*
 * monitor.c: the watchdog's own light monitor (.wd.monitor). The hooks call
 * only the monitors of groups that have one, so while a watchdog runs the
 * registry composes this factory into every holder (tf__registry_watch_every):
 * every selected monitored function is watched, whatever else is registered.
 *
 * enter: push a frame (function, time, stack position, the arguments kept)
 * and count an event; exit: pop it and count an event. A call the watchdog
 * reported gets one more line when it returns, written here with write(2)
 * from integer arithmetic only (a hook may run in a signal handler, and
 * must not touch the floating-point environment). Frames a longjmp skipped
 * are dropped by stack position, as the tracer does.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watchdog.h"
#include "../clock.h"

/* ---- clock ticks to nanoseconds, without floating point in hooks ---------- */

static uint64_t mult = 1u << 20; /* ns = ticks * mult >> 20 (1 ns a tick until calibrated) */

void wd_clock_start(void)
{
    tf__clock_init();
    double hz = tf__clock_hz(1);
    if (hz > 0)
        __atomic_store_n(&mult, (uint64_t)(1e9 / hz * (double)(1u << 20)), __ATOMIC_RELAXED);
}

uint64_t wd_ns(uint64_t ticks)
{
    return (uint64_t)(((unsigned __int128)ticks * __atomic_load_n(&mult, __ATOMIC_RELAXED)) >> 20);
}

void wd_buf_duration(tf_buf *b, uint64_t ns)
{
    uint64_t unit = ns >= 1000000000u ? 10000000u : 100000u; /* centiseconds, tenths of ms */
    uint64_t v = (ns + unit / 2) / unit;
    tf__buf_uint(b, v / (unit == 10000000u ? 100 : 10));
    tf__buf_put(b, ".", 1);
    if (unit == 10000000u && v % 100 < 10)
        tf__buf_put(b, "0", 1);
    tf__buf_uint(b, unit == 10000000u ? v % 100 : v % 10);
    tf__buf_puts(b, unit == 10000000u ? " s" : " ms");
}

void wd_buf_escaped(tf_buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
        if (c < 0x20 || c == 0x7f)
            tf__buf_put(b, esc, 4);
        else
            tf__buf_put(b, s, 1);
    }
}

/* ---- arguments kept at entry ------------------------------------------------ */

/* A value passed by address (__int128, complex, vector) is copied as it was
 * at entry; one too big to keep is shown unknown ('?'). */
static void keep_bytes(wd_frame *f, uint32_t i)
{
    tf_value *v = &f->args[i];
    if (v->v.p && v->size <= sizeof f->str[i]) {
        memcpy(f->str[i], v->v.p, v->size);
        v->v.p = f->str[i];
    } else {
        v->kind = TF_K_NONE;
    }
}

static void keep_args(wd_frame *f, const tf_args *args)
{
    f->nargs = args && args->values ? args->count : 0;
    for (uint32_t i = 0; i < f->nargs && i < WD_ARGS; i++) {
        tf_value *v = &f->args[i];
        *v = args->values[i];
        if (v->kind == TF_K_INT128 || v->kind == TF_K_UINT128 || v->kind == TF_K_COMPLEX ||
            v->kind == TF_K_VECTOR)
            keep_bytes(f, i);
        if (v->kind == TF_K_STR && v->v.s) {
            int end;
            size_t n = tf__copy_str(f->str[i], v->v.s, WD_STR, &end);
            f->str[i][n] = 0;
            if (end == TF_STR_FAULT && n == 0)
                v->kind = TF_K_PTR; /* not a string: shown as the pointer it is */
            else
                v->v.s = f->str[i];
        }
    }
}

/* ---- the hooks ---------------------------------------------------------------- */

/* Pops frames strictly deeper than sp: a longjmp left them. */
TF_COLD static void drop_below(wd_thread *t, uintptr_t sp)
{
    int d = t->depth;
    while (d > 0) {
        wd_frame *f = wd_own_frame(t, d - 1);
        if (!f || f->sp >= sp)
            break;
        d--;
    }
    __atomic_store_n(&t->depth, d, __ATOMIC_RELEASE);
}

/* The innermost frame is no deeper than sp: the common case, checked in
 * line; else the frames a longjmp left are dropped. */
static inline void live_at(wd_thread *t, uintptr_t sp)
{
    wd_frame *top = t->depth > 0 ? wd_own_frame(t, t->depth - 1) : NULL;
    if (__builtin_expect(top && top->sp < sp, 0))
        drop_below(t, sp);
}

/* A longjmp to target_sp leaves the frames below it; of the frames at
 * exactly that position only the outermost can still run (the setjmp
 * caller is never inlined: the others were inlined into it). As the
 * tracer does; called by libtf's longjmp on the jumping thread. */
static void on_longjmp(uintptr_t target_sp)
{
    wd_thread *t = wd_me;
    if (!t)
        return;
    drop_below(t, target_sp);
    for (int d = t->depth; d > 1; d--) {
        wd_frame *top = wd_own_frame(t, d - 1), *below = wd_own_frame(t, d - 2);
        if (!top || !below || top->sp != target_sp || below->sp != target_sp)
            break;
        __atomic_store_n(&t->depth, d - 1, __ATOMIC_RELEASE);
    }
}

static void w_enter(tf_monitor *self, int id, const tf_args *args)
{
    uintptr_t sp = TF_CALLER_SP();
    TF_GUARD_BEGIN_NOERRNO(1); /* the paths that allocate keep errno (pages.c) */
    wd_thread *t = wd_self();
    if (__builtin_expect(t != NULL, 1)) {
        live_at(t, sp);
        int d = t->depth;
        uint64_t seq = t->events + 1;
        wd_frame *f = wd_own_frame(t, d);
        if (__builtin_expect(!f, 0))
            f = wd_frame_make(t, d);
        if (f) {
            __atomic_store_n(&f->seq, 0, __ATOMIC_RELAXED);
            __atomic_thread_fence(__ATOMIC_RELEASE);
            f->tu = self->tu;
            f->id = id;
            f->sp = sp;
            f->t0 = tf__clock_now();
            keep_args(f, args);
            __atomic_store_n(&f->seq, seq, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&t->depth, d + 1, __ATOMIC_RELEASE);
        __atomic_store_n(&t->events, seq, __ATOMIC_RELEASE);
    }
    TF_GUARD_END_NOERRNO();
}

/* "tf: watchdog: thread 4242 (app): app.nap returned after 5.00 s\n" */
TF_COLD static void say_returned(const wd_thread *t, const wd_frame *f)
{
    char line[512];
    tf_buf b = {line, sizeof line - 1, 0};
    tf__buf_puts(&b, "tf: watchdog: thread ");
    tf__buf_int(&b, t->tid);
    char name[16];
    tf__thread_name(name);
    tf__buf_puts(&b, " (");
    wd_buf_escaped(&b, name);
    tf__buf_puts(&b, "): ");
    tf__buf_puts(&b, f->tu->name);
    tf__buf_put(&b, ".", 1);
    const char *fn = tf_method_name(f->tu, f->id);
    if (fn)
        tf__buf_puts(&b, fn);
    else
        tf__buf_int(&b, f->id);
    tf__buf_puts(&b, " returned after ");
    wd_buf_duration(&b, wd_ns(tf__clock_now() - f->t0));
    size_t n = b.len < sizeof line - 1 ? b.len : sizeof line - 2;
    line[n] = '\n';
    TF_KEEP_ERRNO();
    ssize_t unused = write(2, line, n + 1);
    (void)unused;
    TF_RESTORE_ERRNO();
}

/* Pops the innermost frame of (tu, id) and everything above it; a frame
 * deeper than the chunks keep is only counted. */
TF_COLD static void pop_through(wd_thread *t, const tf_tu *tu, int id)
{
    for (int i = t->depth - 1; i >= 0; i--) {
        wd_frame *f = wd_own_frame(t, i);
        if (!f) {
            if (i == t->depth - 1) { /* not kept: trust the nesting */
                __atomic_store_n(&t->depth, i, __ATOMIC_RELEASE);
                return;
            }
            continue;
        }
        if (f->tu != tu || f->id != id)
            continue;
        if (__atomic_load_n(&f->mark, __ATOMIC_RELAXED) == f->seq)
            say_returned(t, f);
        __atomic_store_n(&t->depth, i, __ATOMIC_RELEASE);
        return;
    }
}

static void w_exit(tf_monitor *self, int id, const tf_value *result)
{
    uintptr_t sp = TF_CALLER_SP();
    TF_GUARD_BEGIN_NOERRNO(0);
    wd_thread *t = wd_me;
    if (__builtin_expect(t != NULL, 1)) {
        live_at(t, sp);
        int d = t->depth;
        wd_frame *top = d > 0 ? wd_own_frame(t, d - 1) : NULL;
        /* the common case: the innermost frame is this call's, not reported */
        if (__builtin_expect(top && top->tu == self->tu && top->id == id &&
                             __atomic_load_n(&top->mark, __ATOMIC_RELAXED) != top->seq, 1))
            __atomic_store_n(&t->depth, d - 1, __ATOMIC_RELEASE);
        else
            pop_through(t, self->tu, id);
        __atomic_store_n(&t->events, t->events + 1, __ATOMIC_RELEASE);
    }
    TF_GUARD_END_NOERRNO();
}

static void w_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp) {}
static void w_exception(tf_monitor *self, int id, const tf_exception *exc) {}
static void w_clear(tf_monitor *self) {}
static void w_destroy(tf_monitor *self)
{
    free(self);
}

static const tf_monitor_ops ops = {
    .enter = w_enter, .info = w_info, .exit = w_exit, .exception = w_exception, .clear = w_clear,
    .destroy = w_destroy
};

static tf_monitor *create(tf_factory *self, const tf_tu *tu)
{
    return tf__monitor_new(&ops, tu, self);
}

static tf_factory factory = {.name = "watchdog", .create = create, .flags = TF_FACTORY_NO_GUARD};

static pthread_once_t hook_once = PTHREAD_ONCE_INIT;
static void hook_longjmp(void)
{
    tf__on_longjmp(on_longjmp);
}

tf_factory *wd_factory(void)
{
    pthread_once(&hook_once, hook_longjmp);
    return &factory;
}
