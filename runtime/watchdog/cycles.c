/*
 * cycles.c: threads that wait on each other (.wd.cycles). The nodes are the
 * threads blocked for DURATION in a lock function (locks.c); thread A has
 * an edge to thread B when B holds the lock A waits for: glibc's owner of
 * a mutex or write-locked rwlock, or a thread whose record lists the lock
 * among those it holds (read locks). A cycle of such edges never resolves
 * by itself: each thread in it waits for the next. Found by a depth-first
 * search; each cycle is reported once (its threads are not nodes again
 * until they wait anew).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "watchdog.h"

typedef struct node {
    wd_thread *t;
    const void *lock;  /* what it waits for, read consistently with: */
    int kind;
    uint64_t waits, t0;
    const tf_tu *tu;   /* the innermost open call when it began to wait */
    int32_t id;
    int *succ, nsucc;
    int color;         /* 0 unseen, 1 on the path, 2 done */
    int next;          /* the DFS: the successor to try next */
} node;

/* The entry of t's record for lock, copied; 0 if none. */
static int held_entry(wd_thread *t, const void *lock, wd_held *out)
{
    int n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    for (int i = n < WD_HELD ? n : WD_HELD; i-- > 0;)
        if (WD_GET(t->held[i].lock) == lock) {
            *out = (wd_held){lock, WD_GET(t->held[i].kind), WD_GET(t->held[i].id), WD_GET(t->held[i].tu)};
            return 1;
        }
    return 0;
}

static int holds(wd_thread *t, const void *lock)
{
    wd_held h;
    return held_entry(t, lock, &h);
}

static void edges(node *v, int n)
{
    for (int i = 0; i < n; i++) {
        int owner = wd_lock_owner(v[i].lock, v[i].kind);
        v[i].succ = malloc((size_t)n * sizeof *v[i].succ);
        for (int j = 0; v[i].succ && j < n; j++)
            if ((owner && v[j].t->tid == owner) || holds(v[j].t, v[i].lock))
                v[i].succ[v[i].nsucc++] = j;
    }
}

/* "mutex 0x... (taken in f.g)" for the lock t holds: how it holds it (a
 * reader of an rwlock another waits to write) is in its record; kind, the
 * waiter's, if the record has none. */
static void put_held(FILE *f, wd_thread *t, const void *lock, int kind)
{
    wd_held e;
    const wd_held *h = held_entry(t, lock, &e) ? &e : NULL;
    fprintf(f, "%s %p (", wd_lock_kind_name(h ? h->kind : kind), lock);
    const char *fn = h && h->tu ? tf_method_name(h->tu, h->id) : NULL;
    if (!h)
        fputs("taken before the watchdog saw it)", f);
    else if (h->tu)
        fprintf(f, "taken in %s.%s)", h->tu->name, fn ? fn : "?");
    else
        fputs("taken outside monitored calls)", f);
}

static void put_wait(FILE *f, const node *v)
{
    const char *fn = v->tu ? tf_method_name(v->tu, v->id) : NULL;
    fprintf(f, "%s %p (", wd_lock_kind_name(v->kind), v->lock);
    if (v->tu)
        fprintf(f, "in %s.%s)", v->tu->name, fn ? fn : "?");
    else
        fputs("outside monitored calls)", f);
}

/* path[0] waits for a lock path[1] holds, ..., path[m-1] for one path[0] holds. */
static void say(wd_scan *s, node *v, const int *path, int m)
{
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < m; i++)
        if (s->now_ticks - v[path[i]].t0 < least)
            least = s->now_ticks - v[path[i]].t0;
    char took[64];
    tf_buf b = {took, sizeof took, 0};
    wd_buf_duration(&b, wd_ns(least));
    fprintf(s->f, "tf: watchdog: lock cycle: %d thread%s blocked for %s, each waiting for a lock "
                  "the next one holds%s\n", m, m == 1 ? "" : "s", tf__buf_end(&b), wd_scan_where(s));
    for (int i = 0; i < m; i++) {
        const node *me = &v[path[i]], *before = &v[path[(i + m - 1) % m]];
        fputs("  ", s->f);
        wd_put_thread(s->f, me->t);
        if (m == 1) {
            fputs(" waits for ", s->f);
            put_wait(s->f, me);
            fputs(", which it holds itself: ", s->f);
            put_held(s->f, me->t, me->lock, me->kind);
        } else {
            fputs(" holds ", s->f);
            put_held(s->f, me->t, before->lock, before->kind);
            fputs(" and waits for ", s->f);
            put_wait(s->f, me);
        }
        fputc('\n', s->f);
    }
    for (int i = 0; i < m; i++) {
        v[path[i]].t->cycle_reported = v[path[i]].waits;
        if (wd_scan_add(s, v[path[i]].t))
            wd_thread_block(s, v[path[i]].t);
    }
}

/* Depth-first from r; a successor on the path closes a cycle. */
static void search(wd_scan *s, node *v, int r, int *path)
{
    int depth = 0;
    path[depth++] = r;
    v[r].color = 1;
    while (depth) {
        node *u = &v[path[depth - 1]];
        if (u->next == u->nsucc) {
            u->color = 2;
            depth--;
            continue;
        }
        int w = u->succ[u->next++];
        if (v[w].color == 1) {
            int from = depth - 1;
            while (path[from] != w)
                from--;
            say(s, v, path + from, depth - from);
        } else if (v[w].color == 0) {
            v[w].color = 1;
            path[depth++] = w;
        }
    }
}

/* t's wait, if it has lasted DURATION and is not reported yet: read
 * between two loads of its count of waits, so that all is of one wait. */
static int waiting_long(const wd_scan *s, wd_thread *t, node *out)
{
    uint64_t waits = __atomic_load_n(&t->waits, __ATOMIC_ACQUIRE);
    node v = {t, __atomic_load_n(&t->waiting, __ATOMIC_ACQUIRE), WD_GET(t->wait_kind), waits,
              WD_GET(t->wait_t0), WD_GET(t->wait_tu), WD_GET(t->wait_id), NULL, 0, 0, 0};
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!v.lock || __atomic_load_n(&t->waits, __ATOMIC_RELAXED) != waits ||
        t->cycle_reported == waits || wd_ns(s->now_ticks - v.t0) < s->spec.ns)
        return 0;
    *out = v;
    return 1;
}

void wd_cycles(wd_scan *s)
{
    int n = 0, cap = 0;
    node *v = NULL, one;
    for (wd_thread *t = wd_threads(); t; t = wd_next(t)) {
        if (!__atomic_load_n(&t->rec.used, __ATOMIC_ACQUIRE) || !waiting_long(s, t, &one))
            continue;
        if (n == cap) {
            node *bigger = realloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *v);
            if (!bigger)
                break;
            v = bigger;
        }
        v[n++] = one;
    }
    int *path = n ? malloc((size_t)n * sizeof *path) : NULL;
    if (path) {
        edges(v, n);
        for (int i = 0; i < n; i++)
            if (v[i].color == 0)
                search(s, v, i, path);
    }
    for (int i = 0; i < n; i++)
        free(v[i].succ);
    free(path);
    free(v);
}
