/*
 * timing_calls.c: call sites under their callers (docs/design.md .call.time).
 * A call site is a timing point of its own, `<tu>.write`, shared by every
 * function of the TU that calls write; the report also says which function
 * made the calls, "write under handle_request": statistics per edge
 * (caller's timer, call site's timer), kept like a timer's, per thread,
 * merged when a thread exits and when a report is made.
 *
 * An edge table is open addressing over (caller, callee) indices, grown
 * with pages.c and its statistics from the owner's arena, so the hooks never
 * call malloc. Only its owner writes it (a thread its own, the manager
 * under its lock); readers load entries with acquire.
 */
#include <string.h>

#include "timing_internal.h"

static uint32_t slot_of(uint32_t caller, uint32_t callee, uint32_t cap)
{
    uint64_t h = ((uint64_t)caller << 32 | callee) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & (cap - 1);
}

/* Doubles the table (first: 64 entries); 0 when out of memory. The old
 * table stays until the owner goes (tt_edges_free): a report on another
 * thread may still be reading it. Table k of old has 64 << k entries. */
static int grow(tt_edges *e)
{
    uint32_t cap = e->cap ? 2 * e->cap : 64;
    if (e->nold == TT_EDGE_TABLES)
        return 0;
    tt_edge *t = tf__pages_alloc(cap * sizeof *t);
    if (!t)
        return 0;
    for (uint32_t i = 0; i < e->cap; i++) {
        tt_edge *old = &e->v[i];
        if (!old->stats)
            continue;
        uint32_t j = slot_of(old->caller, old->callee, cap);
        while (t[j].stats)
            j = (j + 1) & (cap - 1);
        t[j] = *old;
    }
    if (e->v)
        e->old[e->nold++] = e->v;
    __atomic_store_n(&e->v, t, __ATOMIC_RELEASE);
    __atomic_store_n(&e->cap, cap, __ATOMIC_RELEASE);
    return 1;
}

tt_stats *tt_edge_stats(tt_edges *e, tf_arena *a, uint32_t caller, uint32_t callee)
{
    if (2 * (e->n + 1) > e->cap && !grow(e))
        return NULL;
    uint32_t j = slot_of(caller, callee, e->cap);
    for (; e->v[j].stats; j = (j + 1) & (e->cap - 1))
        if (e->v[j].caller == caller && e->v[j].callee == callee)
            return e->v[j].stats;
    tt_stats *s = tf__arena_alloc(a, sizeof *s);
    if (!s)
        return NULL;
    s->min = UINT64_MAX;
    e->v[j].caller = caller;
    e->v[j].callee = callee;
    __atomic_store_n(&e->v[j].stats, s, __ATOMIC_RELEASE);
    e->n++;
    return s;
}

void tt_edges_merge_into(tt_edges *into, tf_arena *a, const tt_edges *from)
{
    tt_edge *v = __atomic_load_n(&from->v, __ATOMIC_ACQUIRE);
    uint32_t cap = __atomic_load_n(&from->cap, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < cap; i++) {
        tt_stats *s = __atomic_load_n(&v[i].stats, __ATOMIC_ACQUIRE);
        tt_stats *to = s ? tt_edge_stats(into, a, v[i].caller, v[i].callee) : NULL;
        if (to)
            tt_stats_merge_into(to, s);
    }
}

void tt_edges_foreach(const tt_edges *e, void (*fn)(uint32_t caller, uint32_t callee, const tt_stats *, void *),
                      void *arg)
{
    tt_edge *v = __atomic_load_n(&e->v, __ATOMIC_ACQUIRE);
    uint32_t cap = __atomic_load_n(&e->cap, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < cap; i++) {
        tt_stats *s = __atomic_load_n(&v[i].stats, __ATOMIC_ACQUIRE);
        if (s)
            fn(v[i].caller, v[i].callee, s, arg);
    }
}

void tt_edges_zero(tt_edges *e)
{
    for (uint32_t i = 0; i < e->cap; i++)
        if (e->v[i].stats)
            memset(e->v[i].stats, 0, sizeof *e->v[i].stats);
}

void tt_edges_free(tt_edges *e)
{
    tf__pages_free(e->v, e->cap * sizeof *e->v);
    for (uint32_t k = 0; k < e->nold; k++)
        tf__pages_free(e->old[k], ((size_t)64 << k) * sizeof *e->v);
    memset(e, 0, sizeof *e);
}
