/*
 * watchdog.h: what the watchdog's files share (README.md here; design tags
 * docs/design.md .wd.*). Private to libtf, like runtime/internal.h, which it
 * extends.
 *
 * Three parties touch a thread's record (wd_thread):
 * - the thread itself, in the watchdog's monitor hooks and in the lock
 *   wrappers: it alone writes its frames, counters, wait and held locks;
 * - the watchdog thread, which reads every record each period, and writes
 *   only a frame's `mark` and its own bookkeeping fields (`seen_*`);
 * - the control server (tf-ctl stacks, heartbeat), which only reads.
 * Records are never freed (a thread that ends leaves its record for the
 * next one), so readers never touch unmapped memory; what they read is
 * checked against the counters the owner publishes (.wd.seqlock).
 */
#ifndef TF_WATCHDOG_INTERNAL_H
#define TF_WATCHDOG_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "../internal.h"

/* ---- one open call (.wd.frames) ---------------------------------------------
 * Arguments are kept as the hook saw them (strings copied, values passed by
 * address copied), so they can be shown from another thread long after the
 * enter hook's own argument array is gone. */
#define WD_ARGS 8                  /* arguments kept per call; more are shown as ", ..." */
#define WD_STR (TF_STR_MAX + 1)    /* one byte more than shown, so a cut still shows "..." */
typedef struct wd_frame {
    uint64_t seq;      /* the thread's event count after this enter; 0 while written */
    uint64_t mark;     /* == seq once the watchdog reported this call */
    const tf_tu *tu;
    int32_t id;
    uint32_t nargs;    /* as passed; at most WD_ARGS are kept */
    uint64_t t0;       /* tf__clock_now() at entry */
    uintptr_t sp;      /* TF_CALLER_SP at entry: frames a longjmp skipped are dropped */
    tf_value args[WD_ARGS];
    char str[WD_ARGS][WD_STR + 1];
} wd_frame;

/* Frames come in chunks that never move (a reader on another thread may be
 * copying one), allocated as a thread gets deeper. Deeper than
 * WD_CHUNK * WD_CHUNKS calls are counted, not kept, and reports say so. */
#define WD_CHUNK 64
#define WD_CHUNKS 256

/* ---- locks (.wd.locks) ------------------------------------------------------ */
enum wd_lock_kind { WD_MUTEX = 1, WD_RDLOCK, WD_WRLOCK };
typedef struct wd_held {
    const void *lock;
    int kind;
    int32_t id;        /* the innermost open monitored call when it was taken */
    const tf_tu *tu;   /* NULL: none was open */
} wd_held;
#define WD_HELD 64     /* locks tracked per thread; more are counted (held_lost) */
/* The wait and held fields are read by the watchdog thread while their owner
 * may change them: each word is stored and loaded whole (relaxed atomics,
 * plain moves), and a reader checks the counts around what it read. */
#define WD_SET(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELAXED)
#define WD_GET(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

typedef struct wd_thread {
    tf_threadrec rec;        /* first: the list of every record, and its owner */
    int tid;
    uint64_t claims;         /* bumped at each claim: the watchdog tells owners apart */
    uint64_t events;         /* monitored enters and exits so far (release); never reset,
                              * so a frame's seq is never seen twice in a record */
    uint64_t base;           /* events when this owner claimed it */
    int depth;               /* open calls; may exceed what the chunks keep */
    wd_frame *chunk[WD_CHUNKS];
    /* lock state, written by the wrappers */
    const void *waiting;     /* the lock it is blocked on, or NULL */
    int wait_kind;
    uint64_t wait_t0;        /* tf__clock_now() when it started waiting */
    uint64_t waits;          /* bumped at each wait: a wait seen twice is the same wait */
    const tf_tu *wait_tu;    /* the innermost open call when it started waiting */
    int32_t wait_id;
    int nheld;               /* entries of held[] in use */
    uint32_t held_lost;      /* locks held beyond WD_HELD, not tracked */
    wd_held held[WD_HELD];
    /* the watchdog thread's own bookkeeping (.wd.scan) */
    uint64_t seen_claims, seen_events;
    uint64_t seen_since;     /* ns: when seen_events was first seen */
    uint64_t reported;       /* seen_events when it was last reported; 0: not yet */
    uint64_t cycle_reported; /* waits when its wait was reported in a cycle */
} wd_thread;

/* The calling thread's record, claimed at its first event; NULL if out of
 * memory. Async-signal-safe (pages.c, a CAS); keeps errno. */
extern TF_TLS wd_thread *wd_me;
wd_thread *wd_claim(void);
static inline wd_thread *wd_self(void)
{
    wd_thread *t = wd_me;
    return __builtin_expect(t != NULL, 1) ? t : wd_claim();
}
/* Head of the list of every record (acquire), and the next one. */
wd_thread *wd_threads(void);
static inline wd_thread *wd_next(const wd_thread *t)
{
    return (wd_thread *)t->rec.next;
}
/* Calls entered and left by threads that ended. */
uint64_t wd_retired(void);
/* Frame i of t, NULL if not kept (any thread). */
wd_frame *wd_frame_at(wd_thread *t, int i);
/* The same for t's own thread, on the hooks' path; wd_frame_make allocates
 * the chunk (NULL: out of memory, or deeper than the chunks keep). */
wd_frame *wd_frame_make(wd_thread *t, int i);
static inline wd_frame *wd_own_frame(wd_thread *t, int i)
{
    if (__builtin_expect((unsigned)i >= WD_CHUNK * WD_CHUNKS, 0))
        return NULL;
    wd_frame *c = t->chunk[(unsigned)i / WD_CHUNK]; /* only this thread stores it */
    return c ? c + (unsigned)i % WD_CHUNK : NULL;
}
/* A consistent copy of t's frame i into out, or 0 if it changed while read
 * (or is not kept). */
