/* tee.c: one reading, several outputs (--format and --flamegraph together). */
#include <stdlib.h>

#include "dump.h"

struct tee {
    td_output base;
    td_output **outs;
    int n;
};

static int tee_event(void *self, const td_event *e)
{
    struct tee *t = self;
    int rc = 0;
    for (int i = 0; i < t->n; i++)
        rc |= t->outs[i]->event(t->outs[i]->self, e);
    return rc;
}

static int tee_counters(void *self, const td_event *e)
{
    struct tee *t = self;
    int rc = 0;
    for (int i = 0; i < t->n; i++)
        rc |= t->outs[i]->counters ? t->outs[i]->counters(t->outs[i]->self, e) : 0;
    return rc;
}

static int tee_finish(void *self)
{
    struct tee *t = self;
    int rc = 0;
    for (int i = 0; i < t->n; i++)
        rc |= t->outs[i]->finish(t->outs[i]->self);
    return rc;
}

td_output *td_tee_new(td_output **outs, int n)
{
    struct tee *t = malloc(sizeof *t);
    if (!t)
        return NULL;
    *t = (struct tee){{t, tee_event, tee_finish, tee_counters}, outs, n};
    return &t->base;
}
