/*
 * safe_read.c: copying a `char *` value that may not point to a string
 * (docs/design.md .rel.values: a tracer must never crash the program it
 * traces).
 *
 * C lets a program pass anything through a `char *`: SQLite passes small
 * integers through `const char *zP4`, torture tests pass `(char *)1`, a buffer
 * may be unmapped. Every monitor that reads a string value (dprint, tracer,
 * the recorder, the crash report) copies it with tf__copy_str, which never
 * faults:
 *
 *  1. An address below the lowest page Linux lets a process map
 *     (vm.mmap_min_addr, 64 KiB by default) or above the user half of the
 *     address space is unreadable without looking.
 *  2. Otherwise the bytes are read under a probe: libtf's SIGSEGV/SIGBUS
 *     handler (installed on the first probe, SA_NODEFER) sees that this thread
 *     is probing and jumps back out of the read, which then reports how many
 *     bytes it got. A syscall per string would cost 0.3-7 us (process_vm_readv;
 *     the high figure on sandboxed VMs); the probe costs a few nanoseconds,
 *     and a fault one syscall (to unblock the signal).
 *  3. If the program has since installed its own SIGSEGV or SIGBUS handler
 *     (libtf sees sigaction and signal calls, interpose.c), a fault would
 *     go to that handler first, so the copy is made by process_vm_readv, which
 *     returns an error instead of faulting. Sanitizer builds of libtf use it
 *     always: their runtimes track the stack and would not follow the jump.
 *
 * Every libtf handler of fatal signals calls tf__probe_recover first (fatal.c),
 * so a fault inside a probe never reaches a crash report or a flush.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

#define LOWEST_MAPPABLE ((uintptr_t)1 << 16)
#if defined(__x86_64__) || defined(__aarch64__)
#define USER_END ((uintptr_t)1 << 56) /* 5-level paging's user half; 4-level ends lower */
#else
#define USER_END UINTPTR_MAX
#endif


/* Per thread: where the running probe resumes after a fault; NULL when none
 * runs. (A pointer to the probe's own jmp_buf: a whole one per thread would
 * not fit the static TLS a dlopen'ed libtf may use.) */
static TF_TLS sigjmp_buf *volatile probe_resume;

/* Whether a fault in a probe comes to libtf first. */
enum { PROBE_UNSET, PROBE_INSTALLING, PROBE_LIVE, PROBE_SUPERSEDED };
static int probe_state;
static struct sigaction before_probe[2];
static const int probe_signals[2] = {SIGSEGV, SIGBUS};

void tf__probe_recover(int sig)
{
    sigjmp_buf *resume = probe_resume;
    if (resume) {
        probe_resume = NULL;
        /* The jump skips the kernel's return from the handler, which would
         * have unblocked sig: a fault is rare, the syscall affordable. */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        siglongjmp(*resume, 1); /* libtf's own: the monitors see a jump that skips no frame */
    }
}

static void on_fault(int sig, siginfo_t *info, void *uctx)
{
    tf__probe_recover(sig);
    for (int i = 0; i < 2; i++)
        if (probe_signals[i] == sig)
            tf__pass_on(sig, info, uctx, &before_probe[i]);
}

/* Once, from the first probe of the process (any thread, maybe inside a
 * signal handler: no lock); a program that installed its own handler before
 * keeps it. Threads probing meanwhile use the syscall. */
static int install_probe_handler(void)
{
    int state = PROBE_UNSET;
    if (!__atomic_compare_exchange_n(&probe_state, &state, PROBE_INSTALLING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return state;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    int ok = 1;
    for (int i = 0; i < 2; i++)
        ok &= tf__real_sigaction(probe_signals[i], &sa, &before_probe[i]) == 0;
    state = PROBE_INSTALLING; /* unless the program took a signal over meanwhile */
    __atomic_compare_exchange_n(&probe_state, &state, ok ? PROBE_LIVE : PROBE_SUPERSEDED, 0,
                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&probe_state, __ATOMIC_ACQUIRE);
}

/* The program (or a library) takes a fault signal over after libtf: from now
 * on a probe fault would not come to libtf first. (A handler installed before
 * libtf's is no matter: libtf's hands faults it does not expect on to it.) */
void tf__probe_handler_changed(int sig)
{
    if (sig != SIGSEGV && sig != SIGBUS)
        return;
    for (int s = __atomic_load_n(&probe_state, __ATOMIC_ACQUIRE);
         s == PROBE_INSTALLING || s == PROBE_LIVE;)
        if (__atomic_compare_exchange_n(&probe_state, &s, PROBE_SUPERSEDED, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            break;
}

/* Copies bytes of src into dst until a NUL (not copied), max bytes or an
 * unreadable byte; returns how many were copied and sets *end. */
__attribute__((noinline, no_sanitize_address)) static size_t
copy_by_fault(char *dst, const volatile char *src, size_t max, int *end)
{
    sigjmp_buf here;
    volatile size_t n = 0;
    if (sigsetjmp(here, 0)) {
        *end = TF_STR_FAULT;
        return n;
    }
    probe_resume = &here;
    size_t i = 0;
    for (; i < max; i++) {
        char c = src[i];
        if (!c)
            break;
        dst[i] = c;
        n = i + 1;
    }
    probe_resume = NULL;
    *end = i < max ? TF_STR_NUL : TF_STR_CUT;
    return i;
}

/* The same through the kernel: reads within one page either all succeed or
 * all fail, so the range is split at page ends. */
static size_t copy_by_syscall(char *dst, const char *src, size_t max, int *end)
{
    static long page;
    if (!page)
        page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    size_t n = 0;
    while (n < max) {
        uintptr_t at = (uintptr_t)src + n;
        size_t chunk = (size_t)page - at % (size_t)page;
        if (chunk > max - n)
            chunk = max - n;
        struct iovec local = {dst + n, chunk}, remote = {(void *)at, chunk};
        if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)chunk) {
            *end = TF_STR_FAULT;
            return n;
        }
        char *nul = memchr(dst + n, 0, chunk);
        if (nul) {
            *end = TF_STR_NUL;
            return (size_t)(nul - dst);
        }
        n += chunk;
    }
    *end = TF_STR_CUT;
    return n;
}

size_t tf__copy_str(char *dst, const char *src, size_t max, int *end)
{
    uintptr_t a = (uintptr_t)src;
    if (a < LOWEST_MAPPABLE || a >= USER_END || max > USER_END - a) {
        *end = TF_STR_FAULT;
        return 0;
    }
    int errno_kept = errno;
    size_t n;
    int state = TF_PROBE_BY_FAULT ? __atomic_load_n(&probe_state, __ATOMIC_ACQUIRE) : PROBE_SUPERSEDED;
    if (state == PROBE_UNSET)
        state = install_probe_handler();
    if (state == PROBE_LIVE)
        n = copy_by_fault(dst, src, max, end);
    else
        n = copy_by_syscall(dst, src, max, end);
    errno = errno_kept;
    return n;
}
