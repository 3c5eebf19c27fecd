/*
 * scan.c: the watchdog thread (.wd.scan). It exists only while a watchdog
 * runs (TF_WATCHDOG, tf-ctl PID watchdog) or TF_SAMPLE asks for resource
 * counters (sample.c), and wakes every quarter of DURATION (at most every
 * 250 ms) to read every thread's record:
 *
 * - stall: a thread with calls open that entered or left no monitored call
 *   for DURATION. Its innermost call is the one stuck; it is reported once
 *   (until the thread moves on), with the thread's whole open stack.
 * - hang: no monitored call entered or left in any thread for DURATION
 *   while calls are open: every thread with calls open is reported, under
 *   one line saying so (a single thread's hang is its stall).
 * - lock cycle: threads each blocked for DURATION on a lock another of them
 *   holds (locks.c); reported once per cycle, with each thread's stack.
 *
 * Times are the watchdog's own: a count that did not change between two
 * scans has not changed since the first scan that saw it, so every verdict
 * is at most one period late and never early. The hooks read the clock at
 * entry only (a call's age in reports), the lock wrappers only when a lock
 * is not free at once (how long a thread has waited).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "watchdog.h"
#include "../clock.h"
#include "../config.h"

#define PERIOD_MAX_NS 250000000ull

static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static wd_spec spec;            /* the watchdog (ns 0: off); written under set_lock and wake_lock */
static uint64_t sample_ns;      /* the sampling period now; 0: none; likewise */
static uint64_t sample_asked;   /* TF_SAMPLE, if set: sampling with or without a watchdog */
static int running, stopping, quitting;
static int kicked;              /* wd_set asked for a new period at once; under wake_lock */
static int last_asked;          /* at exit: one last sample, then 0 (.wd.sample); likewise */
static pthread_cond_t sampled;  /* last_asked went back to 0 */
static uint64_t total_seen, total_since; /* the watchdog thread's view of the whole process */
static int hang_reported;
static pthread_t thread;
static int no_interpose_said;

static uint64_t mono_ns(void)
{
    return tf__clock_mono_ns();
}

/* ---- one scan ---------------------------------------------------------------- */

/* Brings t's bookkeeping up to date; returns its open calls. */
static int look(wd_thread *t, uint64_t now)
{
    uint64_t claims = __atomic_load_n(&t->claims, __ATOMIC_ACQUIRE);
    uint64_t events = __atomic_load_n(&t->events, __ATOMIC_ACQUIRE);
    if (claims != t->seen_claims) { /* another thread owns it now */
        t->seen_claims = claims;
        t->seen_events = events;
        t->seen_since = now;
        t->reported = 0;
        t->cycle_reported = 0;
    }
    if (events != t->seen_events) {
        t->seen_events = events;
        t->seen_since = now;
    }
    return __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
}

static int live(const wd_thread *t)
{
    return __atomic_load_n(&t->rec.used, __ATOMIC_ACQUIRE) != 0;
}

static int open_calls(const wd_thread *t)
{
    return __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
}

/* abort: SIGABRT to the first thread reported, so that the core dump's
 * crashing thread is the stuck one; abort() here if it has SIGABRT blocked. */
static void act(const wd_scan *s)
{
    if (!(s->spec.actions & WD_ACT_ABORT) || !s->ndone)
        return;
    syscall(SYS_tgkill, getpid(), s->done[0]->tid, SIGABRT);
    struct timespec two = {2, 0};
    nanosleep(&two, NULL);
    abort();
}

/* Threads reported already whose calls did not move since are not shown
 * again: their stacks are what was shown. */
static int fresh(const wd_thread *t)
{
    return live(t) && open_calls(t) > 0 && t->reported != t->seen_events;
}

static void hang_header(wd_scan *s, int open)
{
    int old = 0;
    for (wd_thread *t = wd_threads(); t; t = wd_next(t))
        old += live(t) && open_calls(t) > 0 && !fresh(t);
    char took[64], above[64] = "";
    tf_buf b = {took, sizeof took, 0};
    wd_buf_duration(&b, s->now - total_since);
    if (old)
        snprintf(above, sizeof above, old == open ? ", all reported above" : ", %d reported above", old);
    fprintf(s->f, "tf: watchdog: hang: no monitored call entered or left in any thread for %s; "
                  "%d threads have calls open%s%s\n", tf__buf_end(&b), open, above, wd_scan_where(s));
}

