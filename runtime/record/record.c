/*
 * record.c: the factory `record` and its monitor (docs/design.md .rec): each
 * event goes into the calling thread's ring as one CTF event
 * (docs/trace-format.md). The hot path reads the clock, checks room in the
 * current packet, writes a 4-byte header, the function id and, with values,
 * the arguments, and publishes the new end. A signal handler that interrupts
 * an event and records another is counted as discarded, never waited for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <tf/record.h>

#include "record.h"

rt_config rt_cfg = {.size = 1u << 20, .total = 64u << 20, .values = 1, .wait_ns = 1000000000u};

typedef struct rmon {
    tf_monitor base;
    uint32_t first;  /* global id of the TU's name 0 */
    uint32_t wide;   /* RC_WIDE when ids need 32 bits, else 0 */
    uint32_t n;
    uint64_t *cache; /* per name: enter, exit, info: class id (0: not known) | RV_FIXED,
                      * and above bit 32 its layout (layout_of) */
} rmon;

/* In a cache slot: every value of the signature has a fixed size and the
 * slot's top half says how each is written (layout_of). */
#define RV_FIXED 0x80000000u

/* ---- the hot path ---------------------------------------------------------- */

static inline void put_header(unsigned char **pp, const rt_ring *r, uint32_t cls, uint64_t now)
{
    unsigned char *p = *pp;
    if (__builtin_expect(cls <= RC_COMPACT_MAX && now - r->last < (1u << 27), 1)) {
        uint32_t w = cls | ((uint32_t)now << 5);
        memcpy(p, &w, 4);
        *pp = p + 4;
        return;
    }
    p[0] = 31;
    memcpy(p + 1, &cls, 4);
    memcpy(p + 5, &now, 8);
    *pp = p + 13;
}

static inline unsigned char *put_func(unsigned char *p, const rmon *m, int id)
{
    uint32_t f = m->first + (uint32_t)id;
    if (__builtin_expect(m->wide != 0, 0)) { /* constant sizes: a memcpy of n bytes is a loop */
        memcpy(p, &f, 4);
        return p + 4;
    }
    uint16_t f16 = (uint16_t)f;
    memcpy(p, &f16, 2);
    return p + 2;
}

/* NULL when the thread has no ring (counted when it asked for one) or is
 * recording an event already (a signal handler interrupted the hook). */
static inline rt_ring *begin(void)
{
    rt_ring *r = rt_ring_self();
    if (__builtin_expect(!r || r->busy, 0)) {
        if (r)
            rt_lost(r, TFR_LOST_NESTED, 1);
        return NULL;
    }
    r->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return r;
}

static inline void end(rt_ring *r)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    r->busy = 0;
}

static inline uint64_t now_for(const rt_ring *r)
{
    uint64_t now = tf__clock_now();
    return now < r->last ? r->last : now; /* a stream's time never goes back */
}

/* An event with no values: header and func (enter, exit). */
static inline void plain(const rmon *m, int kind, int id)
{
    rt_ring *r = begin();
    if (!r)
        return;
    uint64_t now = now_for(r);
    unsigned char *p = rt_ring_reserve(r, 17, now);
    if (__builtin_expect(p != NULL, 1)) { /* else counted by the ring */
        put_header(&p, r, (uint32_t)kind + m->wide, now);
        p = put_func(p, m, id);
        rt_ring_commit(r, p, now);
    }
    end(r);
}

static void nv_enter(tf_monitor *self, int id, const tf_args *args)
{
    plain((const rmon *)self, RC_ENTER, id);
}

static void nv_exit(tf_monitor *self, int id, const tf_value *result)
{
    plain((const rmon *)self, RC_EXIT, id);
}

/* ---- values ---------------------------------------------------------------- */

static inline uint32_t width(uint32_t size)
{
    static const unsigned char widths[8] = {8, 1, 2, 8, 4, 8, 8, 8};
    return size < 8 ? widths[size] : 8;
}

/* The plain kinds first: a wide value's shape (rc_shape) is worked out only
 * for the wide and unknown kinds. */
