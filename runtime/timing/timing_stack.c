/*
 * timing_stack.c: the hot path of timing points (docs/design.md .timing).
 *
 * Each thread keeps, per manager, a stack of open timing points and its own
 * statistics (.req.hot: no shared writes; reports read with relaxed atomics).
 * A frame is pushed for every ENTER of a timing point, recording or not, so
 * that the stack keeps the shape of the call tree whatever is enabled.
 *
 * Keeping stacks right when calls end abruptly:
 * - C++ exception: the UNWIND report marks the frame; the exit(NULL) that
 *   follows closes it as usual (counted in `unwinds`).
 * - longjmp: libtf calls tt_longjmp with the target stack pointer before the
 *   jump; frames recorded deeper than it (sp < target) are closed at the
 *   jump time (counted in `longjmps`).
 * - An EXIT closes the topmost frame of its timer; open frames above it (an
 *   info ENTER never exited, a frame a jump skipped unseen) are dropped and
 *   counted as `abandoned`. An EXIT with no frame of its timer is counted in
 *   `unmatched`, and changes nothing else.
 *
 * A thread that exits merges its statistics and hands its event log to the
 * manager (the pthread key destructor), so they still count.
 *
 * Signal handlers: per-thread state comes from pages.c, never malloc (a
 * thread's first event may be in a handler that interrupted malloc), and
 * the locks hooks take are taken with tf__lock everywhere, so that such a
 * handler's hooks skip rather than wait for their own thread.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "timing_internal.h"

/* Protects every manager's thread list and the tl_* <-> manager links. */
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* initial-exec: one %fs-relative load instead of a __tls_get_addr call
 * (libtf is loaded at start-up; a dlopen'ed libtf fits glibc's surplus). */
#define TT_TLS __thread __attribute__((tls_model("initial-exec")))
static TT_TLS tt_thread *tl_threads; /* this thread's states   */
static TT_TLS tt_thread *tl_last;    /* the one used last      */

static void thread_exit(void *arg);
static void longjmp_resync(uintptr_t target_sp);

/* At start-up: a hook's pthread_once interrupted on its own thread would
 * wait for itself, and an early key is in glibc's first block, set without
 * malloc. */
__attribute__((constructor(101))) static void make_key(void)
{
    pthread_key_create(&exit_key, thread_exit);
}

static void init_once(void)
{
    tf__on_longjmp(longjmp_resync);
}

void tt_stack_init(void)
{
    pthread_once(&once, init_once);
}

/* ---- per-thread state ------------------------------------------------------ */

static tt_thread *thread_new(tt_manager *m)
{
    tt_thread *ts = tf__pages_alloc(sizeof *ts);
    if (!ts)
        return NULL;
    ts->cap = 64;
    ts->stack = tf__pages_alloc(ts->cap * sizeof *ts->stack);
    ts->tid = (pid_t)syscall(SYS_gettid);
    size_t cap = TT_LD(m->log_cap);
    ts->log = cap ? tt_log_new(cap, ts->tid) : NULL;
    ts->log_cap = cap;
    if (!ts->stack || (cap && !ts->log)) {
        tf__pages_free(ts->stack, ts->cap * sizeof *ts->stack);
        tt_log_free_all(ts->log);
        tf__pages_free(ts, sizeof *ts);
        return NULL;
    }
    tf__lock(&threads_lock);
    tf__lock(&m->lock);
    ts->m = m;
    ts->next = m->threads;
    if (m->threads)
        m->threads->prev = ts;
    m->threads = ts;
    m->nthreads_seen++;
    tf__unlock(&m->lock);
    ts->tl_next = tl_threads;
    tl_threads = ts;
    tf__unlock(&threads_lock);
    pthread_setspecific(exit_key, ts);
    return ts;
}

/* This thread's state for m, other than the one used last. */
TF_COLD static tt_thread *thread_find(tt_manager *m)
{
    TF_KEEP_ERRNO();
    tt_thread *ts;
    for (ts = tl_threads; ts; ts = ts->tl_next)
        if (TT_LD(ts->m) == m)
            break;
    tl_last = ts = ts ? ts : thread_new(m);
    TF_RESTORE_ERRNO();
    return ts;
}

static inline tt_thread *thread_get(tt_manager *m)
{
    tt_thread *ts = tl_last;
    if (__builtin_expect(ts && TT_LD(ts->m) == m, 1))
        return ts;
    return thread_find(m);
}