static void scan(const wd_spec *cur)
{
    wd_scan s = {.now = mono_ns(), .now_ticks = tf__clock_now(), .spec = *cur};
    uint64_t total = 0;
    int open = 0;
    for (wd_thread *t = wd_threads(); t; t = wd_next(t))
        if (live(t)) {
            open += look(t, s.now) > 0;
            total += t->seen_events;
        }
    if (total != total_seen) {
        total_seen = total;
        total_since = s.now;
        hang_reported = 0;
    }
    if (__atomic_load_n(&quitting, __ATOMIC_RELAXED) || wd_scan_open(&s) != 0)
        return;
    /* one thread with calls open: its hang is its stall */
    int hung = open > 1 && !hang_reported && s.now - total_since >= cur->ns;
    if (hung)
        hang_reported = 1, hang_header(&s, open);
    wd_cycles(&s); /* the threads of a cycle, with what they hold and wait for */
    for (wd_thread *t = wd_threads(); t && hung; t = wd_next(t))
        if (fresh(t) && wd_scan_add(&s, t))
            wd_thread_block(&s, t);
    for (wd_thread *t = wd_threads(); t; t = wd_next(t)) /* stalls */
        if (fresh(t) && s.now - t->seen_since >= cur->ns && wd_scan_add(&s, t))
            wd_thread_block(&s, t);
    wd_scan_close(&s);
    act(&s);
    free(s.done);
}

/* ---- the thread --------------------------------------------------------------- */

/* Sleeps until the next scan or sample, or until told to stop or changed;
 * 0: stop. *cur: the spec to scan with, *sample: the sampling period, *last:
 * the exit asks for its last sample. */
static int sleep_period(wd_spec *cur, uint64_t *sample, int *last)
{
    pthread_mutex_lock(&wake_lock);
    uint64_t p = spec.ns ? (spec.ns / 4 < PERIOD_MAX_NS ? spec.ns / 4 : PERIOD_MAX_NS) : UINT64_MAX;
    p = sample_ns && sample_ns < p ? sample_ns : p;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    uint64_t ns = (uint64_t)until.tv_nsec + p;
    until.tv_sec += (time_t)(ns / 1000000000u);
    until.tv_nsec = (long)(ns % 1000000000u);
    /* a kick sent before the thread first waits is not lost (a signal would be) */
    if (!stopping && !kicked)
        pthread_cond_timedwait(&wake, &wake_lock, &until);
    kicked = 0;
    int go_on = !stopping;
    *cur = spec;
    *sample = sample_ns;
    *last = last_asked;
    pthread_mutex_unlock(&wake_lock);
    return go_on;
}

static void *run(void *arg)
{
    tf__in_monitor = 1; /* nothing this thread calls is traced */
    total_since = mono_ns();
    wd_spec cur;
    uint64_t sample, period = 0, next_sample = 0;
    int last;
    while (sleep_period(&cur, &sample, &last)) {
        if (cur.ns && !last) {
            wd_interpose_refresh();
            scan(&cur);
        }
        uint64_t now = mono_ns();
        if (sample != period) { /* the first sample a period after sampling starts (.wd.sample) */
            period = sample;
            next_sample = now + sample;
        }
        if (sample && (now >= next_sample || last)) {
            wd_sample();
            next_sample = now + sample;
        }
        if (last) {
            pthread_mutex_lock(&wake_lock);
            last_asked = 0;
            pthread_cond_broadcast(&sampled);
            pthread_mutex_unlock(&wake_lock);
        }
    }
    return arg;
}

static int start(char *why, size_t len)
{
    pthread_mutex_lock(&wake_lock);
    stopping = 0;
    pthread_mutex_unlock(&wake_lock);
    int rc = tf__thread_start(&thread, run, "tf-watchdog");
    if (rc != 0) {
        snprintf(why, len, "cannot start the watchdog thread: %s", strerror(rc));
        return -1;
    }
    running = 1;
    return 0;
}

static void stop(void)
{
    pthread_mutex_lock(&wake_lock);
    stopping = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&wake_lock);
    pthread_join(thread, NULL);
    running = 0;
}

/* At exit the program's calls stop for good while exit handlers run (the
 * recorder's dump, a report): that is no hang. While sampling, the thread
 * takes one last sample, waited for up to a second (.wd.sample); this
 * function runs before the recorder's dump, registered after it. */
