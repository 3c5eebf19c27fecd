/*
 * cond.c: conditions (SmartMonitor's filters; uftrace's -t, -D and if:argN).
 * A condition wraps any factory: its monitors pass the inner monitor's events
 * on only for calls that satisfy every comparison.
 *
 * depth and argument comparisons are decided at entry. A time comparison is
 * decided at exit, so the entry is held back until then and passed on just
 * before the exit (with the exception, if one was reported): text stays
 * paired, the entry line printed with its exit. Info events pass with the
 * call they are in, except inside a call whose entry is held back (they would
 * come before the entry). Arguments held back are copied, strings cut to what
 * dprint shows and read with tf__copy_str (a `char *` may hold anything).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "../locks.h"

#define HELD_ARGS 16

enum { PASSED = 1, HELD = 2 };

struct cond_factory {
    tf_factory base;
    tf_factory *inner;
    tf_cond cond;
    int has_time;
    unsigned arg_terms;        /* tf__cond_arg_terms: to be met by some call */
    tf_cond_seen seen;         /* which were, checked at exit (.silent.args) */
    char where[128];           /* where it was written; "" to say nothing */
    struct cond_factory *next; /* every one written somewhere */
};

struct cond_monitor {
    tf_monitor base;
    tf_monitor *inner;
    struct cond_factory *cf;
};

struct held {
    tf_args args;
    tf_value values[HELD_ARGS];
    char strs[HELD_ARGS][TF_STR_MAX + 2];
    int has_exc;
    tf_exception exc;
};

/* The inner monitor sees the monitored function's stack position. */
#define FORWARD(m, sp, op, ...)                                                \
    do {                                                                       \
        uintptr_t outer = tf__hook_sp;                                         \
        tf__hook_sp = (sp);                                                    \
        (m)->inner->ops->op((m)->inner, __VA_ARGS__);                          \
        tf__hook_sp = outer;                                                   \
    } while (0)

/* A copy one byte longer than dprint shows, so a cut string stays cut; a
 * `char *` that points to no string is passed on as the pointer it is. */
static void hold_str(tf_value *v, char *copy)
{
    int end;
    size_t n = tf__copy_str(copy, v->v.s, TF_STR_MAX + 1, &end);
    copy[n] = 0;
    if (end == TF_STR_FAULT && n == 0)
        v->kind = TF_K_PTR;
    else
        v->v.s = copy;
}

static struct held *hold(tf_cframe *f, const tf_args *args)
{
    struct held *h = tf__cframe_data(f, sizeof *h);
    if (!h || !args)
        return h;
    uint32_t n = args->count < HELD_ARGS ? args->count : HELD_ARGS;
    for (uint32_t k = 0; k < n; k++) {
        h->values[k] = args->values[k];
        if (args->values[k].kind == TF_K_STR && args->values[k].v.s)
            hold_str(&h->values[k], h->strs[k]);
    }
    h->args = (tf_args){n, 0, h->values};
    return h;
}

static void c_enter(tf_monitor *self, int id, const tf_args *args)
{
    TF_SKIP_IF_IN_MONITOR(1) /* a monitor's own calls; signal handlers' */
    struct cond_monitor *m = (void *)self;
    uintptr_t sp = TF_CALLER_SP();
    if (m->cf->arg_terms)
        tf__cond_note(&m->cf->cond, &m->cf->seen, args);
    tf_cframe *f = tf__cframe_push(m, sp, id);
    if (f && tf__cond_enter_ok(&m->cf->cond, f->depth, args)) {
        f->flags = PASSED;
        if (m->cf->has_time) {
            f->t0 = tf__now_ns();
            f->flags |= HELD;
            hold(f, args);
        } else {
            FORWARD(m, sp, enter, id, args);
        }
    }
}

static void release_held(struct cond_monitor *m, uintptr_t sp, tf_cframe *f)
{
    struct held *h = f->data;
    FORWARD(m, sp, enter, f->id, h ? &h->args : NULL);
    if (h && h->has_exc)
        FORWARD(m, sp, exception, f->id, &h->exc);
}

static void c_exit(tf_monitor *self, int id, const tf_value *result)
{
    TF_SKIP_IF_IN_MONITOR(0) /* a monitor's own calls; signal handlers' */
    struct cond_monitor *m = (void *)self;
    uintptr_t sp = TF_CALLER_SP();
    tf_cframe *f = tf__cframe_find(m, sp, id);
    if (f) {
        int pass = f->flags & PASSED;
        if (pass && (f->flags & HELD)) {
            pass = tf__cond_time_ok(&m->cf->cond, tf__now_ns() - f->t0);
            if (pass)
                release_held(m, sp, f);
        }
        tf__cframe_pop(f);
        if (pass)
            FORWARD(m, sp, exit, id, result);
    }
}

