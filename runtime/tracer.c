/*
 * tracer.c: the operation tracer (Java: MethodMonitorFactoryDefaults.operationTracer):
 * each thread's stack of current monitored calls with their arguments, for
 * context in error messages (tf_operation_context) and in crash reports.
 *
 * Arguments are copied at enter (strings up to TRACER_STR bytes), so rendering
 * never dereferences caller memory: the crash handler can render safely.
 *
 * Frames skipped by longjmp are dropped three ways: the longjmp interposer
 * gives the target stack pointer; any event pops frames deeper than itself;
 * an exit or info names its frame and pops what lies above it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define TRACER_ARGS 8
#define TRACER_STR (TF_STR_MAX + 1) /* one more than shown, so a cut still shows "..." */
#define TRACER_DEPTH 4096 /* frames kept per thread; deeper calls are only counted */

struct frame {
    const tf_tu *tu;
    int id;
    uint32_t nargs;           /* as passed; at most TRACER_ARGS are kept */
    uintptr_t sp;
    tf_value args[TRACER_ARGS];
    char str[TRACER_ARGS][TRACER_STR + 1];
};

struct stack {
    int depth;                /* may exceed cap: deeper frames are counted only */
    int cap;                  /* grows by doubling up to TRACER_DEPTH */
    struct frame *frames;
};

/* Hooks allocate with mmap, never malloc (pages.c): a thread's first event
 * may come from a signal handler that interrupted malloc. The key is made
 * at start-up, not on a first event: pthread_once interrupted on its own
 * thread would wait for itself. */
static TF_TLS struct stack *tls;
static pthread_key_t key;

static size_t frames_size(int cap)
{
    return (size_t)cap * sizeof(struct frame);
}

static void stack_free(void *p)
{
    struct stack *s = p; /* runs on the exiting thread itself */
    tls = NULL;
    tf__pages_free(s->frames, frames_size(s->cap));
    tf__pages_free(s, sizeof *s);
}

__attribute__((constructor(101))) static void make_key(void)
{
    pthread_key_create(&key, stack_free);
}

TF_COLD static struct stack *stack_new(void)
{
    tls = tf__pages_alloc(sizeof *tls);
    if (tls)
        pthread_setspecific(key, tls); /* freed at thread exit; libtf's early key: no malloc */
    return tls;
}

static inline struct stack *stack_get(void)
{
    return tls ? tls : stack_new();
}

/* Room for one more frame, up to TRACER_DEPTH. */
TF_COLD static void stack_grow(struct stack *s)
{
    int cap = s->cap ? 2 * s->cap : 16;
    struct frame *v = tf__pages_grow(s->frames, frames_size(s->cap), frames_size(cap));
    if (v) {
        s->frames = v;
        s->cap = cap;
    }
}

/* Pops frames strictly deeper than sp: their functions can no longer run. */
static void drop_below(struct stack *s, uintptr_t sp)
{
    while (s->depth > 0 && s->depth <= s->cap && s->frames[s->depth - 1].sp < sp)
        s->depth--;
}

/* The setjmp caller is never inlined (GCC and LLVM refuse), so of the frames
 * at exactly the target's stack position only the outermost can still run:
 * the others were inlined into it and the jump leaves them. */
static void on_longjmp(uintptr_t target_sp)
{
    struct stack *s = tls;
    if (!s)
        return;
    drop_below(s, target_sp);
    while (s->depth > 1 && s->depth <= s->cap && s->frames[s->depth - 1].sp == target_sp &&
           s->frames[s->depth - 2].sp == target_sp)
        s->depth--;
}

/* A value passed by address (__int128, complex, vector) is kept as it was at
 * entry: the function may change its parameter before the context is shown.
 * One too big to keep is shown unknown. */
static void copy_bytes(struct frame *f, uint32_t i)
{
    tf_value *v = &f->args[i];
    if (v->v.p && v->size <= sizeof f->str[i]) {
        memcpy(f->str[i], v->v.p, v->size);
        v->v.p = f->str[i];
    } else {
        v->kind = TF_K_NONE;
    }
}

