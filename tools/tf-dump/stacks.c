/* stacks.c: per-thread open calls (stacks.h). */
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

td_thread *td_thread_of(td_threads *ts, const td_event *e)
{
    for (uint32_t i = ts->n; i > 0; i--) /* the latest threads first: they are busiest */
        if (ts->all[i - 1]->tid == e->tid && ts->all[i - 1]->pid == e->pid)
            return ts->all[i - 1];
    if (!td_grow(&ts->all, &ts->cap, ts->n, sizeof *ts->all, 16))
        return NULL;
    td_thread *t = calloc(1, sizeof *t);
    if (!t || !(t->name = strdup(e->thread))) {
        free(t);
        return NULL;
    }
    t->pid = e->pid;
    t->tid = e->tid;
    t->index = ts->n;
    ts->all[ts->n++] = t;
    return t;
}

td_frame *td_push(td_thread *t, const char *func, int64_t start)
{
    if (!td_grow(&t->stack, &t->cap, t->depth, sizeof *t->stack, 64))
        return NULL;
    td_frame *f = &t->stack[t->depth];
    if (!(f->func = strdup(func)))
        return NULL;
    f->start = start;
    f->node = NULL;
    t->depth++;
    return f;
}

uint32_t td_find(const td_thread *t, const char *func)
{
    for (uint32_t i = t->depth; i > 0; i--)
        if (strcmp(t->stack[i - 1].func, func) == 0)
            return i;
    return 0;
}

td_frame td_pop(td_thread *t)
{
    return t->stack[--t->depth];
}

void td_threads_free(td_threads *ts)
{
    for (uint32_t i = 0; i < ts->n; i++) {
        td_thread *t = ts->all[i];
        while (t->depth)
            free(td_pop(t).func);
        free(t->stack);
        free(t->name);
        free(t);
    }
    free(ts->all);
}

void td_threads_note(const td_threads *ts, const char *what)
{
    if (ts->unmatched)
        fprintf(stderr, "tf-dump: %s: %llu exits without their enter were left out (the recording "
                "starts inside those calls)\n", what, (unsigned long long)ts->unmatched);
}