static void thread_free(tt_thread *ts)
{
    tt_stats_free_all(&ts->arena, ts->chunks);
    tt_log_free_all(ts->log);
    tf__pages_free(ts->stack, ts->cap * sizeof *ts->stack);
    tf__pages_free(ts, sizeof *ts);
}

/* Lock held: merge into the manager and unlink. */
static void thread_retire(tt_thread *ts)
{
    tt_manager *m = ts->m;
    for (uint32_t c = 0; c < TT_MAX_CHUNKS; c++) {
        tt_stats **chunk = ts->chunks[c];
        for (uint32_t j = 0; chunk && j < TT_CHUNK; j++) {
            tt_stats *into = chunk[j] ? tt_stats_alloc(&m->retired_arena, m->retired, c * TT_CHUNK + j) : NULL;
            if (into)
                tt_stats_merge_into(into, chunk[j]);
        }
    }
    m->retired_lost += TT_LD(ts->lost);
    if (ts->log) {
        tt_log_retire(m, ts->log);
        ts->log = NULL;
    }
    if (ts->prev)
        ts->prev->next = ts->next;
    else
        m->threads = ts->next;
    if (ts->next)
        ts->next->prev = ts->prev;
    ts->m = NULL;
}

static void thread_exit(void *arg)
{
    tf__lock(&threads_lock);
    tt_thread *ts = tl_threads;
    tl_threads = NULL;
    tl_last = NULL;
    for (tt_thread *next; ts; ts = next) {
        next = ts->tl_next;
        tt_manager *m = TT_LD(ts->m);
        if (m) {
            tf__lock(&m->lock);
            thread_retire(ts);
            tf__unlock(&m->lock);
        }
        thread_free(ts);
    }
    tf__unlock(&threads_lock);
}

/* The manager is going: its threads' states stay with them until they exit,
 * except the caller's, freed now. */
void tt_thread_retire_all(tt_manager *m)
{
    tf__lock(&threads_lock);
    tf__lock(&m->lock);
    for (tt_thread *ts = m->threads; ts; ts = ts->next)
        TT_ST(ts->m, NULL);
    m->threads = NULL;
    tf__unlock(&m->lock);
    tt_thread **p = &tl_threads;
    while (*p) {
        tt_thread *ts = *p;
        if (!ts->m) {
            *p = ts->tl_next;
            thread_free(ts);
        } else {
            p = &ts->tl_next;
        }
    }
    tl_last = NULL;
    tf__unlock(&threads_lock);
}

/* ---- statistics ------------------------------------------------------------ */

/* Only a's owner allocates from it: a thread its own, the manager under its lock. */
tt_stats *tt_stats_alloc(tf_arena *a, tt_stats **chunks[], uint32_t i)
{
    tt_stats **chunk = __atomic_load_n(&chunks[i / TT_CHUNK], __ATOMIC_ACQUIRE);
    tt_stats *s = NULL;
    if (!chunk && (chunk = tf__arena_alloc(a, TT_CHUNK * sizeof *chunk)))
        __atomic_store_n(&chunks[i / TT_CHUNK], chunk, __ATOMIC_RELEASE);
    if (chunk && !(s = __atomic_load_n(&chunk[i % TT_CHUNK], __ATOMIC_ACQUIRE)) &&
        (s = tf__arena_alloc(a, sizeof *s))) {
        s->min = UINT64_MAX;
        __atomic_store_n(&chunk[i % TT_CHUNK], s, __ATOMIC_RELEASE);
    }
    return s;
}

void tt_stats_free_all(tf_arena *a, tt_stats **chunks[])
{
    for (uint32_t c = 0; c < TT_MAX_CHUNKS; c++)
        chunks[c] = NULL;
    tf__arena_free(a);
}

void tt_stats_merge_into(tt_stats *into, const tt_stats *s)
{
    uint64_t lo = TT_LD(into->sq_lo), add = TT_LD(s->sq_lo);
    TT_ST(into->sq_lo, lo + add);
    TT_ST(into->sq_hi, TT_LD(into->sq_hi) + TT_LD(s->sq_hi) + (lo + add < lo));
    TT_ADD(into->count, TT_LD(s->count));
    TT_ADD(into->total, TT_LD(s->total));
    TT_ADD(into->self, TT_LD(s->self));
    if (TT_LD(s->min) < TT_LD(into->min))
        TT_ST(into->min, TT_LD(s->min));
    if (TT_LD(s->max) > TT_LD(into->max))
        TT_ST(into->max, TT_LD(s->max));
    TT_ADD(into->unwinds, TT_LD(s->unwinds));
    TT_ADD(into->longjmps, TT_LD(s->longjmps));
    TT_ADD(into->unmatched, TT_LD(s->unmatched));
    TT_ADD(into->abandoned, TT_LD(s->abandoned));
    for (unsigned b = 0; b < TT_NBUCKETS; b++)
        TT_ADD(into->hist[b], TT_LD(s->hist[b]));
}

