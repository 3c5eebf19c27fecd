/*
 * state.c: a program whose floating-point environment, errno, signal mask
 * and alternate signal stack must be exactly as it set them, whatever TF
 * does around its monitored calls (docs/design.md .rel.fidelity,
 * .fid.fenv). It checks them at the start of main (before it sets any),
 * after every monitored call, in a signal handler and a second thread that
 * call monitored code, and at exit after libtf's reports (a destructor runs
 * after the atexit handlers). Prints "state kept" when all held, else what
 * changed where; exits 1 then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fenv.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <tf/tf.h>

TF_GROUP(st);

TF_MONITOR(st) double half(double x)
{
    return x / 2; /* exact: the program itself raises no flag */
}

TF_MONITOR(st) float quarter(float x)
{
    return x / 4;
}

TF_MONITOR(st) int twice(int x)
{
    return 2 * x;
}

TF_MONITOR(st) void nothing(void)
{
}

/* dprint and record convert its parts to double: inexact for 0.1L. */
TF_MONITOR(st) int positive(long double _Complex z)
{
    return __real__ z > 0;
}

static int bad;
static char altmem[1 << 16];
static sigset_t mask;

static void say(const char *where, const char *what, long got, long want)
{
    printf("%s: %s is %#lx, not %#lx\n", where, what, got, want);
    bad = 1;
}

/* The state as main set it; each thread and handler passes what it expects. */
static void check(const char *where, int round, int flags, const stack_t *alt)
{
    int e = errno;
    if (fetestexcept(FE_ALL_EXCEPT) != flags)
        say(where, "the FP exception flags", fetestexcept(FE_ALL_EXCEPT), flags);
    if (fegetround() != round)
        say(where, "the rounding mode", fegetround(), round);
    if (e != 42)
        say(where, "errno", e, 42);
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    for (int s = 1; s < SIGRTMAX; s++)
        if (sigismember(&now, s) != sigismember(&mask, s))
            say(where, "the signal mask's bit", s, sigismember(&mask, s));
    stack_t ss;
    sigaltstack(NULL, &ss);
    if (alt && (ss.ss_sp != alt->ss_sp || ss.ss_size != alt->ss_size))
        say(where, "the alternate signal stack", (long)ss.ss_sp, (long)alt->ss_sp);
    errno = 42;
}

static const stack_t alt = {.ss_sp = altmem, .ss_size = sizeof altmem};

static void calls(const char *where, int round, const stack_t *st)
{
    char at[64];
    snprintf(at, sizeof at, "%s, half", where);
    if (half(0.1) != 0.05 || half(3.0) != 1.5)
        say(where, "half's result", 0, 0);
    check(at, round, 0, st);
    snprintf(at, sizeof at, "%s, quarter", where);
    if (quarter(2.0f) != 0.5f)
        say(where, "quarter's result", 0, 0);
    check(at, round, 0, st);
    snprintf(at, sizeof at, "%s, twice", where);
    if (twice(21) != 42)
        say(where, "twice's result", 0, 0);
    check(at, round, 0, st);
    snprintf(at, sizeof at, "%s, nothing", where);
    nothing();
    check(at, round, 0, st);
    snprintf(at, sizeof at, "%s, positive", where);
    if (positive(0.1L + 0.25Li) != 1)
        say(where, "positive's result", 0, 0);
    check(at, round, 0, st);
}

/* A handler starts with the kernel's FP state (to nearest, no flags). */
static void on_usr1(int sig)
{
    int saved = errno, round = fegetround();
    sigset_t outer = mask;
    pthread_sigmask(SIG_SETMASK, NULL, &mask); /* as the handler runs: SIGUSR1 added */
    errno = 42;
    calls("signal handler", round, NULL);
    mask = outer;
    errno = saved;
}

static void *thread(void *arg)
{
    fesetround(FE_DOWNWARD);
    errno = 42;
    calls("second thread", FE_DOWNWARD, NULL); /* no alternate stack: none is inherited */
    return arg;
}

__attribute__((destructor)) static void at_exit_check(void)
{
    check("at exit, after libtf's reports", FE_UPWARD, 0, &alt);
    puts(bad ? "state changed" : "state kept");
    fflush(stdout);
}

int main(void)
{
    if (fetestexcept(FE_ALL_EXCEPT) != 0)
        say("start of main", "the FP exception flags", fetestexcept(FE_ALL_EXCEPT), 0);
    if (fegetround() != FE_TONEAREST)
        say("start of main", "the rounding mode", fegetround(), FE_TONEAREST);
    fesetround(FE_UPWARD);
    sigemptyset(&mask);
    sigaddset(&mask, SIGUSR2);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    sigaltstack(&alt, NULL);
    signal(SIGUSR1, on_usr1);
    errno = 42;
    calls("main", FE_UPWARD, &alt);
    raise(SIGUSR1);
    check("main, after the handler", FE_UPWARD, 0, &alt);
    pthread_t t;
    pthread_create(&t, NULL, thread, NULL); /* it inherits the mask */
    pthread_join(t, NULL);
    check("main, after the thread", FE_UPWARD, 0, &alt);
    return bad;
}
