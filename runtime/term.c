/*
 * term.c: the ordinary ways a service is stopped (docs/design.md .term).
 * SIGTERM (systemd, Kubernetes), SIGINT (Ctrl-C), SIGHUP and SIGQUIT whose
 * action is the default one end the process without running atexit: libtf
 * then writes what it writes at exit (the recording, TF_REPORT, TF_OUTPUT's
 * buffer, the control socket's removal, its counts) and lets the signal
 * take its default action, so the exit status is 128+N as without TF.
 *
 * - Armed by the modules that have something to write (the recorder, the
 *   timing report, a buffered TF_OUTPUT, the control socket): a process
 *   with nothing to save keeps its dispositions untouched.
 * - Only a disposition that is the default is taken: a program's own
 *   handler is never replaced. libtf's sigaction (interpose.c) keeps the
 *   program's view: it reads back SIG_DFL where libtf's handler is, its
 *   handler replaces libtf's, and SIG_DFL set later brings libtf's back.
 * - The handler itself does only async-signal-safe work: the recorder's
 *   post-mortem (tf__record_terminate: its marker event and trace). The
 *   rest allocates and locks (the timing report), so it runs on libtf's
 *   exit thread, as the JVM runs shutdown hooks on its own thread, while
 *   the handler waits up to EXIT_WAIT_S for it: a lock the interrupted
 *   thread holds cannot hang the exit for longer.
 * - A second termination signal during the first takes its default action
 *   at once (Ctrl-C twice); the ring file keeps the recording anyway.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define EXIT_WAIT_S 10
#define STR_(x) #x
#define STR(x) STR_(x)

static const int term_signals[TF_NTERM] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};

/* The exit work: every tf__at_exit function, newest first (atexit's order). */
typedef struct exit_fn {
    struct exit_fn *next;
    void (*fn)(void);
} exit_fn;
static exit_fn *exit_fns;

/* Per signal: libtf's handler is installed, and what the program set. */
static struct {
    int ours;
    struct sigaction program;
} disp[TF_NTERM];
static int spin; /* the dispositions' lock; taken with every signal blocked */

static int armed, go; /* go: the exit thread's futex word */
static int quit;      /* the exit thread is to end without doing the work (fork) */
static pthread_t helper;
static int helper_running;
static int terminating;  /* the first termination signal taken */
static int work_done;    /* the exit thread finished */
static int busy_actions; /* tf-ctl report or snapshot being written */

void tf__at_exit(void (*fn)(void))
{
    atexit(fn);
    exit_fn *e = malloc(sizeof *e);
    if (!e)
        return; /* at exit it still runs; on a signal it is skipped */
    e->fn = fn;
    e->next = __atomic_load_n(&exit_fns, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&exit_fns, &e->next, e, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}

void tf__term_busy(int delta)
{
    __atomic_add_fetch(&busy_actions, delta, __ATOMIC_ACQ_REL);
}

static int index_of(int sig)
{
    for (int i = 0; i < TF_NTERM; i++)
        if (term_signals[i] == sig)
            return i;
    return -1;
}

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&t, NULL);
}

/* The exit thread: sleeps on a futex (no file descriptor of the program's
 * is taken) until a handler wakes it, then runs the exit work. */
static void *exit_thread(void *arg)
{
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
        syscall(SYS_futex, &go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    if (__atomic_load_n(&quit, __ATOMIC_ACQUIRE))
        return arg;
    /* tf-ctl's report or snapshot in progress is finished first */
    for (int i = 0; i < 100 * EXIT_WAIT_S && __atomic_load_n(&busy_actions, __ATOMIC_ACQUIRE); i++)
        nap_ms(10);
    for (exit_fn *e = __atomic_load_n(&exit_fns, __ATOMIC_ACQUIRE); e; e = e->next)
        e->fn(); /* not fflush(NULL): the program's own buffers die as without TF */
    __atomic_store_n(&work_done, 1, __ATOMIC_RELEASE);
    return arg;
}

static void start_helper(void)
{
    helper_running = tf__thread_start(&helper, exit_thread, "tf-exit") == 0;
    if (helper_running && TF_PROBE_BY_FAULT) /* a sanitizer build joins it around fork */
        pthread_detach(helper);
}

/* The signal's default action, now: the status the program would have. */
static void default_action(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    tf__real_sigaction(sig, &dfl, NULL);
    disp[index_of(sig)].ours = 0;
    raise(sig); /* pending until this handler returns: then it ends the process */
}

static void on_term(int sig, siginfo_t *info, void *uctx)
{
    int saved = errno;
    if (__atomic_exchange_n(&terminating, sig, __ATOMIC_ACQ_REL) == 0) {
        tf__record_terminate(sig, info);
        if (helper_running) {
            __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
            syscall(SYS_futex, &go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
            int ms = 0;
            while (!__atomic_load_n(&work_done, __ATOMIC_ACQUIRE) && ms < 1000 * EXIT_WAIT_S) {
                nap_ms(5);
                ms += 5;
            }
            if (!work_done) {
                static const char msg[] = "tf: the exit work (reports) did not finish within "
                                          STR(EXIT_WAIT_S) " s of the signal; the process ends "
                                          "without it\n";
                if (write(2, msg, sizeof msg - 1) < 0)
                    ms = 0;
            }
        }
    }
    default_action(sig);
    errno = saved;
}

static void install(int i)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_term;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < TF_NTERM; k++) /* one at a time: the second waits for the first */
        sigaddset(&sa.sa_mask, term_signals[k]);
    if (tf__real_sigaction(term_signals[i], &sa, NULL) == 0)
        disp[i].ours = 1;
}