static size_t value_max(const tf_value *v)
{
    tf_elems e;
    switch (v->kind) {
    case TF_K_STR: return TF_STR_MAX + 4;
    case TF_K_INT: case TF_K_UINT: case TF_K_BOOL: case TF_K_FLOAT:
    case TF_K_PTR: case TF_K_ENUM: case TF_K_STRUCT: return 8;
    default: break;
    }
    switch (rc_shape(v, &e)) {
    case RV_INT128:
    case RV_COMPLEX: return 16;
    case RV_VECTOR: return (size_t)e.count * rc_elem_width(&e);
    default: return 1; /* RV_UNKNOWN */
    }
}

/* The recorded fields of rc_shape (classes.c): an __int128 as its bytes
 * (little-endian: low half first), complex parts and floating elements as
 * doubles, integer elements as they are; zeros for a hand-made value
 * without an address. */
static unsigned char *put_wide(unsigned char *p, const tf_value *v, int shape, const tf_elems *e)
{
    const unsigned char *from = v->v.p;
    size_t n = shape == RV_INT128 ? 16 : (size_t)e->count * rc_elem_width(e);
    if (!from || shape == RV_UNKNOWN) {
        memset(p, 0, shape == RV_UNKNOWN ? 1 : n);
        return p + (shape == RV_UNKNOWN ? 1 : n);
    }
    if (shape == RV_INT128 || (e->cls != 'f' && e->cls != 'x')) {
        memcpy(p, from, n);
        return p + n;
    }
    for (unsigned i = 0; i < e->count; i++, p += 8) {
        double d = tf__elem_double(e, from + (size_t)i * e->bytes);
        memcpy(p, &d, 8);
    }
    return p;
}

/* A `char *` value, copied by libtf's reader that cannot fault (safe_read.c):
 * at most TF_STR_MAX bytes, "..." if cut there or by unreadable memory, then
 * its NUL. *unreadable: not even the first byte could be read. */
static unsigned char *put_string(unsigned char *p, const char *s, int *unreadable)
{
    int end;
    size_t n = tf__copy_str((char *)p, s, TF_STR_MAX + 1, &end);
    *unreadable |= n == 0 && end == TF_STR_FAULT;
    p += n > TF_STR_MAX ? TF_STR_MAX : n;
    if (end != TF_STR_NUL) {
        memcpy(p, "...", 3);
        p += 3;
    }
    *p = 0;
    return p + 1;
}

/* How put_value writes a value of fixed size whatever it holds (a string
 * may be unreadable, a wide value's shape is worked out, a captured one is
 * read): 1, 2, 4 or 8, its first bytes; LAY_BOOL, 0 or 1; LAY_STRUCT, a
 * zero byte. 0: not fixed. */
enum { LAY_BOOL = 9, LAY_STRUCT = 10, LAY_MAX_VALUES = 8 };
static unsigned fixed_code(const tf_value *v)
{
    switch (v->kind) {
    case TF_K_INT: case TF_K_UINT: case TF_K_ENUM: return width(v->size);
    case TF_K_FLOAT: return 8; /* a double */
    case TF_K_PTR: return tf__captured(v) ? 0 : 8;
    case TF_K_BOOL: return LAY_BOOL;
    case TF_K_STRUCT: return LAY_STRUCT;
    default: return 0;
    }
}

/* The codes of v[n], 4 bits each from the lowest; 0 when one is not fixed
 * or there are more than LAY_MAX_VALUES. */
static uint32_t layout_of(const tf_value *v, uint32_t n)
{
    uint32_t lay = 0;
    for (uint32_t i = 0; i < n; i++) {
        unsigned code = fixed_code(&v[i]);
        if (!code || i >= LAY_MAX_VALUES)
            return 0;
        lay |= code << (4 * i);
    }
    return lay;
}

