/*
 * locks.c: the pthread lock functions as the watchdog sees them (.wd.locks).
 *
 * Only while a watchdog runs, every loaded object's calls of
 * pthread_mutex_lock, _timedlock, _clocklock, _trylock, _unlock and of
 * pthread_rwlock_rdlock, _wrlock, their timed, clock and try forms and
 * _unlock reach the wrappers below (got.c rewrites the objects' GOT entries;
 * without a watchdog nothing is rewritten and a lock costs what it costs).
 * A wrapper notes on its thread's record the lock it is about to wait for
 * and the innermost monitored call open, calls the real function, and on
 * success adds the lock to the locks the thread holds. The watchdog thread
 * reads these to find threads that wait on each other in a cycle.
 *
 * Who holds a mutex is also in glibc's own mutex (__owner, the holder's
 * tid; __cur_writer for a write-locked rwlock): that is the truth the cycle
 * search uses, so a lock taken before the watchdog started, or unlocked on
 * another thread, is still attributed right. Read locks are known only
 * from the records.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>

#include "watchdog.h"
#include "../clock.h"

static const char *const kind_names[] = {"?", "mutex", "rwlock (read)", "rwlock (write)"};

const char *wd_lock_kind_name(int kind)
{
    return kind >= WD_MUTEX && kind <= WD_WRLOCK ? kind_names[kind] : kind_names[0];
}

int wd_lock_owner(const void *lock, int kind)
{
#ifdef __GLIBC__
    if (kind == WD_MUTEX)
        return __atomic_load_n(&((const pthread_mutex_t *)lock)->__data.__owner, __ATOMIC_RELAXED);
    if (kind == WD_WRLOCK || kind == WD_RDLOCK)
        return __atomic_load_n(&((const pthread_rwlock_t *)lock)->__data.__cur_writer, __ATOMIC_RELAXED);
#endif
    return 0;
}

/* ---- the record of a thread's waits and locks ------------------------------ */

static void begin_wait(wd_thread *t, const void *lock, int kind)
{
    const tf_tu *tu;
    int32_t id;
    wd_innermost(t, &tu, &id);
    WD_SET(t->wait_tu, tu);
    WD_SET(t->wait_id, id);
    WD_SET(t->wait_kind, kind);
    WD_SET(t->wait_t0, tf__clock_now());
    __atomic_store_n(&t->waits, t->waits + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&t->waiting, lock, __ATOMIC_RELEASE);
}

static void end_wait(wd_thread *t)
{
    __atomic_store_n(&t->waiting, NULL, __ATOMIC_RELEASE);
}

static void put(wd_held *to, const wd_held *from)
{
    WD_SET(to->lock, from->lock);
    WD_SET(to->kind, from->kind);
    WD_SET(to->id, from->id);
    WD_SET(to->tu, from->tu);
}

static void held(wd_thread *t, const void *lock, int kind)
{
    if (t->nheld == WD_HELD) {
        t->held_lost++; /* the cycle search still has glibc's owner for a mutex */
        return;
    }
    wd_held h = {lock, kind, -1, NULL};
    wd_innermost(t, &h.tu, &h.id);
    put(&t->held[t->nheld], &h);
    __atomic_store_n(&t->nheld, t->nheld + 1, __ATOMIC_RELEASE);
}

static void released(wd_thread *t, const void *lock)
{
    for (int i = t->nheld - 1; i >= 0; i--)
        if (t->held[i].lock == lock) {
            for (; i + 1 < t->nheld; i++)
                put(&t->held[i], &t->held[i + 1]);
            __atomic_store_n(&t->nheld, t->nheld - 1, __ATOMIC_RELEASE);
            return;
        }
    if (t->held_lost)
        t->held_lost--;
}

/* ---- the wrappers -------------------------------------------------------------- */

