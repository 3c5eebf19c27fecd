/*
 * budget.c: the budget's life. TF_BUDGET at start-up; starting, changing and
 * stopping it (bg_set: TF_BUDGET, tf-ctl PID budget); its thread, which
 * measures the hooks' cost once (calib.c) and then judges a window every
 * 2 ms, doubling to 40 ms, 2 ms again after one that switched functions
 * off, and at once when a thread's hooks hurry it (judge.c, .budget.hurry);
 * the exit; fork. The thread exists only while a budget runs,
 * and never takes the program's signals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "../clock.h"
#include "../config.h"

#define FIRST_WINDOW_NS 2000000ull
#define WINDOW_NS 40000000ull

/* The budget thread sleeps on wake_word (a futex), so that a hook can wake
 * it (.budget.hurry): a hook may run in a signal handler, where a condition
 * variable may not be signalled. */
static uint32_t wake_word, hurried;

static void poke(void)
{
    __atomic_add_fetch(&wake_word, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void bg_hurry(void)
{
    int saved = errno;
    __atomic_store_n(&hurried, 1, __ATOMIC_RELAXED);
    poke();
    errno = saved;
}

/* Under bg_lock. */
static double budget;          /* the fraction; 0: off */
static int running, stopping, quitting;
static pthread_t thread;
static bg_calib calib;
static int calibrated;

void bg_wake(void)
{
    if (running)
        poke();
}

/* Sleeps ns, or until woken; 0: stop. Lock held (let go while it sleeps).
 * A wake after the word was read makes the wait return at once. */
static int sleep_for(uint64_t ns)
{
    if (stopping)
        return 0;
    uint32_t seen = __atomic_load_n(&wake_word, __ATOMIC_ACQUIRE);
    struct timespec rel = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    pthread_mutex_unlock(&bg_lock);
    syscall(SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, seen, &rel, NULL, 0);
    pthread_mutex_lock(&bg_lock);
    return !stopping;
}

static void *run(void *arg)
{
    tf__in_monitor = 1; /* nothing this thread calls is traced */
    if (!calibrated) {
        bg_calib c;
        bg_calibrate(&c);
        pthread_mutex_lock(&bg_lock);
        calib = c;
        calibrated = 1;
        pthread_mutex_unlock(&bg_lock);
    }
    pthread_mutex_lock(&bg_lock);
    bg_judge_calibrated(&calib);
    bg_window_start(budget);
    /* A 2 ms window again after one that switched functions off (a new
     * phase of the program made others hot): what the cut left is judged
     * at once, not up to 40 ms later (.budget.window). */
    for (uint64_t w = FIRST_WINDOW_NS; sleep_for(w);) {
        int cut = !quitting && bg_judge(budget, __atomic_exchange_n(&hurried, 0, __ATOMIC_RELAXED));
        w = cut ? FIRST_WINDOW_NS : w * 2 < WINDOW_NS ? w * 2 : WINDOW_NS;
    }
    pthread_mutex_unlock(&bg_lock);
    return arg;
}

static int start(char *why, size_t len)
{
    stopping = 0;
    int rc = tf__thread_start(&thread, run, "tf-budget");
    if (rc != 0) {
        snprintf(why, len, "cannot start the budget thread: %s", strerror(rc));
        return -1;
    }
    running = 1;
    return 0;
}

/* Lock held; returns with it. */
static void stop(void)
{
    stopping = 1;
    poke();
    pthread_mutex_unlock(&bg_lock);
    pthread_join(thread, NULL);
    pthread_mutex_lock(&bg_lock);
    running = 0;
}

/* At exit (or a termination signal, on libtf's exit thread): no more
 * decisions, and the functions are named. */
static void at_exit(void)
{
    pthread_mutex_lock(&bg_lock);
    quitting = 1;
    pthread_mutex_unlock(&bg_lock);
    bg_say_at_exit();
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void first_start(void)
{
    tf__at_exit(at_exit);
    tf__term_arm(); /* the exit line on SIGTERM and friends too */
}

/* One change at a time, by the thread named in changer, with bg_lock free
 * while the registry makes monitors (foreign code: .lock.foreign). */
static pid_t changer;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

int bg_set(double b, char *why, size_t len)
{
    pthread_once(&once, first_start);
    pthread_mutex_lock(&bg_lock);
    while (changer)
        pthread_cond_wait(&changed, &bg_lock);
    changer = gettid();
    int rc = 0, was = budget > 0;
    if (b > 0 && was) {
        budget = b;
        bg_judge_again();
    } else if (b > 0) {
        tf__clock_init(); /* its rate is calibrated from now on */
        pthread_mutex_unlock(&bg_lock);
        tf__registry_meter(bg_factory());
        pthread_mutex_lock(&bg_lock);
        budget = b;
        bg_judge_start();
        if ((rc = start(why, len)) != 0)
            budget = 0;
    } else if (was) {
        stop();
        budget = 0;
        bg_give_all_back();
    }
    if ((b > 0) != was && budget == 0) {
        pthread_mutex_unlock(&bg_lock);
        tf__registry_meter(NULL);
        pthread_mutex_lock(&bg_lock);
    }
    changer = 0;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&bg_lock);
    return rc;
}

void bg_get(bg_totals *out)
{
    pthread_mutex_lock(&bg_lock);
    out->budget = budget;
    bg_judge_totals(out, budget > 0);
    pthread_mutex_unlock(&bg_lock);
}

/* ---- start-up and fork ------------------------------------------------------------------ */

void tf__budget_init(void)
{
    const char *v = tf__config_get("TF_BUDGET");
    double b;
    char why[256];
    if (v && bg_parse(v, &b, why, sizeof why) == NULL && b > 0 && bg_set(b, why, sizeof why) != 0)
        fprintf(stderr, "tf: TF_BUDGET: %s\n", why);
}

/* runtime/locks.h's row budget: bg_lock, taken before fork and released
 * after it. The child starts a budget thread of its own if one ran (it
 * judges the child's own calls; its counters and decisions are the
 * parent's so far). */
void tf__budget_fork(int phase)
{
    if (phase == TF_FORK_PREPARE) {
        pthread_mutex_lock(&bg_lock);
        return;
    }
    pthread_mutex_unlock(&bg_lock);
    if (phase != TF_FORK_CHILD)
        return;
    if (changer != gettid())
        changer = 0;
    pthread_cond_init(&changed, NULL);
    bg_threads_fork_child();
    if (!running)
        return;
    running = 0;
    char why[256];
    pthread_mutex_lock(&bg_lock);
    if (start(why, sizeof why) != 0)
        fprintf(stderr, "tf: budget: in the child %ld: %s\n", (long)getpid(), why);
    pthread_mutex_unlock(&bg_lock);
}
