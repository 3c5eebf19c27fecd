/*
 * fatal.c: libtf's handlers for fatal signals (the operation tracer's crash
 * report, dprint's flush of a buffered TF_OUTPUT) catch the same signals and
 * hand each one on the same way when they are done. Each calls
 * tf__probe_recover first: a fault while libtf copies a string that was not
 * one (safe_read.c) is libtf's own business, not a crash.
 */
#include <string.h>

#include "internal.h"

const int tf__fatal_signals[TF_NFATAL] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

int tf__catch_fatal(void (*fn)(int, siginfo_t *, void *), struct sigaction previous[TF_NFATAL])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK; /* on an alternate stack if the thread has one */
    sigemptyset(&sa.sa_mask);
    int rc = 0;
    for (int i = 0; i < TF_NFATAL; i++)
        rc |= tf__real_sigaction(tf__fatal_signals[i], &sa, &previous[i]);
    return rc;
}

/* The program ignored sig. Sent by someone (kill, raise, abort's first
 * try), it is ignored, and our handler stays for a real fault. A fault cannot
 * be ignored: its instruction would fault again as soon as we return, so it
 * gets the default action, as the kernel gives an ignored fault. */
static void ignored(int sig, const siginfo_t *info)
{
    if (info && info->si_code <= 0)
        return;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    tf__real_sigaction(sig, &dfl, NULL);
    raise(sig);
}

/* To the handler that was there before, with the original siginfo (a
 * sanitizer's, or a program's that fixes the fault and returns), or, if there
 * was none, to the default action, by restoring it and raising sig again.
 * SIG_DFL and SIG_IGN are told apart before SA_SIGINFO: a program may set
 * that flag with them, and they are not functions to call. */
void tf__pass_on(int sig, siginfo_t *info, void *uctx, const struct sigaction *prev)
{
    if (prev->sa_handler == SIG_IGN) {
        ignored(sig, info);
    } else if (prev->sa_handler == SIG_DFL) {
        tf__real_sigaction(sig, prev, NULL);
        raise(sig);
    } else if (prev->sa_flags & SA_SIGINFO) {
        prev->sa_sigaction(sig, info, uctx);
    } else {
        prev->sa_handler(sig);
    }
}

void tf__fatal_pass_on(int sig, siginfo_t *info, void *uctx, const struct sigaction previous[TF_NFATAL])
{
    for (int i = 0; i < TF_NFATAL; i++)
        if (tf__fatal_signals[i] == sig)
            tf__pass_on(sig, info, uctx, &previous[i]);
}
