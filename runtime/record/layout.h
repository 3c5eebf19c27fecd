/*
 * layout.h: the ring file, byte for byte (docs/design.md .rec.file).
 *
 * In ring mode the recorder keeps every packet of every thread in one file of
 * the trace directory, DIR/.rings-<pid>-<k>, mapped shared into the process:
 * what a thread records is in the page cache at once, so it outlives the
 * process however it dies (SIGKILL, the OOM killer, _exit, exec; power loss
 * aside). At a normal end the recorder writes the CTF trace from it and
 * removes it; if it is still there, the process did not get that far, and
 * tf-dump reads it (tools/tf-dump/rings.c). Stream mode, and ring mode when
 * the directory cannot be made, keep the same layout in anonymous memory.
 *
 *   [header: TFR_HEADER bytes] [slots] [rings] [packets] [metadata log ...]
 *
 * - packets: nslots CTF packets of psize bytes (runtime/record/record.h,
 *   "packets"), the process-wide pool that TF_RECORD_TOTAL bounds. Each
 *   thread holds a few (TF_RECORD_SIZE): its open packet, the closed ones
 *   of its window, and pinned ones that hold rare events.
 * - slots: one tfr_slot per packet: its owner and a generation that is odd
 *   while the packet is being reopened (the seqlock an in-process reader
 *   copies under; kept apart from the packet so it is aligned).
 * - rings: one tfr_ring per thread that holds packets. Its pos is the
 *   commit: the address just after the last complete event of its open
 *   packet, stored with release after the event's bytes. A reader trusts
 *   an open packet up to pos and no further; busy set means an event was
 *   half written when the process stopped.
 * - metadata log: after the packets (from a page boundary), in a mapping of
 *   its own that grows, each record complete before log_len covers it
 *   (release): the TU labels and event classes the CTF metadata is made of
 *   (runtime/record/classes.c), so that the events in the rings can be
 *   decoded without the process, from the file or from a core dump.
 *
 * libtf writes it and tf-dump reads it through this one header, and every
 * offset is asserted below (as XRay asserts its records), so the two cannot
 * drift apart. Little-endian x86-64, as the recorder itself (the TSC).
 */
#ifndef TF_RECORD_LAYOUT_H
#define TF_RECORD_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TFR_MAGIC "TFRINGS1" /* 8 bytes; the last thing stored when the file is made */
#define TFR_VERSION 1u
#define TFR_HEADER 4096u
#define TFR_NONE UINT32_MAX /* no slot, no ring */
/* Ring records: one per packet (a thread holding a packet needs one), but
 * at most this many, so that a huge TF_RECORD_TOTAL does not make a huge
 * table: threads beyond it that record at once lose their events, counted
 * as budget losses and said at exit. 8 MiB of records. */
#define TFR_MAX_RINGS 65536u

/* Why events are missing, each counted on its own (LTTng keeps
 * records_lost_full, _wrap and _big apart; we keep ours). One line each:
 * X(ENUM, "name", "what it counts"). The name is the env entry
 * tf_lost_<name> of the trace, tf-dump's and the exit line's wording. */
#define TFR_LOSSES(X)                                                                          \
    X(NESTED, "nested", "began while the same thread was recording another (a signal handler "  \
                        "interrupting a hook)")                                                \
    X(BIG, "big", "were larger than a packet")                                                 \
    X(FULL, "full", "found the thread's ring full of packets the stream writer had not "        \
                    "written (TF_RECORD_WAIT)")                                                \
    X(CLASS, "class", "had no event class (a signal handler interrupted the class table on "   \
                      "the same thread, or memory ran out)")                                   \
    X(STRING, "string", "had a string argument that became unreadable while it was copied")    \
    X(BUDGET, "budget", "came from threads that found no packet free within TF_RECORD_TOTAL")  \
    X(NOMEM, "nomem", "came from threads that got no ring (memory or the ring file ran out)")
#define TFR_LOSS_ENUM(e, name, what) TFR_LOST_##e,
enum { TFR_LOSSES(TFR_LOSS_ENUM) TFR_NLOST };

