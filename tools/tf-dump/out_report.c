/*
 * out_report.c: the timing report of docs/design.md .timing, computed from a
 * recording by libtf's own timing monitor rather than a second
 * implementation: each recorded TU becomes a tf_tu (group: the TU's name,
 * since a recording names functions, not their groups), and each recorded
 * thread's events are replayed on a thread of our own into the monitor's
 * hooks (info pairs too: their timing points), with a clock that returns
 * the recorded times. The report's format
 * follows the output file's name as TF_REPORT's does (.json, .csv, text).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <tf/timing.h>

#include "dump.h"
#include "report_tus.h"

typedef struct rec {      /* one recorded enter, exit, unwind or info pair's half */
    int64_t ns;
    uint32_t func;
    uint32_t caller;      /* R_INFO_*: the monitored function it was called in */
    uint8_t kind;
} rec;

typedef struct rthread {
    int64_t pid, tid;
    rec *ev;
    size_t n, cap;
} rthread;

struct report {
    td_output base;
    FILE *out;
    const char *path;
    rthread *threads;
    uint32_t nthreads, tcap;
    func *funcs;
    uint32_t nfuncs, fcap;
    uint32_t *slots, nslots; /* open addressing on the name: funcs index + 1, 0 free */
    int oom;
};

enum { R_ENTER, R_EXIT, R_UNWIND, R_INFO_ENTER, R_INFO_EXIT };

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

/* The slot holding full, or the free slot where it goes. */
static uint32_t *slot_of(const struct report *r, const char *full)
{
    uint32_t i = name_hash(full) & (r->nslots - 1);
    while (r->slots[i] && strcmp(r->funcs[r->slots[i] - 1].full, full) != 0)
        i = (i + 1) & (r->nslots - 1);
    return &r->slots[i];
}

/* Kept at most half full, so every event's look-up is a probe or two. */
static int rehash(struct report *r)
{
    uint32_t n = r->nslots ? 2 * r->nslots : 256;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return 0;
    free(r->slots);
    r->slots = slots;
    r->nslots = n;
    for (uint32_t i = 0; i < r->nfuncs; i++)
        *slot_of(r, r->funcs[i].full) = i + 1;
    return 1;
}

static uint32_t func_index(struct report *r, const char *full)
{
    if (2 * (r->nfuncs + 1) > r->nslots && !rehash(r))
        return UINT32_MAX;
    uint32_t *slot = slot_of(r, full);
    if (*slot)
        return *slot - 1;
    if (!td_grow(&r->funcs, &r->fcap, r->nfuncs, sizeof *r->funcs, 64))
        return UINT32_MAX;
    r->funcs[r->nfuncs].flags = 0;
    if (!(r->funcs[r->nfuncs].full = strdup(full)))
        return UINT32_MAX;
    *slot = ++r->nfuncs;
    return r->nfuncs - 1;
}

static rthread *thread_of(struct report *r, const td_event *e)
{
    for (uint32_t i = r->nthreads; i > 0; i--)
        if (r->threads[i - 1].tid == e->tid && r->threads[i - 1].pid == e->pid)
            return &r->threads[i - 1];
    if (!td_grow(&r->threads, &r->tcap, r->nthreads, sizeof *r->threads, 16))
        return NULL;
    rthread *t = &r->threads[r->nthreads++];
    *t = (rthread){e->pid, e->tid, NULL, 0, 0};
    return t;
}

/* An info pair's half: its timing point is the info function's name. */
static int info_kind(const td_event *e)
{
    if (!e->info || !e->info_tp)
        return -1;
    return strcmp(e->info_tp, "enter") == 0 ? R_INFO_ENTER : strcmp(e->info_tp, "exit") == 0 ? R_INFO_EXIT : -1;
}

