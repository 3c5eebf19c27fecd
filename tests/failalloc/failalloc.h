/*
 * failalloc.h: forced into every source of the failing-allocation libtf
 * (-include failalloc.h; tests/failalloc/README.md). Each way libtf gets
 * memory from libc is redirected to a counting wrapper of failalloc.c that
 * fails when told to.
 */
#ifndef TF_FAILALLOC_H
#define TF_FAILALLOC_H

/* Included before anything: libc's headers are read here first, so with what
 * the sources that define _GNU_SOURCE themselves need. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

void *tf_fa_malloc(size_t n);
void *tf_fa_calloc(size_t n, size_t size);
void *tf_fa_realloc(void *p, size_t n);
char *tf_fa_strdup(const char *s);
char *tf_fa_strndup(const char *s, size_t n);
int tf_fa_asprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
FILE *tf_fa_open_memstream(char **buf, size_t *size);
FILE *tf_fa_fopen(const char *path, const char *mode);
FILE *tf_fa_fdopen(int fd, const char *mode);
void *tf_fa_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off);
void *tf_fa_mremap(void *old, size_t old_n, size_t n, int flags, ...);

/* After the declarations of libc's headers, which the sources include
 * later: those then declare the wrappers, with libc's prototypes. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define malloc tf_fa_malloc
#define calloc tf_fa_calloc
#define realloc tf_fa_realloc
#define strdup tf_fa_strdup
#define strndup tf_fa_strndup
#define asprintf tf_fa_asprintf
#define open_memstream tf_fa_open_memstream
#define fopen tf_fa_fopen
#define fdopen tf_fa_fdopen
#define mmap tf_fa_mmap
#define mremap tf_fa_mremap

#endif