int wd_frame_copy(wd_thread *t, int i, wd_frame *out);
/* The innermost open call of the calling thread (for a lock taken now). */
static inline void wd_innermost(wd_thread *t, const tf_tu **tu, int32_t *id)
{
    wd_frame *f = wd_own_frame(t, t->depth - 1);
    *tu = f ? f->tu : NULL;
    *id = f ? f->id : -1;
}
void wd_threads_fork_child(void);

/* ---- the monitor (monitor.c) -------------------------------------------------- */
/* The factory the registry composes into every holder while a watchdog runs. */
tf_factory *wd_factory(void);
/* Ticks of tf__clock_now to nanoseconds; set by wd_clock_start (FP-free, so
 * hooks may call it). */
uint64_t wd_ns(uint64_t ticks);
void wd_clock_start(void);
/* "1.25 s", "350.0 ms" (integer arithmetic: async-signal-safe). */
void wd_buf_duration(tf_buf *b, uint64_t ns);
/* s with control bytes as \xNN (thread names are the program's text). */
void wd_buf_escaped(tf_buf *b, const char *s);

/* ---- interposed lock functions (locks.c, got.c) -------------------------------- */
/* Points every loaded object's GOT entries for the pthread lock functions at
 * the wrappers (on) or back at the functions they call (off); again after
 * objects were loaded (wd_interpose_refresh, each period). -1: this
 * architecture's GOT is not known, nothing is rerouted. */
int wd_interpose(int on);
void wd_interpose_refresh(void);
/* runtime/locks.h, row watchdog: the wrappers' lock around fork. */
void wd_interpose_fork(int phase);
/* The GOT walk: every slot for a symbol of syms gets its wrapper (on) or
 * back its real function (off); real is looked up first if NULL. *adds:
 * dl_iterate_phdr's count of objects loaded so far (wd_got_adds). */
typedef struct wd_symbol {
    const char *name;
    void *wrapper;
    void **real;
} wd_symbol;
int wd_got_patch(const wd_symbol *syms, int n, int on, unsigned long long *adds);
unsigned long long wd_got_adds(void);
/* Who holds lock (glibc's own record for a mutex or a write-locked rwlock);
 * 0 if it says nothing. */
int wd_lock_owner(const void *lock, int kind);
const char *wd_lock_kind_name(int kind);

/* ---- configuration (config.c) ---------------------------------------------------- */
enum { WD_ACT_REPORT = 1, WD_ACT_SNAPSHOT = 2, WD_ACT_ABORT = 4 };
typedef struct wd_spec {
    uint64_t ns;         /* DURATION; 0: off */
    unsigned actions;    /* WD_ACT_* */
} wd_spec;
/* Parses "DURATION[,ACTION...]" or "off"; NULL, or why not in why. */
const char *wd_parse(const char *text, wd_spec *out, char *why, size_t len);
/* TF_SAMPLE in ns; 0 if not set. */
uint64_t wd_sample_asked(void);
/* Samples the resource counters into the recording, if recording
 * (sample.c; the watchdog thread, every TF_SAMPLE). */
void wd_sample(void);
/* "2 s" / "500 ms" / ... for messages; "report,snapshot" */
void wd_spec_format(const wd_spec *s, char *out, size_t len);

/* ---- the watchdog thread (scan.c, report.c) ------------------------------------ */
/* Starts, changes or (spec->ns == 0) stops the watchdog; 0, or -1 and why. */
int wd_set(const wd_spec *spec, char *why, size_t len);

/* One scan's report: built in memory and written to stderr at once; the
 * threads already in it are not reported twice; the first line written
 * takes the flight-recorder snapshot and says where it is. */
typedef struct wd_scan {
    uint64_t now;          /* CLOCK_MONOTONIC ns */
    uint64_t now_ticks;    /* tf__clock_now() */
    wd_spec spec;
    char *text;
    size_t len;
    FILE *f;
    wd_thread **done;
    int ndone, cap;
    int snapped;
    char snap[4200];
} wd_scan;
int wd_scan_open(wd_scan *s);
void wd_scan_close(wd_scan *s); /* writes what was built to stderr */
/* 1 if t joins the report now, 0 if it is in it already (or out of memory). */
int wd_scan_add(wd_scan *s, wd_thread *t);
/* "; snapshot in DIR" for the first line of the report, "" after that. */
const char *wd_scan_where(wd_scan *s);
/* "tf: watchdog: thread 4242 (app): app.nap has been open for 1.25 s" and
 * the thread's open calls under it. */
void wd_thread_block(wd_scan *s, wd_thread *t);
/* Lock cycles among threads each blocked for the whole DURATION. */
void wd_cycles(wd_scan *s);

/* "thread 4242 (app)" */
void wd_put_thread(FILE *f, const wd_thread *t);
/* The thread's open calls, outermost first, each with how long it has been
 * open; returns how many it could show. */
int wd_put_stack(FILE *f, wd_thread *t, int depth, uint64_t now_ticks);
/* A snapshot of the flight recorder for a report into where; 0 if none was
 * written (not recording, not asked for); 1 and where says it, or why not. */
int wd_snapshot(const wd_spec *spec, char *where, size_t len);
/* tf-ctl stacks: every thread's open calls now. */
void wd_stacks(FILE *out);
/* tf-ctl heartbeat: the watchdog, calls entered and left so far, open now. */
void wd_heartbeat(FILE *out);
/* Whether a watchdog runs, and its spec. */
int wd_running(wd_spec *out);

#endif
