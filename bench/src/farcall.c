/*
 * farcall: does a call to a far target cost more than a near one on this CPU?
 * (bench/README.md, "What limits each target".) fib calls two empty hooks
 * through function pointers, as TF's generated code calls a monitor; the hooks
 * are a `ret` copied into a page mapped right after the program's code, and
 * into one mapped 1 TiB away, where a shared library such as libtf.so lives.
 *
 *   cc -O2 bench/src/farcall.c -o farcall && ./farcall
 *
 * Prints the best of 5 runs for each placement, in ns per fib call.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static void (*volatile hook_enter)(void);
static void (*volatile hook_exit)(void);
static volatile int hooks_on;

__attribute__((noinline)) static long fib(long n)
{
    int on = hooks_on;
    if (on)
        hook_enter();
    long r = n;
    if (n >= 2) {
        long a = fib(n - 1), b = fib(n - 2);
        __asm__("" : "+r"(b));
        r = a + b;
    }
    if (on)
        hook_exit();
    return r;
}

static double ns_per_call(int n)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long k = n;
    __asm__ volatile("" : "+r"(k));
    long r = fib(k);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double a = 0, b = 1; /* calls made by fib(n): 2 fib(n+1) - 1 */
    for (int i = 0; i <= n; i++) {
        double t = a + b;
        a = b;
        b = t;
    }
    double calls = 2 * a - 1;
    (void)r;
    return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / calls;
}

/* Maps a page with two `ret`s at (or, if taken, near) addr; NULL if impossible. */
static unsigned char *hooks_at(uintptr_t addr)
{
    for (int tries = 0; tries < 64; tries++, addr += 1 << 20) {
        void *p = mmap((void *)addr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p != MAP_FAILED) {
            unsigned char *c = p;
            c[0] = 0xc3;  /* ret */
            c[64] = 0xc3; /* ret, in another cache line */
            return c;
        }
    }
    return NULL;
}

static double best(uintptr_t where, const char *what)
{
    unsigned char *h = hooks_at(where);
    if (!h) {
        printf("%-40s cannot map a page there\n", what);
        return 0;
    }
    hook_enter = (void (*)(void))(void *)h;
    hook_exit = (void (*)(void))(void *)(h + 64);
    hooks_on = 1;
    double b = 1e9;
    for (int i = 0; i < 5; i++) {
        double t = ns_per_call(30);
        b = t < b ? t : b;
    }
    hooks_on = 0;
    printf("%-40s %p  %.2f ns per fib call\n", what, (void *)h, b);
    munmap(h, 4096);
    return b;
}

int main(void)
{
#if !defined(__x86_64__)
    puts("farcall: written for x86-64 (the hooks are the byte 0xc3)");
    return 0;
#endif
    uintptr_t code = (uintptr_t)&fib & ~(uintptr_t)0xfff;
    double off = 1e9;
    for (int i = 0; i < 5; i++) {
        double t = ns_per_call(30);
        off = t < off ? t : off;
    }
    printf("%-40s %18s  %.2f ns per fib call\n", "no hooks", "", off);
    double near = best(code + (1 << 20), "hooks 1 MiB after fib (near)");
    double far = best(code + ((uintptr_t)1 << 40), "hooks 1 TiB after fib (far)");
    if (near > 0 && far > 0)
        printf("far / near: %.2f\n", far / near);
    return 0;
}