void tt_foreach_stats(tt_manager *m, uint32_t i, void (*fn)(const tt_stats *, void *), void *arg)
{
    tt_stats **chunk = __atomic_load_n(&m->retired[i / TT_CHUNK], __ATOMIC_ACQUIRE);
    tt_stats *s = chunk ? __atomic_load_n(&chunk[i % TT_CHUNK], __ATOMIC_ACQUIRE) : NULL;
    if (s)
        fn(s, arg);
    for (tt_thread *ts = m->threads; ts; ts = ts->next) {
        chunk = __atomic_load_n(&ts->chunks[i / TT_CHUNK], __ATOMIC_ACQUIRE);
        s = chunk ? __atomic_load_n(&chunk[i % TT_CHUNK], __ATOMIC_ACQUIRE) : NULL;
        if (s)
            fn(s, arg);
    }
}

int tt_threads_seen(tt_manager *m)
{
    return m->nthreads_seen;
}

uint64_t tt_lost_frames(tt_manager *m)
{
    uint64_t n = m->retired_lost;
    for (tt_thread *ts = m->threads; ts; ts = ts->next)
        n += TT_LD(ts->lost);
    return n;
}

static inline tt_stats *stats_of(tt_thread *ts, const tt_timer *t)
{
    tt_stats **chunk = ts->chunks[t->index / TT_CHUNK];
    tt_stats *s = chunk ? chunk[t->index % TT_CHUNK] : NULL;
    return __builtin_expect(s != NULL, 1) ? s : tt_stats_alloc(&ts->arena, ts->chunks, t->index);
}

static inline void record(tt_stats *s, uint64_t d, uint64_t self)
{
    unsigned __int128 sq = (unsigned __int128)d * d;
    uint64_t lo = s->sq_lo + (uint64_t)sq;
    TT_ST(s->sq_hi, s->sq_hi + (uint64_t)(sq >> 64) + (lo < s->sq_lo));
    TT_ST(s->sq_lo, lo);
    TT_ST(s->count, s->count + 1);
    TT_ST(s->total, s->total + d);
    TT_ST(s->self, s->self + self);
    if (d < s->min)
        TT_ST(s->min, d);
    if (d > s->max)
        TT_ST(s->max, d);
    unsigned b = tt_bucket(d);
    TT_ST(s->hist[b], s->hist[b] + 1);
}

/* ---- push and pop ------------------------------------------------------------ */

TF_COLD static int grow(tt_thread *ts)
{
    if (ts->cap >= (1u << 24))
        return 0;
    tt_frame *s = tf__pages_grow(ts->stack, ts->cap * sizeof *s, 2 * ts->cap * sizeof *s);
    if (!s)
        return 0;
    ts->stack = s;
    ts->cap *= 2;
    return 1;
}

static inline void push(tt_manager *m, tt_thread *ts, tt_timer *t, uintptr_t sp, uint32_t flags)
{
    if (__builtin_expect(ts->depth == ts->cap, 0) && !grow(ts)) {
        TT_ST(ts->lost, ts->lost + 1);
        return;
    }
    tt_frame *f = &ts->stack[ts->depth++];
    f->timer = t;
    f->sp = sp;
    f->child = 0;
    f->flags = flags;
    if (__atomic_load_n(&t->active, __ATOMIC_RELAXED)) {
        f->flags |= TT_F_ACTIVE;
        f->start = tt_now(&m->clock); /* last: the hook's own cost stays outside */
    }
}

/* tf_timing_event_log changed the size: the old ring goes to the manager
 * (its events stay exportable), a new one starts. */
TF_COLD static void log_switch(tt_thread *ts, tt_manager *m)
{
    TF_KEEP_ERRNO();
    size_t cap = TT_LD(m->log_cap);
    tt_log *log = cap ? tt_log_new(cap, ts->tid) : NULL;
    tf__lock(&m->lock);
    if (ts->log)
        tt_log_retire(m, ts->log);
    ts->log = log;
    tf__unlock(&m->lock);
    ts->log_cap = cap; /* even if out of memory: no retry on every call */
    TF_RESTORE_ERRNO();
}