static void copy_args(struct frame *f, const tf_args *args)
{
    f->nargs = args && args->values ? args->count : 0;
    for (uint32_t i = 0; i < f->nargs && i < TRACER_ARGS; i++) {
        f->args[i] = args->values[i];
        uint32_t k = f->args[i].kind;
        if (k == TF_K_INT128 || k == TF_K_UINT128 || k == TF_K_COMPLEX || k == TF_K_VECTOR)
            copy_bytes(f, i);
        if (f->args[i].kind == TF_K_STR && f->args[i].v.s) {
            int end;
            size_t n = tf__copy_str(f->str[i], f->args[i].v.s, TRACER_STR, &end);
            f->str[i][n] = 0;
            if (end == TF_STR_FAULT && n == 0)
                f->args[i].kind = TF_K_PTR; /* not a string: shown as the pointer it is */
        }
    }
}

static void t_enter(tf_monitor *self, int id, const tf_args *args)
{
    uintptr_t sp = TF_CALLER_SP();
    TF_GUARD_BEGIN_NOERRNO(1); /* the paths that allocate keep errno (pages.c) */
    struct stack *s = stack_get();
    if (s) {
        drop_below(s, sp);
        if (s->depth == s->cap && s->cap < TRACER_DEPTH)
            stack_grow(s);
        if (s->depth < s->cap) {
            struct frame *f = &s->frames[s->depth];
            f->tu = self->tu;
            f->id = id;
            f->sp = sp;
            copy_args(f, args);
        }
        s->depth++;
    }
    TF_GUARD_END_NOERRNO();
}

/* Pops the innermost frame of (tu, id) and everything above it, if present. */
static void pop_through(struct stack *s, const tf_tu *tu, int id)
{
    if (s->depth > s->cap) {
        s->depth--;
        return;
    }
    for (int i = s->depth - 1; i >= 0; i--)
        if (s->frames[i].tu == tu && s->frames[i].id == id) {
            s->depth = i;
            return;
        }
}

static void t_exit(tf_monitor *self, int id, const tf_value *result)
{
    uintptr_t sp = TF_CALLER_SP();
    TF_GUARD_BEGIN_NOERRNO(0);
    if (tls) {
        drop_below(tls, sp);
        pop_through(tls, self->tu, id);
    }
    TF_GUARD_END_NOERRNO();
}

static void t_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp)
{
    uintptr_t sp = TF_CALLER_SP();
    TF_GUARD_BEGIN_NOERRNO(1);
    if (tls)
        drop_below(tls, sp);
    TF_GUARD_END_NOERRNO();
}

static void t_exception(tf_monitor *self, int id, const tf_exception *exc) {}
static void t_clear(tf_monitor *self)
{
    if (tls)
        tls->depth = 0;
}
static void t_destroy(tf_monitor *self)
{
    free(self);
}

static const tf_monitor_ops tracer_ops = {
    .enter = t_enter, .info = t_info, .exit = t_exit, .exception = t_exception, .clear = t_clear,
    .destroy = t_destroy
};

static tf_monitor *tracer_create(tf_factory *self, const tf_tu *tu)
{
    return tf__monitor_new(&tracer_ops, tu, self);
}

static pthread_once_t hook_once = PTHREAD_ONCE_INIT;
static void hook_longjmp(void)
{
    tf__on_longjmp(on_longjmp);
}

static tf_factory tracer_factory = {
    .name = "tracer", .create = tracer_create, .flags = TF_FACTORY_NO_GUARD
};

TF_API tf_factory *tf_operation_tracer(void)
{
    pthread_once(&hook_once, hook_longjmp);
    return &tracer_factory;
}

static int crash_handler(int own_stack);

/* Named in TF_MONITORS (or tf-ctl): a crash shows the operation context, as
 * the program could ask with tf_operation_tracer_crash_handler(); without it
 * a crash under the tracer showed nothing (docs/design.md .silent.crash).
 * Without an alternate stack of libtf's: the thread making the tracer may
 * be the program's, whose alternate stack is not TF's to change. */
