/*
 * record.h: the recorder's parts (README.md here; the format is
 * docs/trace-format.md). Everything is private to libtf.
 */
#ifndef TF_RECORD_INTERNAL_H
#define TF_RECORD_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "../internal.h"
#include "../clock.h"

/* ---- packets (ring.c) --------------------------------------------------------
 * A packet is its 64-byte header (magic + packet context) and events. */
#define RP_MAGIC 0xC1FC1FC1u
#define RP_HEADER 64
enum { RP_TS_BEGIN = 4, RP_TS_END = 12, RP_CONTENT = 20, RP_SIZE = 24, RP_SEQ = 28,
       RP_DISCARDED = 36, RP_TID = 44, RP_THREAD = 48 };
#define RP_MIN 1024u
#define RP_MAX 65536u
#define RP_MIN_PACKETS 4u

/* One thread's ring: npackets packets of psize bytes; packet_seq_num s lives
 * in slot s % npackets. Only its thread writes it; a dump reads it from any
 * thread, checking each packet's seq before and after copying (seqlock). */
typedef struct rt_ring {
    struct rt_ring *next;    /* all rings, newest first; never freed */
    uint32_t number;         /* thread-<number> */
    uint32_t tid;
    uint32_t psize, npackets;
    unsigned char *mem;
    unsigned char *pos, *end; /* in the current packet; pos published with release */
    uint64_t seq;            /* the current packet's packet_seq_num */
    uint64_t last;           /* last timestamp written */
    uint64_t discarded;      /* events that could not be kept, cumulative */
    uint64_t flushed;        /* stream mode: packets [0, flushed) are on disk */
    uint64_t name_gen;
    int busy;                /* an event is being written (a signal may nest) */
    int exited;
    int fd;                  /* stream mode: the open stream file, or -1 */
} rt_ring;

/* The calling thread's ring, made at its first event (NULL if out of memory). */
extern TF_TLS rt_ring *rt_self;
rt_ring *rt_ring_make_self(void);
static inline rt_ring *rt_ring_self(void)
{
    rt_ring *r = rt_self;
    return __builtin_expect(r != NULL, 1) ? r : rt_ring_make_self();
}
/* Room for n more bytes, opening a new packet at time now if needed; NULL
 * when an event of n bytes can never fit or stream mode is behind. */
unsigned char *rt_ring_reserve_slow(rt_ring *r, size_t n, uint64_t now);
static inline unsigned char *rt_ring_reserve(rt_ring *r, size_t n, uint64_t now)
{
    if (__builtin_expect(r->pos + n <= r->end, 1))
        return r->pos;
    return rt_ring_reserve_slow(r, n, now);
}
static inline void rt_ring_commit(rt_ring *r, unsigned char *p, uint64_t now)
{
    r->last = now;
    __atomic_store_n(&r->pos, p, __ATOMIC_RELEASE);
}
/* Head of the list of every ring (acquire). */
rt_ring *rt_rings(void);
/* Copies packet seq of r into out (psize bytes), closed as a reader needs it;
 * returns its length in bytes, 0 if it no longer (or not yet) exists. */
size_t rt_ring_copy(rt_ring *r, uint64_t seq, unsigned char *out);
/* The packet sequence numbers a dump of r writes: [*first, *last]. */
void rt_ring_span(rt_ring *r, uint64_t *first, uint64_t *last);
void rt_ring_fork_child(void);

/* ---- configuration (record.c) ------------------------------------------------ */
typedef struct rt_config {
    uint64_t size;     /* TF_RECORD_SIZE bytes per thread */
    int stream;        /* TF_RECORD_MODE=stream */
    int values;        /* TF_RECORD_VALUES */
    char dir[4096];    /* TF_RECORD, or "" for tf-record-<pid> */
    int pid;           /* the process that configured it */
    uint64_t wait_ns;  /* TF_RECORD_WAIT: longest wait for a stuck stream writer */
} rt_config;
extern rt_config rt_cfg;
void rt_configure(void); /* config.c: from the environment */

/* ---- event classes and metadata (classes.c) ------------------------------------
 * Global function ids: each TU seen gets a contiguous range. */