static int (*mutex_lock)(pthread_mutex_t *);
static int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
static int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
static int (*mutex_trylock)(pthread_mutex_t *);
static int (*mutex_unlock)(pthread_mutex_t *);
static int (*rw_rdlock)(pthread_rwlock_t *);
static int (*rw_wrlock)(pthread_rwlock_t *);
static int (*rw_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
static int (*rw_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
static int (*rw_clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
static int (*rw_clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
static int (*rw_tryrdlock)(pthread_rwlock_t *);
static int (*rw_trywrlock)(pthread_rwlock_t *);
static int (*rw_unlock)(pthread_rwlock_t *);

/* A blocking lock: tried first, so that a lock free at once costs one
 * attempt and no clock read; else the wait is on the record, with its
 * start, while the real function blocks. EOWNERDEAD (a robust mutex) is a
 * lock taken too. */
#define BLOCKING(try, real, kind, lock, ...)                                   \
    do {                                                                       \
        int rc = try(lock);                                                    \
        wd_thread *t = wd_self();                                              \
        if (rc == EBUSY && t) {                                                \
            begin_wait(t, lock, kind);                                         \
            rc = real(lock, ##__VA_ARGS__);                                    \
            end_wait(t);                                                       \
        } else if (rc == EBUSY) {                                              \
            rc = real(lock, ##__VA_ARGS__);                                    \
        }                                                                      \
        if (t && (rc == 0 || rc == EOWNERDEAD))                                \
            held(t, lock, kind);                                               \
        return rc;                                                             \
    } while (0)

#define TRYING(real, kind, lock)                                               \
    do {                                                                       \
        int rc = real(lock);                                                   \
        wd_thread *t = rc == 0 || rc == EOWNERDEAD ? wd_self() : NULL;         \
        if (t)                                                                 \
            held(t, lock, kind);                                               \
        return rc;                                                             \
    } while (0)

#define RELEASING(real, lock)                                                  \
    do {                                                                       \
        wd_thread *t = wd_me;                                                  \
        if (t)                                                                 \
            released(t, lock);                                                 \
        return real(lock);                                                     \
    } while (0)

static int w_mutex_lock(pthread_mutex_t *m) { BLOCKING(mutex_trylock, mutex_lock, WD_MUTEX, m); }
static int w_mutex_timedlock(pthread_mutex_t *m, const struct timespec *at)
{
    BLOCKING(mutex_trylock, mutex_timedlock, WD_MUTEX, m, at);
}
static int w_mutex_clocklock(pthread_mutex_t *m, clockid_t c, const struct timespec *at)
{
    BLOCKING(mutex_trylock, mutex_clocklock, WD_MUTEX, m, c, at);
}
static int w_mutex_trylock(pthread_mutex_t *m) { TRYING(mutex_trylock, WD_MUTEX, m); }
static int w_mutex_unlock(pthread_mutex_t *m) { RELEASING(mutex_unlock, m); }
static int w_rdlock(pthread_rwlock_t *l) { BLOCKING(rw_tryrdlock, rw_rdlock, WD_RDLOCK, l); }
static int w_wrlock(pthread_rwlock_t *l) { BLOCKING(rw_trywrlock, rw_wrlock, WD_WRLOCK, l); }
static int w_timedrdlock(pthread_rwlock_t *l, const struct timespec *at)
{
    BLOCKING(rw_tryrdlock, rw_timedrdlock, WD_RDLOCK, l, at);
}
static int w_timedwrlock(pthread_rwlock_t *l, const struct timespec *at)
{
    BLOCKING(rw_trywrlock, rw_timedwrlock, WD_WRLOCK, l, at);
}
static int w_clockrdlock(pthread_rwlock_t *l, clockid_t c, const struct timespec *at)
{
    BLOCKING(rw_tryrdlock, rw_clockrdlock, WD_RDLOCK, l, c, at);
}
static int w_clockwrlock(pthread_rwlock_t *l, clockid_t c, const struct timespec *at)
{
    BLOCKING(rw_trywrlock, rw_clockwrlock, WD_WRLOCK, l, c, at);
}
static int w_tryrdlock(pthread_rwlock_t *l) { TRYING(rw_tryrdlock, WD_RDLOCK, l); }
static int w_trywrlock(pthread_rwlock_t *l) { TRYING(rw_trywrlock, WD_WRLOCK, l); }
static int w_rw_unlock(pthread_rwlock_t *l) { RELEASING(rw_unlock, l); }

#define SYM(name, wrapper, real) {name, (void *)wrapper, (void **)&real}
static const wd_symbol symbols[] = {
    SYM("pthread_mutex_lock", w_mutex_lock, mutex_lock),
    SYM("pthread_mutex_timedlock", w_mutex_timedlock, mutex_timedlock),
    SYM("pthread_mutex_clocklock", w_mutex_clocklock, mutex_clocklock),
    SYM("pthread_mutex_trylock", w_mutex_trylock, mutex_trylock),
    SYM("pthread_mutex_unlock", w_mutex_unlock, mutex_unlock),
    SYM("pthread_rwlock_rdlock", w_rdlock, rw_rdlock),
    SYM("pthread_rwlock_wrlock", w_wrlock, rw_wrlock),
    SYM("pthread_rwlock_timedrdlock", w_timedrdlock, rw_timedrdlock),
    SYM("pthread_rwlock_timedwrlock", w_timedwrlock, rw_timedwrlock),
    SYM("pthread_rwlock_clockrdlock", w_clockrdlock, rw_clockrdlock),
    SYM("pthread_rwlock_clockwrlock", w_clockwrlock, rw_clockwrlock),
    SYM("pthread_rwlock_tryrdlock", w_tryrdlock, rw_tryrdlock),
    SYM("pthread_rwlock_trywrlock", w_trywrlock, rw_trywrlock),
    SYM("pthread_rwlock_unlock", w_rw_unlock, rw_unlock),
};
#define NSYMBOLS ((int)(sizeof symbols / sizeof symbols[0]))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int on;
static unsigned long long adds; /* dl_iterate_phdr's count of objects loaded, at the last walk */

int wd_interpose(int want)
{
    pthread_mutex_lock(&lock);
    on = want;
    int rc = wd_got_patch(symbols, NSYMBOLS, want, &adds);
    pthread_mutex_unlock(&lock);
    return rc;
}

void wd_interpose_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&lock);
    else
        pthread_mutex_unlock(&lock);
}

/* Objects dlopen'ed since the last walk get the wrappers at the next period.
 * Not sooner: a wrapper of dlopen would make libtf dlopen's caller, whose
 * RUNPATH glibc searches (the program's must stay the one searched). */
void wd_interpose_refresh(void)
{
    pthread_mutex_lock(&lock);
    if (on && wd_got_adds() != adds)
        wd_got_patch(symbols, NSYMBOLS, 1, &adds);
    pthread_mutex_unlock(&lock);
}