/* as_ptr: a string value shown as the pointer it is (NULL, or unreadable). */
static unsigned char *put_value(unsigned char *p, const tf_value *v, int as_ptr, int *unreadable)
{
    tf_elems e;
    switch (v->kind) {
    case TF_K_INT: case TF_K_UINT: case TF_K_ENUM:
        memcpy(p, &v->v.u, width(v->size));
        return p + width(v->size);
    case TF_K_BOOL:
        *p = v->v.u != 0;
        return p + 1;
    case TF_K_STRUCT:
        *p = 0;
        return p + 1;
    case TF_K_STR:
        if (!as_ptr)
            return put_string(p, v->v.s, unreadable);
        __attribute__((fallthrough));
    case TF_K_FLOAT: /* a double */
    case TF_K_PTR:
        memcpy(p, &v->v.u, 8);
        return p + 8;
    default: /* wide, or a kind this libtf does not know */
        return put_wide(p, v, rc_shape(v, &e), &e);
    }
}

unsigned char *rc_put_value(unsigned char *p, const tf_value *v, int as_ptr, int *unreadable)
{
    return put_value(p, v, as_ptr, unreadable);
}

/* Bit i: v[i] is a string shown as a pointer (only the first 64 values can
 * be; a later unreadable string loses its event, counted as discarded). */
static uint64_t null_strings(const tf_value *v, uint32_t n)
{
    uint64_t ptrs = 0;
    for (uint32_t i = 0; i < n && i < 64; i++)
        if (v[i].kind == TF_K_STR && !v[i].v.s)
            ptrs |= 1ull << i;
    return ptrs;
}

static uint64_t unreadable_strings(const tf_value *v, uint32_t n)
{
    uint64_t ptrs = 0;
    for (uint32_t i = 0; i < n && i < 64; i++) {
        char c;
        int end;
        if (v[i].kind == TF_K_STR && v[i].v.s && tf__copy_str(&c, v[i].v.s, 1, &end) == 0 &&
            end == TF_STR_FAULT)
            ptrs |= 1ull << i;
    }
    return ptrs;
}

/* The class of an event with values; the cache holds the usual one (every
 * string a string, the signature's only variant). */
static uint32_t class_of(const rmon *m, int kind, int id, const tf_value *v, uint32_t n, uint64_t ptrs,
                         const uint64_t *shapes)
{
    uint64_t *slot = &m->cache[(uint32_t)kind * m->n + (uint32_t)id];
    uint32_t c = ptrs || shapes ? 0 : (uint32_t)__atomic_load_n(slot, __ATOMIC_RELAXED) & ~RV_FIXED;
    if (__builtin_expect(c != 0, 1))
        return c;
    c = rc_class(kind, (int)m->wide, v, n, ptrs, shapes);
    uint32_t lay = layout_of(v, n);
    if (c && !ptrs && !shapes)
        __atomic_store_n(slot, c | (lay ? RV_FIXED : 0) | (uint64_t)lay << 32, __ATOMIC_RELAXED);
    return c;
}

/* The values as layout_of's lay says (room for LAY_MAX_VALUES of 8 bytes). */
static inline unsigned char *put_laid(unsigned char *p, const tf_value *v, uint32_t lay)
{
    for (; lay; lay >>= 4, v++) {
        unsigned code = lay & 15;
        if (__builtin_expect(code <= 8, 1)) {
            memcpy(p, &v->v.u, 8); /* little-endian: the low bytes; the rest is overwritten */
            p += code;
        } else {
            *p++ = code == LAY_BOOL && v->v.u != 0;
        }
    }
    return p;
}

/* Writes one event with values: head (func, and for info: info, tp) then
 * v[n], ptrs as in null_strings. Returns 1, committing nothing, if a string
 * not in ptrs turned out unreadable. */
