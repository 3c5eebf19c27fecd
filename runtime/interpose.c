/*
 * interpose.c: the libc functions libtf defines itself, which the program's
 * calls bind to before libc's (as sanitizer runtimes do); each does its part
 * and then calls libc's own function (dlsym RTLD_NEXT).
 *
 * longjmp, siglongjmp, _longjmp and __longjmp_chk keep per-thread stacks
 * right (docs/design.md .shape.exc: monitors that keep per-thread stacks must
 * resynchronise after longjmp skipped frames). Each tells
 * the registered monitors the stack pointer the jump lands on, then jumps with
 * libc's own function. The target is read from the jmp_buf, where glibc on
 * x86_64 stores it mangled with the thread's pointer guard; elsewhere, or if
 * the value is not plausible (a jump to another stack, as coroutine libraries
 * do), nothing is dropped and the monitors' own checks resynchronise later.
 *
 * pthread_setname_np: a rename shows in the next dprint line (format.c keeps
 * each thread's name). sigaction and signal: a program taking SIGSEGV or
 * SIGBUS over after libtf makes string reads use the syscall (safe_read.c);
 * the program sees its own dispositions of the termination signals where
 * libtf's handler writes the recording (term.c);
 * sanitizer builds of libtf define neither, as their runtimes call sigaction
 * before they can run instrumented code.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "internal.h"
#include "locks.h"

/* The functions to call before a jump, in the order registered: a list
 * that only grows at its end (published with release order), so a jump,
 * maybe in a signal handler, walks it without a lock. */
struct on_jump {
    tf__longjmp_fn fn;
    struct on_jump *next;
};
static struct on_jump *fns, **fns_end = &fns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void tf__on_longjmp(tf__longjmp_fn fn)
{
    pthread_mutex_lock(&lock);
    struct on_jump *j = fns;
    while (j && j->fn != fn)
        j = j->next;
    if (!j && (j = calloc(1, sizeof *j))) {
        j->fn = fn;
        __atomic_store_n(fns_end, j, __ATOMIC_RELEASE);
        fns_end = &j->next;
    } else if (!j) {
        fprintf(stderr, "tf: out of memory: a monitor's stacks will not follow longjmp\n");
    }
    pthread_mutex_unlock(&lock);
}

static uintptr_t target_sp(const struct __jmp_buf_tag *env)
{
#if defined(__x86_64__) && defined(__GLIBC__)
    uintptr_t v = (uintptr_t)env->__jmpbuf[6], guard; /* JB_RSP */
    __asm__("mov %%fs:0x30, %0" : "=r"(guard));      /* tcbhead_t.pointer_guard */
    v = ((v >> 17) | (v << 47)) ^ guard;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    return v > here && v - here < ((uintptr_t)1 << 30) ? v : 0;
#else
    (void)env;
    return 0;
#endif
}

static void resync(const struct __jmp_buf_tag *env)
{
    struct on_jump *j = __atomic_load_n(&fns, __ATOMIC_ACQUIRE);
    uintptr_t sp = j ? target_sp(env) : 0;
    for (; sp && j; j = __atomic_load_n(&j->next, __ATOMIC_ACQUIRE))
        j->fn(sp);
}

typedef void (*jump_fn)(struct __jmp_buf_tag *, int);

static const char *const jump_names[] = {"longjmp", "siglongjmp", "_longjmp", "__longjmp_chk"};
static jump_fn jumps[4];

/* Looked up at start-up: the first siglongjmp may leave a signal handler
 * that interrupted the dynamic loader, whose lock dlsym takes. */
__attribute__((constructor(101))) static void find_jumps(void)
{
    for (int i = 0; i < 4; i++)
        *(void **)&jumps[i] = dlsym(RTLD_NEXT, jump_names[i]);
}

static jump_fn real(int i)
{
    jump_fn f = __atomic_load_n(&jumps[i], __ATOMIC_RELAXED);
    if (!f)
        *(void **)&f = dlsym(RTLD_NEXT, jump_names[i]); /* called before libtf's constructors */
    if (!f)
        abort(); /* no libc to jump with: nothing sensible is left to do */
    return f;
}