static int r_event(void *self, const td_event *e)
{
    struct report *r = self;
    int kind = e->kind == TD_ENTER ? R_ENTER : e->kind == TD_EXIT ? R_EXIT
             : e->kind == TD_INFO  ? info_kind(e) : R_UNWIND;
    if (kind < 0 || e->kind == TD_SIGNAL ||
        (e->kind == TD_EXCEPTION && (!e->exc_kind || strcmp(e->exc_kind, "unwind"))))
        return 0; /* only unwinds (and info pairs) change the timing of a call */
    rthread *t = thread_of(r, e);
    uint32_t f = func_index(r, kind >= R_INFO_ENTER ? e->info : e->func);
    uint32_t caller = kind >= R_INFO_ENTER ? func_index(r, e->func) : f;
    if (kind >= R_INFO_ENTER && f != UINT32_MAX)
        r->funcs[f].flags |= kind == R_INFO_ENTER ? TF_NAME_TP_ENTER : TF_NAME_TP_EXIT;
    if (t && f != UINT32_MAX && t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        rec *ev = realloc(t->ev, cap * sizeof *ev);
        t->ev = ev ? ev : t->ev;
        t->cap = ev ? cap : t->cap;
    }
    if (!t || f == UINT32_MAX || caller == UINT32_MAX || t->n == t->cap) {
        fputs("tf-dump: out of memory\n", stderr);
        return r->oom = 1;
    }
    t->ev[t->n++] = (rec){e->ns, f, caller, (uint8_t)kind};
    return 0;
}

/* ---- replay ---------------------------------------------------------------- */
static _Thread_local uint64_t replay_now;

static uint64_t recorded_clock(void *arg)
{
    return replay_now;
}

struct replay {
    struct report *r;
    rthread *t;
    tf_monitor **monitors; /* by TU */
};

static void *replay_thread(void *arg)
{
    struct replay *p = arg;
    for (size_t i = 0; i < p->t->n; i++) {
        const rec *ev = &p->t->ev[i];
        const func *f = &p->r->funcs[ev->func];
        tf_monitor *m = p->monitors[f->tu];
        replay_now = (uint64_t)ev->ns;
        if (ev->kind == R_ENTER)
            m->ops->enter(m, (int)f->id, NULL);
        else if (ev->kind == R_EXIT)
            m->ops->exit(m, (int)f->id, NULL);
        else if (ev->kind >= R_INFO_ENTER)
            m->ops->info(m, NULL, (int)p->r->funcs[ev->caller].id, (int)f->id,
                         ev->kind == R_INFO_ENTER ? TF_TP_ENTER : TF_TP_EXIT);
        else
            m->ops->exception(m, (int)f->id, &(tf_exception){TF_EXC_UNWIND, 0, NULL, NULL});
    }
    return NULL;
}

static int replay_all(struct report *r, tf_timing_manager *tm, tf_monitor **monitors)
{
    for (uint32_t i = 0; i < r->nthreads; i++) {
        struct replay p = {r, &r->threads[i], monitors};
        pthread_t th;
        if (pthread_create(&th, NULL, replay_thread, &p) != 0) {
            fputs("tf-dump: cannot start a thread\n", stderr);
            return 1;
        }
        pthread_join(th, NULL);
    }
    int rc = tf_timing_report(tm, r->out, r->path ? tf_timing_format_for_path(r->path) : TF_TIMING_TEXT);
    return rc != TF_OK;
}

static int r_finish(void *self)
{
    struct report *r = self;
    int rc = r->oom;
    td_tus tus;
    tf_timing_manager *tm = tf_timing_manager_create();
    if (!rc && (!tm || td_tus_build(&tus, r->funcs, r->nfuncs) != 0))
        rc = fputs("tf-dump: out of memory\n", stderr) | 1;
    else if (!rc) {
        tf_timing_set_clock(tm, recorded_clock, NULL, 1e9);
        tf_timing_name_clock(tm, "the recorded timestamps");
        tf_monitor **monitors = td_tus_monitors(&tus, tf_timing(tm));
        rc = monitors ? replay_all(r, tm, monitors) : 1;
        td_tus_free(&tus, monitors);
    }
    if (tm)
        tf_timing_manager_destroy(tm);
    for (uint32_t i = 0; i < r->nthreads; i++)
        free(r->threads[i].ev);
    for (uint32_t i = 0; i < r->nfuncs; i++)
        free(r->funcs[i].full);
    free(r->threads);
    free(r->funcs);
    free(r->slots);
    return rc || fflush(r->out) != 0 || ferror(r->out);
}

td_output *td_report_new(FILE *out, const char *path)
{
    struct report *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->base = (td_output){r, r_event, r_finish, NULL}; /* the timing report has no counters */
    r->out = out;
    r->path = path && strcmp(path, "-") ? path : NULL;
    return &r->base;
}
