/*
 * filter.c: the filter stage (filter.h, docs/design.md .ask.filter).
 *
 * Each thread's open calls are tracked as the outputs track them (an exit
 * closes the innermost open call of its function and any above it). A call
 * is kept when its thread matches --thread, it is or runs inside a call
 * matching --function, it is less than --depth levels below the outermost
 * call counted (the --function match, else the thread's outermost), and it
 * or a kept caller began inside --from/--to. --min-duration is known only
 * when a call ends, or once it has lasted that long: until then the events
 * of a call that may be dropped are held (hold.h), and so is every later
 * event, so that what goes on keeps its time order. Held events are the
 * ones of the last --min-duration of the recording at most: a call open
 * that long is decided then, by any thread's event (events come in time
 * order: a shorter call's exit would have come first). A call without an
 * exit lasted until the recording's last event, as far as it tells.
 */
#include <fnmatch.h>
#include <string.h>

#include "filter.h"
#include "hold.h"
#include "intern.h"
#include "names.h"

enum fate { KEEP, DROP, PENDING };

typedef struct frame {     /* an open call */
    uint32_t func;         /* its number in names */
    int64_t start;
    uint64_t seq;          /* names it in the pending list */
    uint32_t rel;          /* levels below the outermost call counted */
    uint8_t fate, inside, in_time;
    uint64_t *held;        /* queue positions of its events waiting for its fate */
    uint32_t nheld, cheld;
} frame;

typedef struct fthread {
    int64_t pid, tid;
    char *name;
    int ok;                /* matches --thread */
    frame *frames;
    uint32_t depth, cap, used; /* frames[0..used) were set once: their held lists are theirs */
    int64_t last;
} fthread;

typedef struct waiting {   /* a held event */
    td_held *h;
    uint8_t fate;
} waiting;

typedef struct pending {   /* a call waiting for --min-duration's verdict */
    fthread *t;
    uint32_t at;
    uint64_t seq;
} pending;

struct filter {
    td_output base, *next;
    const td_filter_opts *o;
    int64_t *origin_out, origin, now; /* now: the latest event's time */
    int started, structural, failed;
    fthread **threads;
    uint32_t nthreads, cthreads;
    td_names names;        /* the functions seen */
    uint8_t *match;        /* by function: matches a --function glob */
    uint32_t cmatch;
    waiting *q;            /* a ring: positions qhead..qtail, index % qcap */
    uint64_t qhead, qtail, qcap;
    pending *p;            /* a ring too, in order of start */
    uint64_t phead, ptail, pcap, seq;
    uint64_t unmatched;
    uint8_t *thread_hit, *function_hit; /* per --thread / --function value */
};

static int oom(struct filter *f)
{
    if (!f->failed)
        fputs("tf-dump: out of memory\n", stderr);
    return f->failed = 1;
}

/* ---- names ------------------------------------------------------------- */
static int matches(const char *glob, const char *func)
{
    return fnmatch(glob, func, 0) == 0 || fnmatch(glob, td_short_name(func), 0) == 0;
}

/* func's number in f->names; its --function match worked out once. */
static uint32_t intern(struct filter *f, const char *func)
{
    int added;
    uint32_t i = td_names_add(&f->names, func, &added);
    if (i == UINT32_MAX || (added && !td_grow(&f->match, &f->cmatch, i, 1, 64)))
        return UINT32_MAX;
    if (added) {
        f->match[i] = 0;
        for (uint32_t k = 0; k < f->o->nfunctions; k++)
            if (matches(f->o->functions[k], func))
                f->match[i] = f->function_hit[k] = 1;
    }
    return i;
}

/* ---- threads ------------------------------------------------------------- */
static int thread_ok(struct filter *f, const td_event *e)
{
    int ok = !f->o->nthreads;
    for (uint32_t i = 0; i < f->o->nthreads; i++) {
        const char *v = f->o->threads[i], *end;
        long long tid = strtoll(v, (char **)&end, 10);
        if ((*v >= '0' && *v <= '9' && !*end) ? tid == e->tid : fnmatch(v, e->thread, 0) == 0)
            ok = f->thread_hit[i] = 1;
    }
    return ok;
}

static fthread *thread_of(struct filter *f, const td_event *e)
{
    for (uint32_t i = f->nthreads; i > 0; i--)
        if (f->threads[i - 1]->tid == e->tid && f->threads[i - 1]->pid == e->pid)
            return f->threads[i - 1];
    if (!td_grow(&f->threads, &f->cthreads, f->nthreads, sizeof *f->threads, 16))
        return NULL;
    fthread *t = calloc(1, sizeof *t);
    if (!t || !(t->name = strdup(e->thread))) {
        free(t);
        return NULL;
    }
    t->pid = e->pid;
    t->tid = e->tid;
    t->ok = thread_ok(f, e);
    return f->threads[f->nthreads++] = t;
}

/* ---- the held events ----------------------------------------------------- */
static int emit(struct filter *f, const td_event *e)
{
    if (!f->failed && f->next->event(f->next->self, e))
        f->failed = 1;
    return f->failed;
}