static tf_factory *make_tracer(const char *name)
{
    if (crash_handler(0) != TF_OK)
        fprintf(stderr, "tf: tracer: cannot catch fatal signals: a crash will show no "
                        "operation context\n");
    return tf_operation_tracer();
}
TF_ENV_FACTORY(tracer, "tracer", "keeps each thread's stack of calls with their arguments", make_tracer)

/* ---- rendering (async-signal-safe: no allocation, no locks, no stdio) ---------- */

static void render(tf_buf *b, const struct stack *s)
{
    int kept = s->depth < s->cap ? s->depth : s->cap;
    for (int i = 0; i < kept; i++) {
        const struct frame *f = &s->frames[i];
        tf__buf_puts(b, "  ");
        tf__buf_puts(b, f->tu->name);
        tf__buf_put(b, ".", 1);
        const char *name = tf_method_name(f->tu, f->id);
        if (name)
            tf__buf_puts(b, name);
        else
            tf__buf_int(b, f->id);
        tf_value v[TRACER_ARGS];
        tf_args a = {f->nargs < TRACER_ARGS ? f->nargs : TRACER_ARGS, 0, v};
        for (uint32_t k = 0; k < a.count; k++) {
            v[k] = f->args[k];
            if (v[k].kind == TF_K_STR && v[k].v.s)
                v[k].v.s = f->str[k]; /* the frames move as they grow: never kept as a pointer */
        }
        tf__buf_put(b, "(", 1);
        tf__buf_args(b, &a);
        tf__buf_puts(b, f->nargs > TRACER_ARGS ? ", ...)\n" : ")\n");
    }
    if (s->depth > s->cap) {
        tf__buf_puts(b, "  ... ");
        tf__buf_int(b, s->depth - s->cap);
        tf__buf_puts(b, " deeper calls not kept\n");
    }
}

TF_API size_t tf_operation_context(char *buf, size_t len)
{
    tf_buf b = {buf, len, 0};
    if (tls)
        render(&b, tls);
    return tf__buf_finish(&b);
}

/* ---- crash handler ----------------------------------------------------------- */

static struct sigaction previous[TF_NFATAL];

static void on_crash(int sig, siginfo_t *info, void *uctx)
{
    tf__probe_recover(sig);
    char text[8192], thread[16];
    tf_buf b = {text, sizeof text, 0};
    tf__thread_name(thread);
    tf__buf_puts(&b, "tf: fatal signal ");
    tf__buf_int(&b, sig);
    tf__buf_puts(&b, " in thread ");
    tf__buf_escaped(&b, thread);
    tf__buf_puts(&b, "; operation context (outermost first):\n");
    if (tls && tls->depth)
        render(&b, tls);
    else
        tf__buf_puts(&b, "  (no monitored call active)\n");
    if (b.len > b.cap)
        b.len = b.cap;
    ssize_t unused = write(2, b.p, b.len);
    (void)unused;
    tf__fatal_pass_on(sig, info, uctx, previous); /* usually: die */
}

/* Caught once, whoever asks first (the program, or TF_MONITORS naming
 * tracer): catching twice would make the handler its own "previous" one. */
static int crash_rc = TF_EINVAL;

static void catch_once(void)
{
    crash_rc = tf__catch_fatal(on_crash, previous) != 0 ? TF_EINVAL : TF_OK;
}

static int crash_handler(int own_stack)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (own_stack) {
        static char altstack[64 * 1024];
        stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
        sigaltstack(&ss, NULL); /* this thread can report a stack overflow too */
    }
    pthread_once(&once, catch_once);
    return crash_rc;
}

TF_API int tf_operation_tracer_crash_handler(void)
{
    if (crash_handler(1) != TF_OK)
        return TF_EINVAL;
    tf_operation_tracer();
    return TF_OK;
}
