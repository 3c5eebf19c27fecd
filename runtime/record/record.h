/*
 * record.h: the recorder's parts (README.md here; the format is
 * docs/trace-format.md). Everything is private to libtf.
 */
#ifndef TF_RECORD_INTERNAL_H
#define TF_RECORD_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "../internal.h"
#include "../clock.h"
#include "layout.h"

/* ---- packets and rings (pool.c, ring.c) ---------------------------------------
 * A packet is its 64-byte CTF header (layout.h, TFR_P_*) and events; the
 * pool holds every packet of the process in one mapping (layout.h: the ring
 * file in ring mode). A thread's ring is a tfr_ring record in that mapping:
 * only its thread writes its open packet; a dump reads packets from any
 * thread, under each slot's seqlock. */
#define RP_HEADER TFR_P_HEADER
#define RP_MIN 1024u
#define RP_MAX 65536u
#define RP_MIN_PACKETS 4u

typedef tfr_ring rt_ring;

/* The calling thread's ring, made at its first event (NULL: none could be
 * had, counted in lost). */
extern TF_TLS rt_ring *rt_self;
rt_ring *rt_ring_make_self(void);
static inline rt_ring *rt_ring_self(void)
{
    rt_ring *r = rt_self;
    return __builtin_expect(r != NULL, 1) ? r : rt_ring_make_self();
}
/* Room for n more bytes in r's open packet, opening another at time now if
 * needed. NULL, the event counted lost, when it is larger than a packet
 * (TFR_LOST_BIG), stream mode's writer is behind (TFR_LOST_FULL), no packet
 * can be had within the budget (TFR_LOST_BUDGET), or this thread holds the
 * pool's lock already (TFR_LOST_NESTED: a signal's marker in the middle of
 * a packet switch). */
unsigned char *rt_ring_reserve_slow(rt_ring *r, size_t n, uint64_t now);
static inline unsigned char *rt_ring_reserve(rt_ring *r, size_t n, uint64_t now)
{
    if (__builtin_expect(r->pos + n <= r->end, 1))
        return (unsigned char *)(uintptr_t)r->pos;
    return rt_ring_reserve_slow(r, n, now);
}
/* The commit: a reader (in the process, or tf-dump after it died) trusts the
 * open packet up to pos. */
static inline void rt_ring_commit(rt_ring *r, unsigned char *p, uint64_t now)
{
    __atomic_store_n(&r->last, now, __ATOMIC_RELAXED); /* a plain store: a dump reads it */
    __atomic_store_n(&r->pos, (uint64_t)(uintptr_t)p, __ATOMIC_RELEASE);
}
/* Counts n events lost for cause (TFR_LOST_*), on r's stream too if r;
 * async-signal-safe. rt_lost_early: what was lost before the pool existed. */
void rt_lost(rt_ring *r, int cause, uint64_t n);
uint64_t rt_lost_early(int cause);
void rt_ring_fork(int phase);

/* ---- the pool (pool.c) ------------------------------------------------------ */
typedef struct rt_pool {
    tfr_header *hdr;
    tfr_slot *slots;
    tfr_ring *rings;
    unsigned char *packets;
    unsigned char *map;
    size_t map_bytes;
    int fd;              /* the ring file, -1: anonymous memory */
    char name[64];       /* its name in the trace directory */
    unsigned char *log;  /* the metadata log's mapping (under classes.c's lock) */
    uint64_t log_cap;
} rt_pool;
/* The pool, NULL before the first event; made by rt_pool_get. */
rt_pool *rt_pool_now(void);
rt_pool *rt_pool_get(void);
static inline unsigned char *rt_packet(const rt_pool *p, uint32_t slot)
{
    return p->packets + (size_t)slot * p->hdr->psize;
}
/* Takes r a packet for its next seq (r's open one, if any, is closed
 * first); TFR_NONE and the cause in *why if none can be had. */
uint32_t rt_pool_next(rt_ring *r, uint64_t now, int *why);
/* A ring for the calling thread; NULL with the cause in *why. */
rt_ring *rt_pool_ring_new(int *why);
void rt_pool_ring_end(rt_ring *r);
/* Stream mode: gives the packets of r before seq back once written. */
void rt_pool_flushed(rt_ring *r, uint64_t seq);
/* The packet size for TF_RECORD_SIZE bytes a thread. */
uint32_t rt_packet_size(uint64_t size);
/* A packet of the pool as a reader sees it (rt_pool_collect). */
typedef struct rt_packet_ref {
    uint32_t number; /* thread-<number> */
    uint32_t ring;   /* its ring's index */
    uint32_t slot;
    uint32_t open;   /* its ring's open packet */
    uint64_t seq;
} rt_packet_ref;
/* Every packet that holds events, sorted by thread number then seq, into
 * out (room for nslots; unwritten: stream mode's not yet on disk only);
 * returns how many. Async-signal-safe, lock-free. */