enum { RC_ENTER, RC_EXIT, RC_INFO, RC_EXC, RC_WIDE = 4, RC_FIRST_VALUES = 8 };
/* tf:counters (counters.c): its class is made on first use, like a values
 * class; RC_COUNTERS is its kind (the event name), after RC_EXC. */
enum { RC_COUNTERS = 4, RC_NCOUNTERS = 5 };
uint32_t rc_counters_class(void);
/* One tf:counters event in the calling thread's ring: v[] in the order of
 * the class's fields (rss, threads, fds, ctx_voluntary, ctx_involuntary).
 * 0, or -1 if it could not be kept (counted as discarded). */
int rt_record_counters(const uint64_t v[RC_NCOUNTERS]);
/* tf:budget (budget.c): a decision of the overhead budget (runtime/budget),
 * one event in the calling thread's ring: v[] is calls_per_s, ns_per_call,
 * share_pct, overhead_pct, budget_pct; then the function and the action.
 * 0, or -1 if it could not be kept (counted as discarded). */
enum { RC_BUDGET = 5, RC_NBUDGET = 5 };
uint32_t rc_budget_class(void);
int rt_record_budget(const double v[RC_NBUDGET], const char *func, const char *action);
#define RC_COMPACT_MAX 30u
uint32_t rc_tu_base(const tf_tu *tu);
/* The class id for an event of kind (RC_ENTER..RC_EXC) with values vals[n]
 * (for RC_EXIT: the result), wide: 32-bit func ids, ptrs: bit i says string
 * vals[i] is recorded as a pointer (NULL, unreadable); 0 on failure (class 0
 * is never a values class). */
uint32_t rc_class(int kind, int wide, const tf_value *vals, uint32_t n, uint64_t ptrs);
/* How a value is recorded (docs/trace-format.md, "Values"): as its kind's
 * plain field, or one of the structs below; decided by kind, size and
 * element code alone, so a function's class never changes. */
enum { RV_PLAIN, RV_INT128, RV_COMPLEX, RV_VECTOR, RV_UNKNOWN };
#define RC_VECTOR_MAX 256u /* bytes a recorded vector takes at most */
int rc_shape(const tf_value *v, tf_elems *e);
/* Bytes a recorded element takes: floating ones as doubles. */
static inline unsigned rc_elem_width(const tf_elems *e)
{
    return e->cls == 'f' || e->cls == 'x' ? 8 : e->bytes;
}
/* Writes the metadata to fd; async-signal-safe. 0 or -1. */
int rc_write_metadata(int fd);
void rc_init(void);
void rc_fork(int phase);

/* metadata.c: the fixed parts of the metadata, formatted into out. */
void rm_init(void);
size_t rm_preamble(char *out, size_t cap);
size_t rm_stream(char *out, size_t cap);

/* ---- writing a trace (dump.c, stream.c) ---------------------------------------- */
/* Writes every ring into dir (NULL: the configured one); async-signal-safe.
 * Ring mode rewrites the files; stream mode appends what is not yet on disk,
 * the open packets only when final (at exit, on a fatal signal). */
int rd_dump(const char *dir, int final);
/* The directory the process records into (tf-record-<pid>, or TF_RECORD). */
const char *rd_dir(void);
/* Opens dir, made 0700 if absent; -1 with the reason if it is a symbolic
 * link, not ours, or open to others. */
int rd_open_dir(const char *dir, const char **why);
int rd_open_stream(int dirfd, const rt_ring *r);
/* Removes an earlier trace's thread files from path (not async-signal-safe). */
void rd_clean(const char *path);
int rd_write_all(int fd, const void *p, size_t n);
/* One thread writes a trace at a time (wait: up to 5 s for another). */
int rd_lock(int wait);
void rd_unlock(void);
void rd_init(void);
void rd_fork_child(void);
void rs_start(void);
void rs_stop(void);
void rs_wake(void); /* async-signal-safe */
int rs_wait(rt_ring *r, uint64_t next); /* async-signal-safe; 0: discard */
void rs_waited(uint64_t *n, uint64_t *ns);
void rs_fork_child(void);

#endif