static void at_exit(void)
{
    __atomic_store_n(&quitting, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&wake_lock);
    if (sample_ns && !stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += 1;
        last_asked = kicked = 1;
        pthread_cond_signal(&wake);
        while (last_asked && pthread_cond_timedwait(&sampled, &wake_lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&wake_lock);
}

static void make_cond(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &a);
    pthread_cond_init(&sampled, &a);
    pthread_condattr_destroy(&a);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void first_start(void)
{
    make_cond();
    wd_clock_start();
    tf__at_exit(at_exit);
}

/* Joins the watchdog's monitor to every holder (f) or takes it out (NULL),
 * and puts the lock wrappers in or out. Without set_lock: the registry then
 * makes monitors, which runs every registered factory's code (.lock.foreign). */
static void watch_every(tf_factory *f)
{
    tf__registry_watch_every(f);
    if (wd_interpose(f != NULL) != 0 && f && !__atomic_fetch_add(&no_interpose_said, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "tf: watchdog: lock cycles are not looked for: this architecture's "
                        "calls of the pthread lock functions cannot be rerouted\n");
}

/* One change at a time, by the thread named in changer, with set_lock free
 * while the registry runs foreign code; others wait for it on changed. */
static pid_t changer;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

/* The monitor joins every holder and the wrappers are in before the thread
 * scans; they leave when the watchdog stops. The thread runs while a
 * watchdog runs or sampling was asked for (TF_SAMPLE). */
int wd_set(const wd_spec *s, char *why, size_t len)
{
    pthread_mutex_lock(&set_lock);
    while (changer)
        pthread_cond_wait(&changed, &set_lock);
    changer = gettid();
    int rc = 0, was = spec.ns != 0;
    pthread_once(&once, first_start);
    if (s->ns && !was) {
        pthread_mutex_unlock(&set_lock);
        watch_every(wd_factory());
        pthread_mutex_lock(&set_lock);
    }
    uint64_t sample = sample_asked ? sample_asked : s->ns ? 1000000000u : 0;
    if ((s->ns || sample) && !running)
        rc = start(why, len);
    else if (!s->ns && !sample && running)
        stop();
    if (rc == 0) {
        pthread_mutex_lock(&wake_lock);
        spec = *s;
        sample_ns = sample;
        kicked = 1; /* a new period at once: a started thread scans first thing */
        pthread_cond_signal(&wake);
        pthread_mutex_unlock(&wake_lock);
    }
    if ((!s->ns && was) || (rc && s->ns && !was)) {
        pthread_mutex_unlock(&set_lock);
        watch_every(NULL);
        pthread_mutex_lock(&set_lock);
    }
    changer = 0;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&set_lock);
    return rc;
}

int wd_running(wd_spec *out)
{
    pthread_mutex_lock(&set_lock);
    int r = spec.ns != 0;
    if (out)
        *out = spec;
    pthread_mutex_unlock(&set_lock);
    return r;
}

/* ---- start-up and fork ---------------------------------------------------------- */

void tf__watchdog_init(void)
{
    const char *v = tf__config_get("TF_WATCHDOG");
    sample_asked = wd_sample_asked();
    wd_spec s = {0, 0};
    char why[256];
    if ((v && wd_parse(v, &s, why, sizeof why) == NULL) || sample_asked) {
        if (wd_set(&s, why, sizeof why) != 0)
            fprintf(stderr, "tf: TF_WATCHDOG: %s\n", why);
    }
}

/* The child has only the forking thread: the watchdog starts again there
 * if it ran (it watches the child's own calls), with fresh locks. */
/* runtime/locks.h's row watchdog: set_lock, then wake_lock, then the
 * wrappers' lock (locks.c). The child makes them anew, and the watchdog
 * thread too if one ran. */
void tf__watchdog_fork(int phase)
{
    if (phase == TF_FORK_PREPARE) {
        pthread_mutex_lock(&set_lock);
        pthread_mutex_lock(&wake_lock);
        wd_interpose_fork(phase);
        return;
    }
    wd_interpose_fork(phase);
    pthread_mutex_unlock(&wake_lock);
    pthread_mutex_unlock(&set_lock);
    if (phase != TF_FORK_CHILD)
        return;
    if (changer != gettid())
        changer = 0;
    pthread_cond_init(&changed, NULL);
    make_cond();
    wd_threads_fork_child();
    if (!running)
        return;
    running = 0;
    stopping = 0;
    kicked = 1; /* the child's thread scans at once */
    last_asked = 0;
    total_seen = 0;
    hang_reported = 0;
    char why[256];
    if (start(why, sizeof why) != 0)
        fprintf(stderr, "tf: watchdog: in the child %ld: %s\n", (long)getpid(), why);
}