#define INTERPOSE(name, i)                                                     \
    TF_API void name(struct __jmp_buf_tag env[1], int val)                     \
    {                                                                          \
        jump_fn next = real(i);                                                \
        resync(env);                                                           \
        next(env, val);                                                        \
        __builtin_unreachable();                                               \
    }

void __longjmp_chk(struct __jmp_buf_tag env[1], int val) __attribute__((noreturn));

INTERPOSE(longjmp, 0)
INTERPOSE(siglongjmp, 1)
INTERPOSE(_longjmp, 2)
INTERPOSE(__longjmp_chk, 3)

/* ---- thread names ---------------------------------------------------------------
 * Every dprint line starts with the thread's name. Asking the kernel costs a
 * syscall (prctl), which was half of a dprint line's time, so each thread
 * keeps its name and reads it again only after a rename. libtf's
 * pthread_setname_np renames with libc's function and moves the generation
 * on, and every thread rereads its name at its next line. A thread
 * that renames itself with prctl(PR_SET_NAME) directly is not seen. */
static unsigned long name_generation = 1;
static TF_TLS struct {
    unsigned long generation; /* 0: not read yet */
    char name[16];
} own_name;

void tf__thread_name(char name[16])
{
    unsigned long g = __atomic_load_n(&name_generation, __ATOMIC_ACQUIRE);
    if (own_name.generation != g) {
        if (prctl(PR_GET_NAME, own_name.name) != 0)
            strcpy(own_name.name, "?");
        own_name.name[15] = 0;
        own_name.generation = g;
    }
    memcpy(name, own_name.name, 16);
}

/* libc's function, looked up before anything else in libtf runs: dlsym takes
 * the dynamic loader's lock, and a thread that libtf's dlopen of a factory
 * library starts (liblttng-ust's listeners name themselves) would wait on it
 * while that dlopen waits for the thread. */
static int (*libc_setname)(pthread_t, const char *);

__attribute__((constructor(101))) static void find_libc_setname(void)
{
    *(void **)&libc_setname = dlsym(RTLD_NEXT, "pthread_setname_np");
}

TF_API int pthread_setname_np(pthread_t thread, const char *name)
{
    int (*fn)(pthread_t, const char *) = __atomic_load_n(&libc_setname, __ATOMIC_RELAXED);
    if (!fn) {
        *(void **)&fn = dlsym(RTLD_NEXT, "pthread_setname_np");
        __atomic_store_n(&libc_setname, fn, __ATOMIC_RELAXED);
    }
    int rc = fn ? fn(thread, name) : ENOSYS;
    __atomic_add_fetch(&name_generation, 1, __ATOMIC_RELEASE);
    return rc;
}

#ifdef __GLIBC__
/* glibc's own name for it: no dlsym, which may allocate, when a sanitizer
 * runtime installs its handlers before anything is initialised. */
extern int __sigaction(int, const struct sigaction *, struct sigaction *);
#endif

int tf__real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
#ifdef __GLIBC__
    return __sigaction(sig, sa, old);
#else
    static int (*real)(int, const struct sigaction *, struct sigaction *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "sigaction");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(sig, sa, old);
#endif
}

#if TF_PROBE_BY_FAULT
TF_API int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
    int rc = tf__term_sigaction(sig, sa, old); /* the termination signals' view (term.c) */
    if (rc == 1)
        rc = tf__real_sigaction(sig, sa, old);
    if (rc == 0 && sa)
        tf__probe_handler_changed(sig);
    return rc;
}

TF_API sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART; /* glibc's BSD semantics */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, sig);
    return sigaction(sig, &sa, &old) == 0 ? old.sa_handler : SIG_ERR;
}
#endif

void tf__interpose_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&lock);
    else
        pthread_mutex_unlock(&lock);
}