/* Passes on every held event from the oldest up to the first undecided. */
static void flush(struct filter *f)
{
    while (f->qhead < f->qtail && f->q[f->qhead % f->qcap].fate != PENDING) {
        waiting *w = &f->q[f->qhead++ % f->qcap];
        if (w->fate == KEEP)
            emit(f, td_held_event(w->h));
        free(w->h);
    }
}

static int grow_ring(void *ring, uint64_t *cap, uint64_t head, uint64_t tail, size_t size)
{
    if (tail - head < *cap)
        return 1;
    uint64_t n = *cap ? 2 * *cap : 256;
    char *r = malloc(n * size), *old = *(char **)ring;
    if (!r)
        return 0;
    for (uint64_t i = head; i < tail; i++)
        memcpy(r + (i % n) * size, old + (i % *cap) * size, size);
    free(old);
    *(char **)ring = r;
    *cap = n;
    return 1;
}

static void set_fate(struct filter *f, frame *fr, enum fate fate)
{
    fr->fate = (uint8_t)fate;
    for (uint32_t i = 0; i < fr->nheld; i++)
        f->q[fr->held[i] % f->qcap].fate = (uint8_t)fate;
    fr->nheld = 0;
}

/* e goes on, is dropped or waits, by fate; a PENDING event waits for the
 * fate of t's frame at. */
static int route(struct filter *f, const td_event *e, enum fate fate, fthread *t, uint32_t at)
{
    if (fate == DROP)
        return f->failed;
    if (fate == KEEP && f->qhead == f->qtail)
        return emit(f, e);
    td_held *h = td_hold(e);
    if (!h || !grow_ring(&f->q, &f->qcap, f->qhead, f->qtail, sizeof *f->q))
        return free(h), oom(f);
    if (fate == PENDING) {
        frame *fr = &t->frames[at];
        if (!td_grow(&fr->held, &fr->cheld, fr->nheld, sizeof *fr->held, 4))
            return free(h), oom(f);
        fr->held[fr->nheld++] = f->qtail;
    }
    f->q[f->qtail++ % f->qcap] = (waiting){h, (uint8_t)fate};
    return f->failed;
}

/* Every waiting call open for --min-duration by now is kept. Calls begin in
 * time order, so the oldest decides first; calls that ended are skipped. */
static void decide_elapsed(struct filter *f, int64_t now)
{
    while (f->phead < f->ptail) {
        pending *p = &f->p[f->phead % f->pcap];
        frame *fr = p->at < p->t->depth ? &p->t->frames[p->at] : NULL;
        if (fr && fr->seq == p->seq && fr->fate == PENDING) {
            if (now - fr->start < f->o->min_dur)
                return;
            set_fate(f, fr, KEEP);
        }
        f->phead++;
    }
}

/* ---- calls --------------------------------------------------------------- */
static int in_window(const struct filter *f, int64_t ns)
{
    const td_when *from = &f->o->from, *to = &f->o->to;
    if (from->text && ns < from->ns + (from->relative ? f->origin : 0))
        return 0;
    return !to->text || ns <= to->ns + (to->relative ? f->origin : 0);
}

static int on_enter(struct filter *f, fthread *t, const td_event *e)
{
    uint32_t n = intern(f, e->func);
    if (n == UINT32_MAX || !td_grow(&t->frames, &t->cap, t->depth, sizeof *t->frames, 64))
        return oom(f);
    frame *parent = t->depth ? &t->frames[t->depth - 1] : NULL;
    int any = f->o->nfunctions == 0;
    int outermost = f->match[n] && !(parent && parent->inside);
    uint32_t rel = parent && !outermost ? parent->rel + 1 : 0;
    int inside = any || f->match[n] || (parent && parent->inside);
    int in_time = (parent && parent->in_time) || in_window(f, e->ns);
    int keep = t->ok && inside && in_time && (!f->o->depth || rel < f->o->depth);
    uint32_t at = t->depth++;
    frame *fr = &t->frames[at];
    uint64_t *held = at < t->used ? fr->held : NULL; /* a slot's list is reused */
    uint32_t cheld = at < t->used ? fr->cheld : 0;
    t->used = at < t->used ? t->used : at + 1;
    *fr = (frame){n, e->ns, ++f->seq, rel, DROP, (uint8_t)inside, (uint8_t)in_time, held, 0, cheld};
    if (keep && !f->o->min_dur)
        fr->fate = KEEP;
    if (keep && f->o->min_dur) {
        if (!grow_ring(&f->p, &f->pcap, f->phead, f->ptail, sizeof *f->p))
            return oom(f);
        f->p[f->ptail++ % f->pcap] = (pending){t, at, fr->seq};
        fr->fate = PENDING;
    }
    return route(f, e, (enum fate)fr->fate, t, at);
}

/* Closes t's innermost call at now: a waiting one is decided by how long it
 * lasted (for a call left by longjmp or still open at the end: until now). */
static void close_top(struct filter *f, fthread *t, int64_t now)
{
    frame *fr = &t->frames[t->depth - 1];
    if (fr->fate == PENDING)
        set_fate(f, fr, now - fr->start >= f->o->min_dur ? KEEP : DROP);
    t->depth--;
}