/* Packets that left the recording whole, each counted on its own. */
#define TFR_DROPS(X)                                                                           \
    X(OVERWRITTEN, "overwritten", "packets overwritten by their own thread's newer events "     \
                                  "(the ring keeps the last TF_RECORD_SIZE of a thread)")       \
    X(RECYCLED, "recycled", "packets of ended threads reused to stay within TF_RECORD_TOTAL")  \
    X(STOLEN, "stolen", "packets of running threads reused to give a new thread room within "  \
                        "TF_RECORD_TOTAL")                                                     \
    X(THREADS, "threads", "ended threads whose every event was dropped that way")              \
    X(DISK, "disk", "packets stream mode could not write (a full disk, an I/O error)")
#define TFR_DROP_ENUM(e, name, what) TFR_DROP_##e,
enum { TFR_DROPS(TFR_DROP_ENUM) TFR_NDROPS };

typedef struct tfr_header {
    char magic[8];           /* TFR_MAGIC */
    uint32_t version;        /* TFR_VERSION */
    uint32_t header_size;    /* TFR_HEADER */
    uint32_t psize;          /* bytes a packet */
    uint32_t nslots;         /* packets in the pool */
    uint32_t nrings;         /* ring records */
    uint32_t pid;
    uint64_t slots_off, rings_off, packets_off, log_off; /* from the start of the file */
    uint64_t base;           /* the address the file was mapped at: ring positions are addresses */
    uint64_t id;             /* this recording: env.tf_recording of the CTF trace written from it */
    uint64_t log_len;        /* bytes of the metadata log that are complete (release) */
    uint32_t usable;         /* packets the file has blocks for (fallocate) */
    uint32_t flags;          /* TFR_VALUES, TFR_TSC, TFR_LOG_INCOMPLETE */
    uint64_t tsc0, mono0, real0; /* the clock, CLOCK_MONOTONIC and CLOCK_REALTIME at its start */
    uint64_t clock_gen;      /* odd while tsc1, mono1 change */
    uint64_t tsc1, mono1;    /* the latest calibration point */
    uint64_t lost[TFR_NLOST];   /* events, by cause */
    uint64_t drops[TFR_NDROPS]; /* packets (threads for TFR_DROP_THREADS) */
    uint32_t threads;        /* rings made so far: the last thread number */
    uint32_t max_packets;    /* a thread's share: TF_RECORD_SIZE / psize */
    char host[64];
    char proc[16];
} tfr_header;
enum { TFR_VALUES = 1, TFR_TSC = 2, TFR_LOG_INCOMPLETE = 4 };

typedef struct tfr_slot {
    uint64_t gen;   /* seqlock: odd while the packet is (re)opened */
    uint32_t ring;  /* owner: ring index + 1; 0: free */
    uint32_t flags; /* TFR_SLOT_* */
    uint32_t next;  /* the next slot in its list (a window, pinned, free) */
    uint32_t pad;
} tfr_slot;
enum { TFR_SLOT_RARE = 1 }; /* holds an info point, exception or signal event */

typedef struct tfr_ring {
    /* written by its thread at every event: the first cache line */
    uint64_t pos;       /* the commit: address after the last complete event (release) */
    uint64_t end;       /* address of the open packet's end; 0 with pos 0: no packet */
    uint64_t last;      /* timestamp of the last event */
    uint32_t busy;      /* an event is being written */
    uint32_t cur;       /* slot of the open packet, TFR_NONE: none */
    uint64_t seq;       /* packet_seq_num of the open packet; UINT64_MAX: none yet */
    uint64_t discarded; /* events this thread lost: CTF's events_discarded */
    uint32_t number;    /* thread-<number> */
    uint32_t tid;
    uint32_t state;     /* TFR_RING_* */
    uint32_t rare;      /* the open packet holds a rare event */
    /* the pool's bookkeeping, under its lock */
    uint32_t head, tail, count;     /* closed packets, oldest to newest */
    uint32_t pin_head, pin_tail, npinned; /* closed packets kept for their rare events */
    uint32_t max;       /* packets it may hold, the open one included */
    uint32_t next;      /* the next ring in its list (free, ended) */
    uint64_t flushed;   /* stream mode: packets before this seq are on disk */
    int32_t fd;         /* stream mode: its file, -1 if none */
    uint32_t cut;       /* stream mode: a write to its file failed (.rec.stream.full) */
    uint32_t pad[4];
} tfr_ring;
enum { TFR_RING_FREE = 0, TFR_RING_LIVE = 1, TFR_RING_ENDED = 2 };