static void lock_disp(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, old);
    while (__atomic_exchange_n(&spin, 1, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
}

static void unlock_disp(const sigset_t *old)
{
    __atomic_store_n(&spin, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void arm(void)
{
    start_helper();
    sigset_t old;
    lock_disp(&old);
    for (int i = 0; i < TF_NTERM; i++) {
        struct sigaction cur;
        if (tf__real_sigaction(term_signals[i], NULL, &cur) == 0 && cur.sa_handler == SIG_DFL) {
            disp[i].program = cur;
            install(i);
        }
    }
    __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
    unlock_disp(&old);
}

void tf__term_arm(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, arm);
}

static int is_default(const struct sigaction *sa)
{
    return sa->sa_handler == SIG_DFL; /* SA_SIGINFO or not: the same null pointer */
}

int tf__term_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
    int i = index_of(sig);
    if (i < 0 || !__atomic_load_n(&armed, __ATOMIC_ACQUIRE))
        return 1; /* not ours: libc's sigaction does it */
    sigset_t mask;
    lock_disp(&mask);
    int rc = 0;
    struct sigaction before = disp[i].program;
    if (!disp[i].ours)
        rc = tf__real_sigaction(sig, NULL, &before);
    if (rc == 0 && sa && is_default(sa) && !__atomic_load_n(&terminating, __ATOMIC_ACQUIRE)) {
        if (!disp[i].ours)
            install(i);
        disp[i].program = *sa;
    } else if (rc == 0 && sa) {
        rc = tf__real_sigaction(sig, sa, NULL);
        disp[i].ours = rc == 0 ? 0 : disp[i].ours;
    }
    unlock_disp(&mask);
    if (rc == 0 && old)
        *old = before;
    return rc;
}

/* A forked child has no exit thread: it gets its own. In sanitizer builds
 * the parent's is stopped before fork and started again after, in both:
 * ThreadSanitizer cannot run a thread started in the child of a fork that
 * had threads, and LeakSanitizer's check at a child's exit cannot stop a
 * thread the parent had (it says so on stderr). */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

/* The process's threads (/proc/self/stat's num_threads), 0 if unknown. */
static long threads_now(void)
{
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the name may hold spaces */
    for (int field = 2; p && field < 20; field++)
        p = strchr(p + 1, ' ');
    return p ? strtol(p + 1, NULL, 10) : 0;
}

/* fork_lock: two threads may fork at once, and each runs this; one at a
 * time stops the exit thread and starts it again (restart and alone are
 * theirs). A sanitizer build's child of a fork made while other threads ran
 * cannot start a thread (ThreadSanitizer ends it): it has none, and a
 * termination signal there writes the recording only. */
void tf__term_fork(int phase)
{
    static int restart, alone;
    if (phase == TF_FORK_PREPARE) {
        pthread_mutex_lock(&fork_lock);
        restart = 0;
        if (!TF_PROBE_BY_FAULT && helper_running && !__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
            __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
            syscall(SYS_futex, &go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
            pthread_join(helper, NULL);
            helper_running = go = quit = 0;
            restart = 1;
        }
        alone = TF_PROBE_BY_FAULT || threads_now() == 1;
        return;
    }
    if (phase == TF_FORK_CHILD) {
        spin = 0;
        terminating = work_done = busy_actions = go = quit = 0;
        helper_running = 0;
        restart |= TF_PROBE_BY_FAULT && __atomic_load_n(&armed, __ATOMIC_ACQUIRE);
        restart &= alone;
    }
    if (restart)
        start_helper();
    pthread_mutex_unlock(&fork_lock); /* the child: its forking thread holds it */
}
