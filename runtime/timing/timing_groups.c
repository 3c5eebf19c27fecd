/*
 * timing_groups.c: timer groups (Java: TimerGroup) and which timers record.
 *
 * The group graph is the registry's, the only one in libtf. The manager keeps
 * a table of the groups it knows (its timers', those its TUs declare, those
 * switched, and every group below one of them) with the user's switch for
 * each and whether it is blocked: switched off itself or inside a group that
 * is. A timer is active (.req.hot: one byte the hooks read) when it is
 * enabled and its group is not blocked.
 *
 * The registry's walks take no lock, so everything here runs with the
 * manager's lock held, also inside create(), which the registry calls under
 * its own lock.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "timing_internal.h"

int tt_group_find(tt_manager *m, const char *name)
{
    for (int i = 0; i < m->ngroups; i++)
        if (strcmp(m->groups[i].name, name) == 0)
            return i;
    return -1;
}

/* Nonzero if name is a group of the table switched off (only those are
 * compared: usually none or few). */
static int switched_off(const char *name, void *arg)
{
    tt_manager *m = arg;
    for (int i = 0; i < m->ngroups; i++)
        if (!m->groups[i].enabled && strcmp(m->groups[i].name, name) == 0)
            return 1;
    return 0;
}

static int is_blocked(tt_manager *m, const char *name)
{
    return tf__group_each_container(name, switched_off, m) == 1;
}

int tt_group_index(tt_manager *m, const char *name)
{
    int i = tt_group_find(m, name);
    if (i >= 0)
        return i;
    tt_group *v = realloc(m->groups, (size_t)(m->ngroups + 1) * sizeof *v);
    if (!v)
        return -1;
    m->groups = v;
    tt_group *g = &v[m->ngroups];
    memset(g, 0, sizeof *g);
    if (!(g->name = strdup(name)))
        return -1;
    g->enabled = 1;
    g->blocked = is_blocked(m, name);
    return m->ngroups++;
}

static int add_group(const char *name, void *arg)
{
    return tt_group_index(arg, name) < 0 ? TF_ENOMEM : 0;
}

/* The table gains every group below one of its groups; a group added is
 * visited in its turn, so the order is the same walk every time. */
void tt_group_add_below(tt_manager *m)
{
    for (int i = 0; i < m->ngroups; i++)
        tf__group_each_subgroup(m->groups[i].name, add_group, m);
}

struct collect {
    tt_manager *m;
    tt_group_list *out;
};

static int add_index(const char *name, void *arg)
{
    struct collect *c = arg;
    int g = tt_group_find(c->m, name);
    if (g < 0) /* declared since the table last grew: not reported yet */
        return 0;
    int *v = realloc(c->out->v, (size_t)(c->out->n + 1) * sizeof *v);
    if (!v)
        return TF_ENOMEM;
    v[c->out->n++] = g;
    c->out->v = v;
    return 0;
}

int tt_group_subs(tt_manager *m, int g, tt_group_list *out)
{
    struct collect c = {m, out};
    out->v = NULL;
    out->n = 0;
    if (tf__group_each_subgroup(m->groups[g].name, add_index, &c) == 0)
        return TF_OK;
    free(out->v);
    out->v = NULL;
    out->n = 0;
    return TF_ENOMEM;
}

void tt_timer_update(tt_manager *m, tt_timer *t)
{
    int g = t->group;
    __atomic_store_n(&t->active, t->enabled && (g < 0 || !m->groups[g].blocked),
                     __ATOMIC_RELAXED);
}

/* Recomputes which groups are blocked; returns nonzero if that changed. */
int tt_recompute_blocked(tt_manager *m)
{
    int any_off = 0, changed = 0;
    for (int g = 0; g < m->ngroups; g++)
        any_off |= !m->groups[g].enabled;
    for (int g = 0; g < m->ngroups; g++) {
        /* none off, the common case: cheap for each new TU */
        int b = any_off && is_blocked(m, m->groups[g].name);
        changed |= b != m->groups[g].blocked;
        m->groups[g].blocked = b;
    }
    return changed;
}

void tt_recompute_active(tt_manager *m)
{
    tt_recompute_blocked(m);
    for (uint32_t i = 0; i < m->ntimers; i++)
        tt_timer_update(m, tt_timer_at(m, i));
}

void tt_timer_adopt_group(tt_manager *m, tt_timer *t, const tf_tu *tu, int caller_id)
{
    tf__lock(&m->lock);
    if (t->group < 0 && caller_id >= 0 && (uint32_t)caller_id < tu->nnames) {
        int32_t gi = tu->names[caller_id].group;
        /* Found, never made: a hook runs this, and the monitor's creation
         * put every group its TU declares in the table. */
        int g = gi >= 0 && (uint32_t)gi < tu->ngroups ? tt_group_find(m, tu->groups[gi].name) : -1;
        if (g >= 0) {
            __atomic_store_n(&t->group, g, __ATOMIC_RELEASE);
            tt_timer_update(m, t);
        }
    }
    tf__unlock(&m->lock);
}