/* A record of the metadata log: kind, length of text, the text, zeros to 8. */
typedef struct tfr_log {
    uint32_t kind; /* TFR_LOG_* */
    uint32_t len;
} tfr_log;
enum {
    TFR_LOG_LABELS = 1, /* a TU's "\t\"tu.name\" = id,\n" lines, all ids < 65536 or all above */
    TFR_LOG_EVENT = 2,  /* an event class: "event { ... };\n\n" */
};

/* What readers rely on; a change here is a new TFR_VERSION. */
_Static_assert(sizeof(tfr_header) <= TFR_HEADER, "the header fits its page");
_Static_assert(offsetof(tfr_header, magic) == 0, "magic first");
_Static_assert(offsetof(tfr_header, slots_off) == 32, "offsets after the sizes");
_Static_assert(offsetof(tfr_header, base) == 64, "base");
_Static_assert(offsetof(tfr_header, log_len) == 80, "log_len");
_Static_assert(offsetof(tfr_header, tsc0) == 96, "clock");
_Static_assert(offsetof(tfr_header, lost) == 144, "losses");
_Static_assert(offsetof(tfr_header, lost) % 8 == 0 && offsetof(tfr_header, drops) % 8 == 0,
               "counters are 64-bit atomics, aligned");
_Static_assert(offsetof(tfr_header, clock_gen) % 8 == 0 && offsetof(tfr_header, log_len) % 8 == 0,
               "the header's atomics are aligned");
_Static_assert(sizeof(tfr_slot) == 24 && offsetof(tfr_slot, gen) == 0 && offsetof(tfr_slot, ring) == 8 &&
               offsetof(tfr_slot, flags) == 12 && offsetof(tfr_slot, next) == 16,
               "slot layout; gen aligned in an array of 8-aligned slots");
_Static_assert(sizeof(tfr_ring) == 128, "a ring record is two cache lines");
_Static_assert(offsetof(tfr_ring, pos) == 0 && offsetof(tfr_ring, end) == 8 &&
               offsetof(tfr_ring, last) == 16 && offsetof(tfr_ring, busy) == 24 &&
               offsetof(tfr_ring, cur) == 28 && offsetof(tfr_ring, seq) == 32 &&
               offsetof(tfr_ring, discarded) == 40 && offsetof(tfr_ring, number) == 48 &&
               offsetof(tfr_ring, tid) == 52 && offsetof(tfr_ring, state) == 56 &&
               offsetof(tfr_ring, rare) == 60,
               "what a thread writes per event is its ring's first cache line");
_Static_assert(offsetof(tfr_ring, flushed) % 8 == 0, "flushed is a 64-bit atomic");
_Static_assert(sizeof(tfr_log) == 8, "log record header");

/* The CTF packet header and context (docs/trace-format.md, "Layout"),
 * packed: 64 bytes, so events start 8-aligned. Read and written with
 * memcpy (seq and discarded are not 8-aligned); the seqlock is the slot's. */
enum {
    TFR_P_MAGIC = 0, TFR_P_TS_BEGIN = 4, TFR_P_TS_END = 12, TFR_P_CONTENT = 20, TFR_P_SIZE = 24,
    TFR_P_SEQ = 28, TFR_P_DISCARDED = 36, TFR_P_TID = 44, TFR_P_THREAD = 48, TFR_P_HEADER = 64
};
#define TFR_PACKET_MAGIC 0xC1FC1FC1u
_Static_assert(TFR_P_THREAD + 16 == TFR_P_HEADER, "the context ends with the 16-byte thread name");
_Static_assert(TFR_P_HEADER % 8 == 0, "events start 8-aligned");

/* A field of a packet header or of the file, at any alignment, in the
 * machine's byte order (the metadata says which). */
static inline uint32_t tfr_get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t tfr_get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void tfr_put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void tfr_put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

#endif
