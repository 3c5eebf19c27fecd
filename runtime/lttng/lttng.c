/*
 * lttng.c: the factory `lttng` (docs/design.md .lttng): every event of a
 * monitored function becomes an LTTng-UST event of provider `tf` (tp.h), so
 * LTTng's session, consumer and relay daemons carry TF's trace across
 * processes and machines, live and as a shared flight recorder.
 *
 * This is libtf-lttng.so, kept out of libtf so that libtf never needs
 * liblttng-ust: libtf loads it the first time TF_MONITORS names `lttng`, and
 * its constructor publishes the factory (tf_env_add_factory). Programs may
 * also link it and call tf_lttng().
 *
 * Values are formatted only when a session enables the event: with no
 * session a hook costs LTTng's one enabled-flag test.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lttng/ust-fork.h>
#include <tf/lttng.h>
#include <tf/registry.h>

#include "tp.h"

#define TF_API __attribute__((visibility("default")))

#define TEXT_MAX 2048 /* args / result text; longer text ends in "..." */
#define TYPE_MAX 64   /* exception types, cut like string values */

struct lt_monitor {
    tf_monitor base;
    const char **funcs; /* "<tu>.<name>" by id, made once per TU */
    int nfuncs;
};

/* ---- the thread id: one syscall per thread; fork gives the child a new one */
static __thread int32_t own_tid;

static int32_t tid(void)
{
    if (!own_tid)
        own_tid = (int32_t)syscall(SYS_gettid);
    return own_tid;
}

static const char *func_of(const tf_monitor *self, int id)
{
    const struct lt_monitor *m = (const struct lt_monitor *)self;
    return id >= 0 && id < m->nfuncs ? m->funcs[id] : "?";
}

/* No value: never an empty string (tp.h says why). */
static const char no_value[] = "void";

/* "p1=v1, p2=v2" with libtf's own value formatting (dprint's syntax, a
 * captured buf[len] too); a text that does not fit ends in "...". */
static const char *args_text(char *buf, size_t cap, const tf_args *a)
{
    if (!a || !a->values || !a->count)
        return no_value;
    tf_args_format(buf, cap, a); /* cut with "..." when too long */
    return buf;
}

static void lt_enter(tf_monitor *self, int id, const tf_args *args)
{
    if (lttng_ust_tracepoint_enabled(tf, enter)) {
        char text[TEXT_MAX];
        lttng_ust_do_tracepoint(tf, enter, func_of(self, id),
                                args_text(text, sizeof text, args), tid());
    }
}

static void lt_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp)
{
    if (lttng_ust_tracepoint_enabled(tf, info)) {
        char text[TEXT_MAX];
        lttng_ust_do_tracepoint(tf, info, func_of(self, caller), func_of(self, id),
                                (uint8_t)tp, args_text(text, sizeof text, args), tid());
    }
}

static void lt_exit(tf_monitor *self, int id, const tf_value *result)
{
    if (lttng_ust_tracepoint_enabled(tf, exit)) {
        char text[TEXT_MAX];
        if (result)
            tf_value_format(text, sizeof text, result);
        lttng_ust_do_tracepoint(tf, exit, func_of(self, id), result ? text : no_value, tid());
    }
}

/* The recorder's `type`: the callee of a noreturn call, else the thrown type. */
static const char *exception_type(const tf_exception *e, char *buf, size_t cap)
{
    if (e && e->kind == TF_EXC_NORETURN)
        snprintf(buf, cap, "%s", e->name ? e->name : "?");
    else
        tf_exception_type(e, buf, cap);
    if (strlen(buf) > TYPE_MAX)
        memcpy(buf + TYPE_MAX, "...", 4);
    return buf;
}

static void lt_exception(tf_monitor *self, int id, const tf_exception *exc)
{
    if (lttng_ust_tracepoint_enabled(tf, exception)) {
        char type[256];
        lttng_ust_do_tracepoint(tf, exception, func_of(self, id), (uint8_t)(exc ? exc->kind : 0),
                                exception_type(exc, type, sizeof type), tid());
    }
}

static void lt_clear(tf_monitor *self) {}

static void lt_destroy(tf_monitor *self)
{
    free(self);
}

static const tf_monitor_ops lt_ops = {
    .enter = lt_enter, .info = lt_info, .exit = lt_exit, .exception = lt_exception,
    .clear = lt_clear, .destroy = lt_destroy,
};

/* One block: the monitor, the pointer table, then the "<tu>.<name>" texts. */
static tf_monitor *lt_create(tf_factory *f, const tf_tu *tu)
{
    size_t bytes = sizeof(struct lt_monitor) + tu->nnames * sizeof(char *);
    for (uint32_t i = 0; i < tu->nnames; i++)
        bytes += strlen(tu->name) + strlen(tu->names[i].name) + 2;
    struct lt_monitor *m = malloc(bytes);
    if (!m)
        return NULL;
    m->base = (tf_monitor){&lt_ops, tu, f};
    m->funcs = (const char **)(m + 1);
    m->nfuncs = (int)tu->nnames;
    char *text = (char *)(m->funcs + tu->nnames);
    for (uint32_t i = 0; i < tu->nnames; i++) {
        m->funcs[i] = text;
        text += sprintf(text, "%s.%s", tu->name, tu->names[i].name) + 1;
    }
    return &m->base;
}

/* flags 0: the registry's guard keeps errno and stops recursion, since
 * liblttng-ust may call out (first event of a thread, buffer switch). */
static tf_factory factory = {.name = "lttng", .create = lt_create};

TF_API tf_factory *tf_lttng(void)
{
    return &factory;
}

/* ---- fork (.req: a forked child traces into the session too) -------------
 * liblttng-ust must be told around fork, or the child's events go nowhere:
 * that is what preloading liblttng-ust-fork.so does, which a library loaded
 * on demand cannot rely on. pthread_atfork handlers do the same; skipped when
 * liblttng-ust-fork.so is loaded anyway, so nothing is done twice. */
static __thread sigset_t fork_sigset;

static void before_fork(void)
{
    lttng_ust_before_fork(&fork_sigset);
}

static void after_fork_parent(void)
{
    lttng_ust_after_fork_parent(&fork_sigset);
}

static void after_fork_child(void)
{
    own_tid = 0;
    lttng_ust_after_fork_child(&fork_sigset);
}

static void reset_tid(void)
{
    own_tid = 0;
}

static tf_factory *make_lttng(const char *name)
{
    return tf_lttng();
}

__attribute__((constructor)) static void tf_lttng_init(void)
{
    void *fork_wrapper = dlopen("liblttng-ust-fork.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (fork_wrapper) {
        dlclose(fork_wrapper); /* drops only the reference NOLOAD took */
        pthread_atfork(NULL, NULL, reset_tid);
    } else {
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    }
    tf_env_add_factory("lttng", make_lttng,
                       "LTTng-UST events tf:enter/exit/info/exception for lttng sessions");
}
