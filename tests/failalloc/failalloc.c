/*
 * failalloc.c: the counting wrappers of failalloc.h (not compiled with it).
 *
 * TF_TEST_FAIL_ALLOC=N fails the Nth allocation libtf asks for (counting
 * from 1, over all threads); TF_TEST_FAIL_ALLOC=N+ fails it and every one
 * after (memory exhausted for good). Unset or 0: none fails. At exit,
 * "failalloc: N allocations" or "failalloc: failed allocation N" goes to
 * the file TF_TEST_FAIL_ALLOC_LOG names, so the driver knows when N has
 * passed the end of the run. TF_TEST_FAIL_ALLOC_TRACE=1: the stack of the
 * first failed allocation on stderr, to find the branch that took it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned long fail_at, count;
static int persistent, failed;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* On the first allocation: libtf's constructors allocate before any
 * constructor of this file would run. */
static void fa_init(void)
{
    const char *v = getenv("TF_TEST_FAIL_ALLOC");
    char *end;
    if (!v || !*v)
        return;
    fail_at = strtoul(v, &end, 10);
    persistent = *end == '+';
}

__attribute__((destructor)) static void fa_report(void)
{
    const char *log = getenv("TF_TEST_FAIL_ALLOC_LOG");
    FILE *f = log ? fopen(log, "w") : NULL;
    if (!f)
        return;
    if (__atomic_load_n(&failed, __ATOMIC_RELAXED))
        fprintf(f, "failalloc: failed allocation %lu\n", fail_at);
    else
        fprintf(f, "failalloc: %lu allocations\n", __atomic_load_n(&count, __ATOMIC_RELAXED));
    fclose(f);
}

/* Whether this allocation fails (errno ENOMEM, as libc's would). */
static int fails(void)
{
    pthread_once(&once, fa_init);
    unsigned long n = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    if (!fail_at || n < fail_at || (n > fail_at && !persistent))
        return 0;
    if (!__atomic_exchange_n(&failed, 1, __ATOMIC_RELAXED) && getenv("TF_TEST_FAIL_ALLOC_TRACE")) {
        void *frames[16]; /* where the failure was: addr2line -f -e libtf.so.0 OFFSET */
        backtrace_symbols_fd(frames, backtrace(frames, 16), 2);
    }
    errno = ENOMEM;
    return 1;
}

void *tf_fa_malloc(size_t n)
{
    return fails() ? NULL : malloc(n);
}

void *tf_fa_calloc(size_t n, size_t size)
{
    return fails() ? NULL : calloc(n, size);
}

void *tf_fa_realloc(void *p, size_t n)
{
    return fails() ? NULL : realloc(p, n);
}

char *tf_fa_strdup(const char *s)
{
    return fails() ? NULL : strdup(s);
}

char *tf_fa_strndup(const char *s, size_t n)
{
    return fails() ? NULL : strndup(s, n);
}

int tf_fa_asprintf(char **out, const char *fmt, ...)
{
    if (fails())
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(out, fmt, ap);
    va_end(ap);
    return rc;
}

FILE *tf_fa_open_memstream(char **buf, size_t *size)
{
    return fails() ? NULL : open_memstream(buf, size);
}

FILE *tf_fa_fopen(const char *path, const char *mode)
{
    return fails() ? NULL : fopen(path, mode);
}

FILE *tf_fa_fdopen(int fd, const char *mode)
{
    return fails() ? NULL : fdopen(fd, mode);
}

void *tf_fa_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off)
{
    return fails() ? MAP_FAILED : mmap(addr, n, prot, flags, fd, off);
}

void *tf_fa_mremap(void *old, size_t old_n, size_t n, int flags, ...)
{
    return fails() ? MAP_FAILED : mremap(old, old_n, n, flags); /* libtf never moves to a place */
}
