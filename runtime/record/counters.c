/*
 * counters.c: tf:counters, the process's resource counters that the
 * watchdog samples (runtime/watchdog/sample.c), as one event in the calling
 * thread's ring, between a thread's events as any event is. Rare (once a
 * TF_SAMPLE), so it always takes the extended event header (13 bytes) and
 * never the compact one's rules.
 */
#include <string.h>

#include "record.h"

int rt_record_counters(const uint64_t v[RC_NCOUNTERS])
{
    static uint32_t cls;
    if (!cls)
        cls = rc_counters_class();
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
    size_t n = 13 + RC_NCOUNTERS * sizeof v[0];
    unsigned char *p = rt_ring_reserve(r, n, now);
    if (p) {
        p[0] = 31; /* the header's 5-bit id: extended, then the class and the whole time */
        memcpy(p + 1, &cls, 4);
        memcpy(p + 5, &now, 8);
        memcpy(p + 13, v, RC_NCOUNTERS * sizeof v[0]);
        rt_ring_commit(r, p + n, now);
    } else {
        r->discarded++;
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    r->busy = 0;
    return p ? 0 : -1;
}