static void c_exception(tf_monitor *self, int id, const tf_exception *exc)
{
    TF_SKIP_IF_IN_MONITOR(0) /* a monitor's own calls; signal handlers' */
    struct cond_monitor *m = (void *)self;
    uintptr_t sp = TF_CALLER_SP();
    tf_cframe *f = tf__cframe_find(m, sp, id);
    if (f && (f->flags & HELD) && f->data) {
        struct held *h = f->data;
        h->has_exc = 1; /* the last one reported is what left the call */
        h->exc = *exc;
    } else if (f && (f->flags & PASSED)) {
        FORWARD(m, sp, exception, id, exc);
    }
}

static void c_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp)
{
    TF_SKIP_IF_IN_MONITOR(1) /* a monitor's own calls; signal handlers' */
    struct cond_monitor *m = (void *)self;
    uintptr_t sp = TF_CALLER_SP();
    tf_cframe *f = tf__cframe_top(m, sp);
    if (f && f->flags == PASSED)
        FORWARD(m, sp, info, args, caller, id, tp);
}

static void c_clear(tf_monitor *self)
{
    struct cond_monitor *m = (void *)self;
    if (m->inner->ops->clear)
        m->inner->ops->clear(m->inner);
}

static void c_destroy(tf_monitor *self)
{
    struct cond_monitor *m = (void *)self;
    if (m->inner->ops->destroy)
        m->inner->ops->destroy(m->inner);
    free(m);
}

/* [1]: neither the condition nor the inner monitor reads values. */
static const tf_monitor_ops cond_ops[2] = {
    {c_enter, c_info, c_exit, c_exception, c_clear, c_destroy, 0},
    {c_enter, c_info, c_exit, c_exception, c_clear, c_destroy, TF_OPS_NO_VALUES},
};

static tf_monitor *cond_create(tf_factory *self, const tf_tu *tu)
{
    struct cond_factory *cf = (void *)self;
    tf_monitor *inner = tf__monitor_create(cf->inner, tu);
    struct cond_monitor *m = inner ? calloc(1, sizeof *m) : NULL;
    if (!m) {
        if (inner && inner->ops->destroy)
            inner->ops->destroy(inner);
        return NULL;
    }
    int no_values = (inner->ops->flags & TF_OPS_NO_VALUES) && !tf__cond_has(&cf->cond, TF_C_ARG);
    m->base = (tf_monitor){&cond_ops[no_values], tu, self};
    m->inner = inner;
    m->cf = cf;
    return &m->base;
}

tf_factory *tf__cond_factory(tf_factory *inner, const tf_cond *cond)
{
    struct cond_factory *cf = calloc(1, sizeof *cf);
    if (!cf)
        return NULL;
    cf->base = (tf_factory){"cond", cond_create, TF_FACTORY_NO_GUARD};
    cf->inner = inner;
    cf->cond = *cond;
    cf->has_time = tf__cond_has(cond, TF_C_TIME);
    cf->arg_terms = tf__cond_arg_terms(cond);
    return &cf->base;
}

static pthread_mutex_t written_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cond_factory *written;

/* At exit: a term on an argument no call of its group had let nothing pass. */
static void check_at_exit(void)
{
    pthread_mutex_lock(&written_lock);
    for (struct cond_factory *cf = written; cf; cf = cf->next) {
        char why[1024];
        if (tf__cond_unmet(&cf->cond, &cf->seen, why, sizeof why))
            fprintf(stderr, "tf: %s: %s\n", cf->where, why);
    }
    pthread_mutex_unlock(&written_lock);
}

void tf__cond_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&written_lock);
    else
        pthread_mutex_unlock(&written_lock);
}

void tf__cond_written(tf_factory *f, const char *where)
{
    struct cond_factory *cf = (void *)f;
    if (!cf->arg_terms)
        return;
    snprintf(cf->where, sizeof cf->where, "%s", where);
    pthread_mutex_lock(&written_lock);
    if (!written)
        tf__at_exit(check_at_exit);
    cf->next = written;
    written = cf;
    pthread_mutex_unlock(&written_lock);
}