/* Closes the top frame at now: a sample of its timer, its time handed to the
 * nearest recording ancestor as nested time. */
static inline __attribute__((always_inline)) void close_top(tt_manager *m, tt_thread *ts, uint64_t now)
{
    tt_frame *f = &ts->stack[--ts->depth];
    tt_frame *parent = ts->depth ? f - 1 : NULL;
    if (!(f->flags & TT_F_ACTIVE)) {
        if (parent)
            parent->child += f->child;
        return;
    }
    uint64_t d = now > f->start ? now - f->start : 0;
    uint64_t self = d > f->child ? d - f->child : 0;
    if (parent)
        parent->child += d + m->overhead;
    tt_stats *s = stats_of(ts, f->timer);
    if (!s)
        return;
    record(s, d, self);
    if (f->flags & TT_F_UNWIND)
        TT_ST(s->unwinds, s->unwinds + 1);
    if (__builtin_expect(ts->log_cap != TT_LD(m->log_cap), 0))
        log_switch(ts, m);
    if (__builtin_expect(ts->log != NULL, 0))
        tt_log_record(ts, m, f, now);
}

static void abandon_top(tt_thread *ts)
{
    tt_frame *f = &ts->stack[--ts->depth];
    if (ts->depth)
        f[-1].child += f->child;
    tt_stats *s = stats_of(ts, f->timer);
    if (s)
        TT_ST(s->abandoned, s->abandoned + 1);
}

static inline __attribute__((always_inline)) void pop(tt_manager *m, tt_thread *ts, tt_timer *t, uint32_t info)
{
    uint32_t i = ts->depth;
    while (i > 0 && (ts->stack[i - 1].timer != t || (ts->stack[i - 1].flags & TT_F_INFO) != info))
        i--;
    if (__builtin_expect(i == 0, 0)) {
        tt_stats *s = stats_of(ts, t);
        if (s)
            TT_ST(s->unmatched, s->unmatched + 1);
        return;
    }
    uint64_t now = (ts->stack[i - 1].flags & TT_F_ACTIVE) ? tt_now(&m->clock) : 0;
    while (ts->depth > i)
        abandon_top(ts);
    close_top(m, ts, now);
}

/* ---- the monitor's callbacks -------------------------------------------------- */

/* The hooks keep errno (docs/design.md .reg.guard) with TF_GUARD_BEGIN_NOERRNO:
 * only the paths that map memory or lock (thread_find, grow, tt_stats_alloc,
 * log_switch, adopting a group) and a user's clock can change it, and those
 * keep it themselves. */

static inline tt_timer *timer_of(tf_monitor *self, int id)
{
    tt_monitor *mon = (tt_monitor *)self;
    return (uint32_t)id < mon->n ? mon->timers[id] : NULL;
}

void tt_enter(tf_monitor *self, int id, const tf_args *args)
{
    TF_GUARD_BEGIN_NOERRNO(1);
    uintptr_t sp = TF_CALLER_SP();
    tt_timer *t = timer_of(self, id);
    tt_manager *m = ((tt_monitor *)self)->m;
    tt_thread *ts = t ? thread_get(m) : NULL;
    if (ts)
        push(m, ts, t, sp, 0);
    TF_GUARD_END_NOERRNO();
}

void tt_exit(tf_monitor *self, int id, const tf_value *result)
{
    TF_GUARD_BEGIN_NOERRNO(0);
    tt_timer *t = timer_of(self, id);
    tt_manager *m = ((tt_monitor *)self)->m;
    tt_thread *ts = t ? thread_get(m) : NULL;
    if (ts)
        pop(m, ts, t, 0);
    TF_GUARD_END_NOERRNO();
}

/* An info pair's frame belongs to the monitored frame it was called from: it
 * takes that frame's stack position, so a longjmp out of the caller closes
 * both. */