static int on_exit_event(struct filter *f, fthread *t, const td_event *e)
{
    uint32_t n = intern(f, e->func);
    if (n == UINT32_MAX)
        return oom(f);
    uint32_t at = t->depth;
    while (at > 0 && t->frames[at - 1].func != n)
        at--;
    if (!at) {
        f->unmatched++;
        return f->failed;
    }
    while (t->depth > at)
        close_top(f, t, e->ns);
    close_top(f, t, e->ns);
    return route(f, e, (enum fate)t->frames[at - 1].fate, t, at - 1);
}

/* An info call or exception goes with the call it happened in. */
static int on_inside(struct filter *f, fthread *t, const td_event *e)
{
    if (t->depth)
        return route(f, e, (enum fate)t->frames[t->depth - 1].fate, t, t->depth - 1);
    int keep = t->ok && !f->o->nfunctions && in_window(f, e->ns);
    return route(f, e, keep ? KEEP : DROP, t, 0);
}

static int fl_event(void *self, const td_event *e)
{
    struct filter *f = self;
    if (!f->started) {
        f->started = 1;
        f->origin = e->ns;
        if (f->origin_out)
            *f->origin_out = e->ns;
    }
    f->now = e->ns;
    if (!f->o->nthreads && !f->structural)
        return emit(f, e);
    fthread *t = thread_of(f, e);
    if (!t)
        return oom(f);
    t->last = e->ns;
    if (!f->structural)
        return t->ok ? emit(f, e) : f->failed;
    decide_elapsed(f, e->ns);
    int rc = e->kind == TD_ENTER  ? on_enter(f, t, e)
             : e->kind == TD_EXIT ? on_exit_event(f, t, e)
                                  : on_inside(f, t, e);
    flush(f);
    return rc;
}

/* ---- the end ------------------------------------------------------------- */
static void say_unmatched(struct filter *f)
{
    for (uint32_t i = 0; i < f->o->nthreads; i++) {
        if (f->thread_hit[i])
            continue;
        const char **names = malloc((f->nthreads + 1) * sizeof *names);
        for (uint32_t j = 0; names && j < f->nthreads; j++)
            names[j] = f->threads[j]->name;
        fputs("tf-dump: --thread=", stderr);
        td_put_text(stderr, f->o->threads[i]);
        fputs(" matches no thread of the recording", stderr);
        td_put_nearest(stderr, f->o->threads[i], names, names ? f->nthreads : 0);
        fputs("\n", stderr);
        free(names);
    }
    for (uint32_t i = 0; i < f->o->nfunctions; i++) {
        if (f->function_hit[i])
            continue;
        fputs("tf-dump: --function=", stderr);
        td_put_text(stderr, f->o->functions[i]);
        fputs(" matches no function of the recording", stderr);
        td_put_nearest(stderr, f->o->functions[i], (const char *const *)f->names.s, f->names.n);
        fputs("\n", stderr);
    }
    if (f->unmatched)
        fprintf(stderr, "tf-dump: filters: %llu exits without their enter were left out (the "
                "recording starts inside those calls)\n", (unsigned long long)f->unmatched);
}

static void free_all(struct filter *f)
{
    for (uint32_t i = 0; i < f->nthreads; i++) {
        fthread *t = f->threads[i];
        for (uint32_t j = 0; j < t->used; j++)
            free(t->frames[j].held);
        free(t->frames);
        free(t->name);
        free(t);
    }
    td_names_free(&f->names);
    free(f->match);
    for (uint64_t i = f->qhead; i < f->qtail; i++)
        free(f->q[i % f->qcap].h);
    free(f->threads);
    free(f->q);
    free(f->p);
    free(f->thread_hit);
    free(f->function_hit);
    free(f);
}

static int fl_finish(void *self)
{
    struct filter *f = self;
    for (uint32_t i = 0; i < f->nthreads; i++)
        while (f->threads[i]->depth)
            close_top(f, f->threads[i], f->now);
    flush(f);
    say_unmatched(f);
    int rc = f->next->finish(f->next->self) | f->failed;
    free_all(f);
    return rc;
}

/* The watchdog's samples are the process's, no thread's or call's: only the
 * time window applies to them. */
static int fl_counters(void *self, const td_event *e)
{
    struct filter *f = self;
    if (!f->next->counters || (f->started && !in_window(f, e->ns)))
        return 0;
    return f->next->counters(f->next->self, e);
}

td_output *td_filter_new(const td_filter_opts *o, td_output *next, int64_t *origin)
{
    struct filter *f = calloc(1, sizeof *f);
    if (!f || !(f->thread_hit = calloc(o->nthreads + 1, 1)) ||
        !(f->function_hit = calloc(o->nfunctions + 1, 1))) {
        if (f)
            free(f->thread_hit);
        free(f);
        return NULL;
    }
    f->base = (td_output){f, fl_event, fl_finish, fl_counters};
    f->next = next;
    f->o = o;
    f->origin_out = origin;
    f->structural = o->nfunctions || o->depth || o->min_dur || o->from.text || o->to.text;
    return &f->base;
}