uint32_t rt_pool_collect(rt_pool *p, rt_packet_ref *out, int unwritten);
/* Copies packet ref into out (psize bytes), closed as a reader needs it;
 * its length in bytes, 0 if it changed meanwhile. */
size_t rt_pool_copy(rt_pool *p, const rt_packet_ref *ref, unsigned char *out);
/* Appends a metadata log record (classes.c, under its lock). */
void rt_pool_log(int kind, const char *text, size_t len);
/* The pool's header with the clock's latest calibration point, into copy;
 * -1 before there is a pool. */
int rt_pool_clock(tfr_header *copy);
/* The ring file is no longer needed: the trace was written in full. */
void rt_pool_retire(void);
void rt_pool_fork(int phase);

/* ---- configuration (config.c) ---------------------------------------------- */
typedef struct rt_config {
    uint64_t size;     /* TF_RECORD_SIZE bytes per thread */
    uint64_t total;    /* TF_RECORD_TOTAL bytes for all (default 64 x size) */
    int stream;        /* TF_RECORD_MODE=stream */
    int values;        /* TF_RECORD_VALUES */
    char dir[4096];    /* TF_RECORD, or "" for tf-record-<pid> */
    int pid;           /* the process that configured it */
    uint64_t wait_ns;  /* TF_RECORD_WAIT: longest wait for a stuck stream writer */
} rt_config;
extern rt_config rt_cfg;
void rt_configure(void); /* config.c: from the environment */

/* ---- events (record.c, events.def) ------------------------------------------ */
/* The signal that ends the process as an event of the thread that took it
 * (tf:signal). dying: the thread never returns to an event it may be in
 * the middle of, whose bytes the marker may then take. Async-signal-safe. */
void rt_record_signal(int sig, const siginfo_t *info, int dying);
/* si_addr means something for sig as info came (a fault, not kill(2)). */
int rt_signal_has_address(int sig, const siginfo_t *info);

/* ---- event classes and metadata (classes.c) ------------------------------------
 * Global function ids: each TU seen gets a contiguous range. Class ids:
 * the fixed ones of events.def, then classes with values from RC_FIRST_VALUES. */
enum { RC_ENTER, RC_EXIT, RC_INFO, RC_EXC, RC_WIDE = 4, RC_SIGNAL = 8, RC_FIRST_VALUES = 16 };
/* tf:counters, the process's resource counters the watchdog samples
 * (runtime/watchdog/sample.c): a fixed class of events.def. One event in the
 * calling thread's ring, v[] in the order of its fields (rss, threads, fds,
 * ctx_voluntary, ctx_involuntary); 0, or -1 if it could not be kept
 * (counted lost by its cause). */
enum { RC_COUNTERS = 9, RC_NCOUNTERS = 5 };
int rt_record_counters(const uint64_t v[RC_NCOUNTERS]);
/* tf:budget, a decision of the overhead budget (runtime/budget): a fixed
 * class of events.def. One event in the calling thread's ring: v[] is
 * calls_per_s, ns_per_call, share_pct, overhead_pct, budget_pct; then the
 * function and the action (each cut at RC_BUDGET_STR bytes). 0, or -1 if
 * it could not be kept (counted lost by its cause). */
enum { RC_BUDGET = 10, RC_NBUDGET = 5, RC_BUDGET_STR = 255 };
int rt_record_budget(const double v[RC_NBUDGET], const char *func, const char *action);
#define RC_COMPACT_MAX 30u
uint32_t rc_tu_base(const tf_tu *tu);
/* The class id for an event of kind (RC_ENTER..RC_EXC) with values vals[n]
 * (for RC_EXIT: the result), wide: 32-bit func ids, ptrs: bit i says string
 * vals[i] is recorded as a pointer (NULL, unreadable); 0 on failure (class 0
 * is never a values class). */