void tt_info(tf_monitor *self, const tf_args *args, int caller_id, int self_id, tf_tp_type tp)
{
    if (tp != TF_TP_ENTER && tp != TF_TP_EXIT)
        return;
    TF_GUARD_BEGIN_NOERRNO(1);
    uintptr_t sp = TF_CALLER_SP();
    tt_timer *t = timer_of(self, self_id);
    tt_manager *m = ((tt_monitor *)self)->m;
    tt_thread *ts = t ? thread_get(m) : NULL;
    if (ts && tp == TF_TP_ENTER) {
        if (__builtin_expect(__atomic_load_n(&t->group, __ATOMIC_ACQUIRE) < 0, 0)) {
            TF_KEEP_ERRNO(); /* it may allocate */
            tt_timer_adopt_group(m, t, self->tu, caller_id);
            TF_RESTORE_ERRNO();
        }
        push(m, ts, t, ts->depth ? ts->stack[ts->depth - 1].sp : sp, TT_F_INFO);
    } else if (ts) {
        pop(m, ts, t, TT_F_INFO);
    }
    TF_GUARD_END_NOERRNO();
}

void tt_exception(tf_monitor *self, int id, const tf_exception *exc)
{
    if (!exc || exc->kind != TF_EXC_UNWIND)
        return;
    TF_GUARD_BEGIN_NOERRNO(0);
    tt_timer *t = timer_of(self, id);
    tt_thread *ts = t ? thread_get(((tt_monitor *)self)->m) : NULL;
    for (uint32_t i = ts ? ts->depth : 0; i > 0; i--) {
        tt_frame *f = &ts->stack[i - 1];
        if (f->timer == t && !(f->flags & TT_F_INFO)) {
            f->flags |= TT_F_UNWIND;
            break;
        }
    }
    TF_GUARD_END_NOERRNO();
}

/* Forgets the calling thread's open timing points of this manager. */
void tt_clear(tf_monitor *self)
{
    TF_GUARD_BEGIN_NOERRNO(0);
    tt_thread *ts = thread_get(((tt_monitor *)self)->m);
    if (ts)
        ts->depth = 0;
    TF_GUARD_END_NOERRNO();
}


/* ---- fork ---------------------------------------------------------------------- */

/* threads_lock comes before any manager's lock (thread_get): fork takes it first. */
void tt_stack_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&threads_lock);
    else
        pthread_mutex_unlock(&threads_lock);
}

static void zero_chunks(tt_stats **chunks[])
{
    for (uint32_t c = 0; c < TT_MAX_CHUNKS; c++)
        for (uint32_t j = 0; chunks[c] && j < TT_CHUNK; j++)
            if (chunks[c][j])
                memset(chunks[c][j], 0, sizeof *chunks[c][j]);
}

/* In a forked child (one thread, so nobody writes meanwhile): the statistics
 * so far are the parent's; the child reports only its own. Frames open on the
 * forking thread stay open and close in the child. */
void tt_forget_stats(tt_manager *m)
{
    for (tt_thread *ts = m->threads; ts; ts = ts->next)
        zero_chunks(ts->chunks);
    zero_chunks(m->retired);
    m->retired_lost = 0;
}

/* ---- longjmp ------------------------------------------------------------------- */

/* The frame to keep on top after a jump to target_sp: frames deeper than the
 * target are skipped; of the monitored frames exactly at the target only the
 * outermost (the setjmp caller, which is never inlined) can still run, with
 * the info pairs it opened; the others were inlined into it. */
static uint32_t depth_after_jump(const tt_thread *ts, uintptr_t target_sp)
{
    uint32_t depth = ts->depth;
    while (depth && ts->stack[depth - 1].sp < target_sp)
        depth--;
    uint32_t first = depth, next = depth;
    for (uint32_t i = depth; i > 0 && ts->stack[i - 1].sp == target_sp; i--)
        if (!(ts->stack[i - 1].flags & TT_F_INFO)) {
            next = first;
            first = i - 1;
        }
    return next;
}

/* Runs on the jumping thread before the jump: the frames it skips end now. */
static void longjmp_resync(uintptr_t target_sp)
{
    for (tt_thread *ts = tl_threads; ts; ts = ts->tl_next) {
        tt_manager *m = TT_LD(ts->m);
        uint32_t keep = m ? depth_after_jump(ts, target_sp) : ts->depth;
        if (keep == ts->depth)
            continue;
        uint64_t now = tt_now(&m->clock);
        while (ts->depth > keep) {
            tt_frame *f = &ts->stack[ts->depth - 1];
            int active = f->flags & TT_F_ACTIVE;
            tt_timer *t = f->timer;
            close_top(m, ts, now);
            tt_stats *s = active ? stats_of(ts, t) : NULL;
            if (s)
                TT_ST(s->longjmps, s->longjmps + 1);
        }
    }
}
