/*
 * longjmp.c: keeps per-thread stacks right across longjmp (DESIGN.md section 4:
 * monitors that keep per-thread stacks must resynchronise after longjmp
 * skipped frames).
 *
 * libtf defines longjmp, siglongjmp, _longjmp and __longjmp_chk, which the
 * program's calls bind to before libc's (as sanitizer runtimes do). Each tells
 * the registered monitors the stack pointer the jump lands on, then jumps with
 * libc's own function. The target is read from the jmp_buf, where glibc on
 * x86_64 stores it mangled with the thread's pointer guard; elsewhere, or if
 * the value is not plausible (a jump to another stack, as coroutine libraries
 * do), nothing is dropped and the monitors' own checks resynchronise later.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>

#include "../registry/internal.h"

#define MAX_FNS 8
static tf__longjmp_fn fns[MAX_FNS];
static int nfns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void tf__on_longjmp(tf__longjmp_fn fn)
{
    pthread_mutex_lock(&lock);
    int present = 0;
    for (int i = 0; i < nfns; i++)
        present |= fns[i] == fn;
    if (!present && nfns < MAX_FNS) {
        fns[nfns] = fn;
        __atomic_store_n(&nfns, nfns + 1, __ATOMIC_RELEASE);
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
    int n = __atomic_load_n(&nfns, __ATOMIC_ACQUIRE);
    uintptr_t sp = n ? target_sp(env) : 0;
    for (int i = 0; sp && i < n; i++)
        fns[i](sp);
}

typedef void (*jump_fn)(struct __jmp_buf_tag *, int);

static jump_fn real(const char *name)
{
    jump_fn f = (jump_fn)dlsym(RTLD_NEXT, name);
    if (!f)
        abort(); /* no libc to jump with: nothing sensible is left to do */
    return f;
}

#define INTERPOSE(name)                                                        \
    TF_API void name(struct __jmp_buf_tag env[1], int val)                     \
    {                                                                          \
        static jump_fn next;                                                   \
        if (!next)                                                             \
            next = real(#name);                                                \
        resync(env);                                                           \
        next(env, val);                                                        \
        __builtin_unreachable();                                               \
    }

void __longjmp_chk(struct __jmp_buf_tag env[1], int val) __attribute__((noreturn));

INTERPOSE(longjmp)
INTERPOSE(siglongjmp)
INTERPOSE(_longjmp)
INTERPOSE(__longjmp_chk)
