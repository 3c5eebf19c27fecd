/*
 * pages.c: the memory hooks allocate, straight from the kernel (internal.h:
 * a hook may run in a signal handler that interrupted malloc on its own
 * thread). mmap, mremap and munmap are system calls that take no lock in
 * libc, so they are async-signal-safe where malloc is not.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

static size_t page_round(size_t size)
{
    static size_t page_size;
    size_t page = __atomic_load_n(&page_size, __ATOMIC_RELAXED);
    if (!page) {
        page = (size_t)sysconf(_SC_PAGESIZE); /* a read of the auxiliary vector */
        __atomic_store_n(&page_size, page, __ATOMIC_RELAXED);
    }
    return (size + page - 1) & ~(page - 1);
}

uint64_t tf__pages_failed;

/* .rel.silence: what a hook could not get memory for is missing from the
 * trace; counted here, said at exit (guard.c). */
static void *failed(void)
{
    __atomic_fetch_add(&tf__pages_failed, 1, __ATOMIC_RELAXED);
    return NULL;
}

void *tf__pages_alloc(size_t size)
{
    TF_KEEP_ERRNO();
    void *p = mmap(NULL, page_round(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    TF_RESTORE_ERRNO();
    return p == MAP_FAILED ? failed() : p;
}

void tf__pages_free(void *p, size_t size)
{
    if (!p)
        return;
    TF_KEEP_ERRNO();
    munmap(p, page_round(size));
    TF_RESTORE_ERRNO();
}

void *tf__pages_grow(void *p, size_t size, size_t new_size)
{
    if (!p)
        return tf__pages_alloc(new_size);
    TF_KEEP_ERRNO();
    void *q = mremap(p, page_round(size), page_round(new_size), MREMAP_MAYMOVE);
    TF_RESTORE_ERRNO();
    return q == MAP_FAILED ? failed() : q;
}

/* ---- arenas: blocks of ARENA_BLOCK bytes, each starting with its link ------ */

#define ARENA_BLOCK (64 * 1024)
#define ALIGN 16

struct block {
    struct block *next;
    size_t size;
};

void *tf__arena_alloc(tf_arena *a, size_t size)
{
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (size > a->left) {
        size_t head = (sizeof(struct block) + ALIGN - 1) & ~(size_t)(ALIGN - 1);
        size_t bytes = head + size > ARENA_BLOCK ? head + size : ARENA_BLOCK;
        struct block *b = tf__pages_alloc(bytes);
        if (!b)
            return NULL;
        b->next = a->blocks;
        b->size = bytes;
        a->blocks = b;
        a->next = (char *)b + head;
        a->left = bytes - head;
    }
    void *p = a->next;
    a->next += size;
    a->left -= size;
    return p;
}

void tf__arena_free(tf_arena *a)
{
    for (struct block *b = a->blocks, *next; b; b = next) {
        next = b->next;
        tf__pages_free(b, b->size);
    }
    *a = (tf_arena){0};
}