static int write_valued(rt_ring *r, const rmon *m, int kind, int id, int info, int tp,
                        const tf_value *v, uint32_t n, uint64_t ptrs, const uint64_t *shapes)
{
    /* 0 from class_of is a failure; without values the fixed classes (0 too) */
    uint32_t cls = n ? class_of(m, kind, kind == RC_INFO ? info : id, v, n, ptrs, shapes)
                     : (uint32_t)kind + m->wide;
    int known = !n || cls != 0, unreadable = 0;
    size_t max = 13 + 9;
    for (uint32_t i = 0; i < n; i++)
        max += shapes && tf__captured(&v[i]) ? rcap_max(&v[i]) : value_max(&v[i]);
    uint64_t now = now_for(r);
    if (!known) {
        rt_lost(r, TFR_LOST_CLASS, 1);
        return 0;
    }
    unsigned char *p = rt_ring_reserve(r, max, now);
    if (!p)
        return 0; /* counted by the ring */
    put_header(&p, r, cls, now);
    p = put_func(p, m, id);
    if (kind == RC_INFO) {
        p = put_func(p, m, info);
        *p++ = (unsigned char)tp;
    }
    tf_args args = {n, 0, v}; /* the lengths of captured arrays */
    for (uint32_t i = 0; i < n; i++)
        p = shapes && tf__captured(&v[i]) ? rcap_put(p, &v[i], kind == RC_EXIT ? NULL : &args, shapes[i])
                                          : put_value(p, &v[i], i < 64 && (ptrs >> i & 1), &unreadable);
    if (!unreadable)
        rt_ring_commit(r, p, now);
    return unreadable;
}

/* Every event with values that fixed_leaf did not write: strings, wide
 * and captured values, info calls, a first call, a packet to open; out of
 * line, so that the hooks' common case saves no register for it. A string
 * whose first byte cannot be read is recorded as the pointer it is, in the
 * signature's variant with a pointer there: found out by writing the event,
 * which is then written again (a rare case pays, not every string). */
static __attribute__((noinline)) void valued(const rmon *m, int kind, int id, int info, int tp,
                                             const tf_value *v, uint32_t n)
{
    rt_ring *r = begin();
    if (!r)
        return;
    uint64_t ptrs = null_strings(v, n);
    const uint64_t *shapes = NULL;
    uint64_t shape[n ? n : 1];
    for (uint32_t i = 0; i < n; i++)
        if (tf__captured(&v[i])) { /* what each captured value's memory lets us read now */
            shape[i] = rcap_shape(&v[i], &(tf_args){n, 0, v});
            shapes = shape;
        }
    if (write_valued(r, m, kind, id, info, tp, v, n, ptrs, shapes) &&
        write_valued(r, m, kind, id, info, tp, v, n, ptrs | unreadable_strings(v, n), shapes))
        rt_lost(r, TFR_LOST_STRING, 1);
    if (kind == RC_INFO) /* its packet is kept from the thread's hot calls (.rec.rare) */
        r->rare = 1;
    end(r);
}

/* The fixed case with nothing in its way (a ring, not busy, the TSC, room
 * in the packet): a leaf, so that the hooks save no registers for it (a
 * clock_gettime call in it costs 30 instructions a fib call); 0 when
 * valued() must do it. */
static inline __attribute__((always_inline)) int fixed_leaf(const rmon *m, int kind, int id,
                                                            const tf_value *v)
{
    rt_ring *r = rt_self;
    if (__builtin_expect(!r || r->busy || !tf__clock_tsc, 0))
        return 0;
    r->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint64_t slot = __atomic_load_n(&m->cache[(uint32_t)kind * m->n + (uint32_t)id], __ATOMIC_RELAXED);
    uint64_t now = __builtin_ia32_rdtsc(); /* tf__clock_now, its call left out: a leaf */
    now = now < r->last ? r->last : now;
    unsigned char *p = (unsigned char *)(uintptr_t)r->pos;
    int done = (slot & RV_FIXED) && r->pos + 13 + 4 + 8 * LAY_MAX_VALUES <= r->end;
    if (__builtin_expect(done, 1)) {
        put_header(&p, r, (uint32_t)slot & ~RV_FIXED, now);
        p = put_func(p, m, id);
        p = put_laid(p, v, (uint32_t)(slot >> 32));
        rt_ring_commit(r, p, now);
    }
    end(r);
    return done;
}

