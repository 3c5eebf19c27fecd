/*
 * frames.c: each thread's monitored calls in progress, as conditions and
 * triggers see them (a call's depth, start time and what was held back).
 * Allocated on a thread's first event and grown as needed; freed when the
 * thread ends. Frames a longjmp skipped are dropped at the next exit below
 * them (TF_CALLER_SP, as the tracer does).
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "control.h"

struct stack {
    tf_cframe *v;
    int n, cap;
};

static TF_TLS struct stack *mine;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void release(void *p)
{
    struct stack *s = p;
    for (int i = 0; i < s->n; i++)
        free(s->v[i].data);
    free(s->v);
    free(s);
    mine = NULL;
}

static void make_key(void)
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
    pthread_once(&once, make_key);
    struct stack *s = calloc(1, sizeof *s);
    if (s && pthread_setspecific(key, s) != 0) {
        free(s);
        s = NULL;
    }
    return mine = s;
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
        free(s->v[s->n].data);
    }
}

tf_cframe *tf__cframe_push(const void *owner, uintptr_t sp, int id)
{
    TF_KEEP_ERRNO();
    struct stack *s = stack();
    if (s)
        drop_dead(s, sp);
    if (s && s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        tf_cframe *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (v) {
            s->v = v;
            s->cap = cap;
        }
    }
    TF_RESTORE_ERRNO();
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
    free(f->data);
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