uint32_t rc_class(int kind, int wide, const tf_value *vals, uint32_t n, uint64_t ptrs, const uint64_t *shapes);
/* A value's CTF type, and its recorded bytes (put_type, put_value). */
void rc_put_type(tf_buf *b, const tf_value *v, int as_ptr);
unsigned char *rc_put_value(unsigned char *p, const tf_value *v, int as_ptr, int *unreadable);
/* Captured values (capture.c): shapes[i] says what of captured vals[i] was
 * readable at the event, and so its type; NULL when no value is captured. */
uint64_t rcap_shape(const tf_value *v, const tf_args *args);
void rcap_type(tf_buf *b, const tf_value *v, uint64_t shape);
size_t rcap_max(const tf_value *v);
unsigned char *rcap_put(unsigned char *p, const tf_value *v, const tf_args *args, uint64_t shape);
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
/* What a trace's env says about its losses (layout.h's tables), taken at
 * once from the pool: the metadata and the exit line say the same. */
typedef struct rt_counts {
    uint64_t lost[TFR_NLOST];
    uint64_t drops[TFR_NDROPS];
    uint64_t id;      /* the recording (the ring file's) */
    uint32_t threads; /* threads that recorded */
} rt_counts;
void rt_counts_now(rt_counts *c);
/* Writes the metadata to fd; async-signal-safe. 0 or -1. c: the env's
 * counts (NULL: now). */
int rc_write_metadata(int fd, const rt_counts *c);
/* Pieces (TUs, classes) made so far: stream mode rewrites its metadata
 * when this grew. */
uint64_t rc_pieces(void);
/* The ring file's metadata log gets every piece made so far, and each new
 * one as it is made (called once the pool exists). */
void rc_log_all(void);
void rc_fork(int phase);

/* metadata.c: the fixed parts of the metadata, formatted into out. */
void rm_init(void);
size_t rm_preamble(char *out, size_t cap, const rt_counts *c);
/* The host's and the program's names, as the env gives them. */
void rm_names(char *host, size_t host_cap, char *proc, size_t proc_cap);

/* ---- writing a trace (dump.c, stream.c) ---------------------------------------- */
/* Writes every ring into dir (NULL: the configured one); async-signal-safe.
 * Ring mode rewrites the files; stream mode appends what is not yet on disk,
 * the open packets only when final (at exit, on a fatal signal). */
int rd_dump(const char *dir, int final);
/* The packets (and first the metadata, with counts c) into dirfd; own: the
 * recording's own directory (stream mode appends, and marks them written). */
int rd_write_rings(int dirfd, int own, int final, const rt_counts *c);
int rd_write_metadata(int dirfd, const rt_counts *c);
/* The directory the process records into (tf-record-<pid>, or TF_RECORD). */
const char *rd_dir(void);
/* Opens dir through runtime/files.c's creator, made 0700 if absent; -1 with
 * the reason if it is reached through a symbolic link, not ours, open to
 * others, or holds files TF did not write. rd_trace_dir: rd_dir() so, said
 * on failure. rd_create_at: a file in it of kind (O_EXCL: a new one only;
 * O_APPEND: kept and appended to; else new or TF's, emptied), 0600, no
 * link followed. rd_remove: a file of rd_dir(). All async-signal-safe. */
int rd_open_dir(const char *dir, const char **why);
int rd_trace_dir(void);
int rd_create_at(int dirfd, const char *name, tf_file_kind kind, int flags);
void rd_remove(const char *name);
int rd_open_stream(int dirfd, uint32_t number, int append);
/* Removes an earlier trace's thread files from path (not async-signal-safe). */
void rd_clean(const char *path);
int rd_write_all(int fd, const void *p, size_t n);
/* "tf: record: " a b c d, one line on stderr; async-signal-safe. */
void rd_say(const char *a, const char *b, const char *c, const char *d);
/* One thread writes a trace at a time (wait: up to 5 s for another). */
int rd_lock(int wait);
void rd_unlock(void);
void rd_init(void);
void rd_fork_child(void);
void rs_start(void);
void rs_stop(void);
void rs_halt(void); /* async-signal-safe: no more writing */
void rs_wake(void); /* async-signal-safe */
int rs_wait(rt_ring *r); /* async-signal-safe; 0: lose the event */
void rs_waited(uint64_t *n, uint64_t *ns);
/* packets could not be appended to r's file, which was `before` bytes
 * long: cut back, counted, said once. */
int rs_write_failed(rt_ring *r, off_t before, uint32_t packets);
/* Stream mode: the metadata on disk is up to date (written if need be). */
int rs_metadata_ok(int dirfd);
void rs_fork_child(void);

#endif