static void v_enter(tf_monitor *self, int id, const tf_args *args)
{
    const tf_value *v = args ? args->values : NULL;
    uint32_t n = args ? args->count : 0;
    if (__builtin_expect(n != 0 && fixed_leaf((const rmon *)self, RC_ENTER, id, v), 1))
        return;
    valued((const rmon *)self, RC_ENTER, id, 0, 0, v, n);
}

static void v_exit(tf_monitor *self, int id, const tf_value *result)
{
    if (__builtin_expect(result && fixed_leaf((const rmon *)self, RC_EXIT, id, result), 1))
        return;
    valued((const rmon *)self, RC_EXIT, id, 0, 0, result, result ? 1 : 0);
}

static void r_info(tf_monitor *self, const tf_args *args, int caller, int id, tf_tp_type tp)
{
    int t = tp == TF_TP_ENTER ? 1 : tp == TF_TP_EXIT ? 2 : 0;
    valued((const rmon *)self, RC_INFO, caller, id, t, args ? args->values : NULL,
           args ? args->count : 0);
}

static void r_exception(tf_monitor *self, int id, const tf_exception *exc)
{
    const rmon *m = (const rmon *)self;
    char type[TF_STR_MAX + 8];
    if (exc->kind == TF_EXC_NORETURN && exc->name) { /* the callee, without dprint's decoration */
        size_t n = strnlen(exc->name, sizeof type - 1);
        memcpy(type, exc->name, n);
        type[n] = 0;
    } else {
        tf_exception_type(exc, type, sizeof type);
    }
    tf_value v = {"type", TF_K_STR, sizeof(char *), {.s = type}, NULL};
    rt_ring *r = begin();
    if (!r)
        return;
    uint64_t now = now_for(r);
    unsigned char *p = rt_ring_reserve(r, 13 + 5 + value_max(&v), now);
    if (p) {
        put_header(&p, r, RC_EXC + m->wide, now);
        p = put_func(p, m, id);
        *p++ = (unsigned char)exc->kind;
        int unreadable = 0; /* type is ours */
        p = put_value(p, &v, 0, &unreadable);
        rt_ring_commit(r, p, now);
        r->rare = 1;
    }
    end(r);
}

/* ---- the signal that ends the process (events.def: tf:signal) ------------------- */

int rt_signal_has_address(int sig, const siginfo_t *info)
{
    return info && info->si_code > 0 &&
           (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP);
}

void rt_record_signal(int sig, const siginfo_t *info, int dying)
{
    rt_ring *r = rt_ring_self();
    if (!r)
        return;
    if (r->busy && !dying) { /* the interrupted event will be finished: it keeps its place */
        rt_lost(r, TFR_LOST_NESTED, 1);
        return;
    }
    r->busy = 1; /* dying: the event being written, if any, is given up for this one */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint64_t now = now_for(r);
    unsigned char *p = rt_ring_reserve(r, 13 + 13, now);
    if (p) {
        int32_t code = info ? info->si_code : 0;
        uint64_t addr = rt_signal_has_address(sig, info) ? (uint64_t)(uintptr_t)info->si_addr : 0;
        put_header(&p, r, RC_SIGNAL, now);
        *p++ = (unsigned char)sig;
        memcpy(p, &code, 4);
        memcpy(p + 4, &addr, 8);
        rt_ring_commit(r, p + 12, now);
        r->rare = 1;
    }
    end(r);
}

/* tf:counters (events.def): the watchdog's sampling thread, between its own
 * events as any event is. */
int rt_record_counters(const uint64_t v[RC_NCOUNTERS])
{
    rt_ring *r = begin();
    if (!r)
        return -1;
    uint64_t now = now_for(r);
    size_t n = RC_NCOUNTERS * sizeof v[0];
    unsigned char *p = rt_ring_reserve(r, 13 + n, now);
    if (p) {
        put_header(&p, r, RC_COUNTERS, now);
        memcpy(p, v, n);
        rt_ring_commit(r, p + n, now);
    }
    end(r);
    return p ? 0 : -1;
}

