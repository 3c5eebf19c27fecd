/*
 * budget.c: tf:budget, a decision of the overhead budget (runtime/budget:
 * a function switched off, tried again, re-admitted), as one event in the
 * budget thread's ring, between its other events as any event is. Rare, so
 * it always takes the extended event header (13 bytes), as tf:counters.
 * Strings are cut at 255 bytes.
 */
#include <string.h>

#include "record.h"

#define STR_MAX 255

static size_t str_len(const char *s)
{
    size_t n = strlen(s);
    return n < STR_MAX ? n : STR_MAX;
}

int rt_record_budget(const double v[RC_NBUDGET], const char *func, const char *action)
{
    static uint32_t cls;
    if (!cls)
        cls = rc_budget_class();
    rt_ring *r = rt_ring_self();
    if (!cls || !r || r->busy) {
        if (r)
            r->discarded++;
        return -1;
    }
    r->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint64_t now = tf__clock_now();
    now = now < r->last ? r->last : now; /* a stream's time never goes back */
    size_t nf = str_len(func), na = str_len(action);
    size_t n = 13 + RC_NBUDGET * sizeof v[0] + nf + 1 + na + 1;
    unsigned char *p = rt_ring_reserve(r, n, now);
    if (p) {
        unsigned char *q = p + 13 + RC_NBUDGET * sizeof v[0];
        p[0] = 31; /* the header's 5-bit id: extended, then the class and the whole time */
        memcpy(p + 1, &cls, 4);
        memcpy(p + 5, &now, 8);
        memcpy(p + 13, v, RC_NBUDGET * sizeof v[0]);
        memcpy(q, func, nf);
        q[nf] = 0;
        memcpy(q + nf + 1, action, na);
        q[nf + 1 + na] = 0;
        rt_ring_commit(r, p + n, now);
    } else {
        r->discarded++;
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    r->busy = 0;
    return p ? 0 : -1;
}
