/*
 * frames.c: each thread's monitored calls in progress, as conditions and
 * triggers see them (a call's depth, start time and what was held back).
 * Allocated on a thread's first event and grown as needed, from pages.c,
 * never malloc (a first event may be in a signal handler that interrupted
 * malloc); freed when the thread ends. Frames a longjmp skipped are dropped
 * at the next exit below them (TF_CALLER_SP, as the tracer does).
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "control.h"

/* An owner's data (tf__cframe_data), recycled on the thread that made it. */
struct data {
    struct data *next; /* while free */
    size_t size;
};
#define DATA_HEAD ((sizeof(struct data) + 15) & ~(size_t)15)

struct stack {
    tf_cframe *v;
    int n, cap;
    tf_arena arena;
    struct data *free;
};

static TF_TLS struct stack *mine;
static pthread_key_t key;

static void release(void *p)
{
    struct stack *s = p;
    mine = NULL;
    tf__pages_free(s->v, (size_t)s->cap * sizeof *s->v);
    tf__arena_free(&s->arena);
    tf__pages_free(s, sizeof *s);
}

/* At start-up: pthread_once interrupted on its own thread would wait for
 * itself, and an early key is set without malloc (glibc's first block). */
__attribute__((constructor(101))) static void make_key(void)
{
    pthread_key_create(&key, release);
}

uint64_t tf__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct stack *stack(void)
{
    if (mine)
        return mine;
    struct stack *s = tf__pages_alloc(sizeof *s);
    if (s && pthread_setspecific(key, s) != 0) {
        tf__pages_free(s, sizeof *s);
        s = NULL;
    }
    return mine = s;
}

void *tf__cframe_data(tf_cframe *f, size_t size)
{
    struct stack *s = mine;
    struct data **p = &s->free;
    while (*p && (*p)->size != size)
        p = &(*p)->next;
    struct data *d = *p;
    if (d)
        *p = d->next;
    else if ((d = tf__arena_alloc(&s->arena, DATA_HEAD + size)))
        d->size = size;
    if (!d)
        return NULL;
    void *data = (char *)d + DATA_HEAD;
    memset(data, 0, size);
    return f->data = data;
}

static void data_free(struct stack *s, void *data)
{
    if (!data)
        return;
    struct data *d = (struct data *)((char *)data - DATA_HEAD);
    d->next = s->free;
    s->free = d;
}

static int depth_of(const struct stack *s, uintptr_t sp)
{
    /* Two monitors watching one call (a condition and a trigger) share it. */
    if (s->n && s->v[s->n - 1].sp == sp)
        return s->v[s->n - 1].depth;
    return s->n ? s->v[s->n - 1].depth + 1 : 1;
}

static void drop_dead(struct stack *s, uintptr_t sp)
{
    while (s->n && s->v[s->n - 1].sp < sp) {
        s->n--;
        data_free(s, s->v[s->n].data);
    }
}

tf_cframe *tf__cframe_push(const void *owner, uintptr_t sp, int id)
{
    struct stack *s = stack();
    if (s)
        drop_dead(s, sp);
    if (s && s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        tf_cframe *v = tf__pages_grow(s->v, (size_t)s->cap * sizeof *v, (size_t)cap * sizeof *v);
        if (v) {
            s->v = v;
            s->cap = cap;
        }
    }
    if (!s || s->n == s->cap)
        return NULL;
    tf_cframe *f = &s->v[s->n];
    *f = (tf_cframe){owner, sp, id, depth_of(s, sp), 0, 0, NULL};
    s->n++;
    return f;
}

tf_cframe *tf__cframe_find(const void *owner, uintptr_t sp, int id)
{
    struct stack *s = mine;
    if (!s)
        return NULL;
    drop_dead(s, sp);
    for (int i = s->n - 1; i >= 0 && s->v[i].sp == sp; i--)
        if (s->v[i].owner == owner && s->v[i].id == id)
            return &s->v[i];
    return NULL;
}

void tf__cframe_pop(tf_cframe *f)
{
    struct stack *s = mine;
    data_free(s, f->data);
    int i = (int)(f - s->v);
    for (; i + 1 < s->n; i++) /* a frame sharing the call may sit above it */
        s->v[i] = s->v[i + 1];
    s->n--;
}

tf_cframe *tf__cframe_top(const void *owner, uintptr_t sp)
{
    struct stack *s = mine;
    if (!s)
        return NULL;
    drop_dead(s, sp);
    for (int i = s->n - 1; i >= 0; i--)
        if (s->v[i].owner == owner)
            return &s->v[i];
    return NULL;
}