/* tf:budget (events.def): the budget thread, between its own events as any
 * event is. */
static size_t cut(const char *s)
{
    size_t n = strlen(s);
    return n < RC_BUDGET_STR ? n : RC_BUDGET_STR;
}

int rt_record_budget(const double v[RC_NBUDGET], const char *func, const char *action)
{
    rt_ring *r = begin();
    if (!r)
        return -1;
    uint64_t now = now_for(r);
    size_t nv = RC_NBUDGET * sizeof v[0], nf = cut(func), na = cut(action);
    unsigned char *p = rt_ring_reserve(r, 13 + nv + nf + 1 + na + 1, now);
    if (p) {
        put_header(&p, r, RC_BUDGET, now);
        memcpy(p, v, nv);
        p += nv;
        memcpy(p, func, nf);
        p[nf] = 0;
        p += nf + 1;
        memcpy(p, action, na);
        p[na] = 0;
        rt_ring_commit(r, p + na + 1, now);
    }
    end(r);
    return p ? 0 : -1;
}

/* ---- monitors and the factory ------------------------------------------------ */

static void r_clear(tf_monitor *self) {}

static void r_destroy(tf_monitor *self)
{
    free(((rmon *)self)->cache);
    free(self);
}

static const tf_monitor_ops values_ops = {
    .enter = v_enter, .info = r_info, .exit = v_exit, .exception = r_exception, .clear = r_clear,
    .destroy = r_destroy
};
static const tf_monitor_ops plain_ops = {
    .enter = nv_enter, .info = r_info, .exit = nv_exit, .exception = r_exception, .clear = r_clear,
    .destroy = r_destroy, .flags = TF_OPS_NO_VALUES
};

static tf_monitor *r_create(tf_factory *f, const tf_tu *tu)
{
    TF_KEEP_ERRNO();
    uint32_t first = rc_tu_base(tu);
    rmon *m = first == UINT32_MAX ? NULL : calloc(1, sizeof *m);
    if (m) {
        m->base = (tf_monitor){rt_cfg.values ? &values_ops : &plain_ops, tu, f};
        m->first = first;
        m->wide = first + tu->nnames > 65536 ? RC_WIDE : 0;
        m->n = tu->nnames ? tu->nnames : 1;
        m->cache = calloc(3 * (size_t)m->n, sizeof *m->cache);
        if (!m->cache) {
            free(m);
            m = NULL;
        }
    }
    TF_RESTORE_ERRNO();
    if (!m)
        errno = ENOMEM; /* the registry says why no monitor was made */
    return m ? &m->base : NULL;
}

static tf_factory factory = {.name = "record", .create = r_create, .flags = TF_FACTORY_NO_GUARD};
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void set_up(void)
{
    rt_configure();
    tf__clock_init();
    rm_init();
    rd_init();
    if (rt_cfg.stream)
        rs_start();
}

TF_API tf_factory *tf_record(void)
{
    pthread_once(&once, set_up);
    return &factory;
}

static tf_factory *make(const char *name)
{
    return tf_record();
}

TF_ENV_FACTORY(record, "record", "flight recorder: a CTF trace in TF_RECORD at exit, on a crash, on demand", make);

TF_API int tf_record_snapshot(const char *dir)
{
    if (!rt_pool_now())
        return TF_EINVAL;
    if (dir)
        rd_clean(dir);
    return rd_dump(dir, 0) == 0 ? TF_OK : TF_EPERM;
}

/* The child records its own calls into its own directory (README). */
void tf__record_fork(int phase)
{
    if (!rt_cfg.pid)
        return;
    if (phase == TF_FORK_PREPARE) { /* the pool's lock, then the classes' (pool.c's order) */
        rt_ring_fork(phase);
        rc_fork(phase);
        return;
    }
    rc_fork(phase);
    rt_ring_fork(phase);
    if (phase != TF_FORK_CHILD)
        return;
    rd_fork_child();
    rs_fork_child();
}
