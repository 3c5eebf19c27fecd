/*
 * timing_groups.c: timer groups (Java: TimerGroup) and which timers record.
 *
 * Groups and containment: the manager merges the TF_GROUP declarations of
 * the TUs it sees (safe under the registry's lock, which create() runs in)
 * with the registry's whole graph (asked outside any lock, before enabling
 * and reporting: a parent group may be declared only in a TU without timing).
 * A timer is active (.req.hot: one byte the hooks read) when it is enabled
 * and no group from its own up through every group containing it is
 * disabled. Everything here runs with the manager's lock held, except
 * tt_sync_registry_graph, which takes it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "timing_internal.h"

int tt_group_index(tt_manager *m, const char *name)
{
    for (int i = 0; i < m->ngroups; i++)
        if (strcmp(m->groups[i].name, name) == 0)
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
    return m->ngroups++;
}

void tt_add_edge(tt_manager *m, int from, int to)
{
    if (from < 0 || to < 0 || from == to)
        return;
    tt_group *g = &m->groups[from];
    for (int i = 0; i < g->nsubs; i++)
        if (g->subs[i] == to)
            return;
    int *v = realloc(g->subs, (size_t)(g->nsubs + 1) * sizeof *v);
    if (v) {
        v[g->nsubs++] = to;
        g->subs = v;
    }
}

static void block(tt_manager *m, int g)
{
    if (m->groups[g].blocked)
        return;
    m->groups[g].blocked = 1;
    for (int i = 0; i < m->groups[g].nsubs; i++)
        block(m, m->groups[g].subs[i]);
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
    if (!any_off) { /* the common case, cheap for each new TU */
        for (int g = 0; g < m->ngroups; g++) {
            changed |= m->groups[g].blocked;
            m->groups[g].blocked = 0;
        }
        return changed;
    }
    char *was = malloc((size_t)m->ngroups + 1);
    for (int g = 0; g < m->ngroups; g++) {
        if (was)
            was[g] = (char)m->groups[g].blocked;
        m->groups[g].blocked = 0;
    }
    for (int g = 0; g < m->ngroups; g++)
        if (!m->groups[g].enabled)
            block(m, g);
    for (int g = 0; g < m->ngroups; g++)
        changed |= !was || was[g] != m->groups[g].blocked;
    free(was);
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
    pthread_mutex_lock(&m->lock);
    if (t->group < 0 && caller_id >= 0 && (uint32_t)caller_id < tu->nnames) {
        int32_t gi = tu->names[caller_id].group;
        if (gi >= 0 && (uint32_t)gi < tu->ngroups) {
            int g = tt_group_index(m, tu->groups[gi].name);
            __atomic_store_n(&t->group, g, __ATOMIC_RELEASE);
            tt_timer_update(m, t);
        }
    }
    pthread_mutex_unlock(&m->lock);
}

/* Adds the registry's subgroup edges among every group reachable from ours. */
void tt_sync_registry_graph(tt_manager *m)
{
    char **names = NULL;
    int n = 0, cap = 0;
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < m->ngroups; i++) {
        if (n == cap) {
            char **v = realloc(names, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *v);
            if (!v)
                break;
            names = v;
        }
        names[n++] = strdup(m->groups[i].name);
    }
    pthread_mutex_unlock(&m->lock);
    for (int i = 0; i < n; i++) {
        const char *subs[64];
        int k = names[i] ? tf_group_subgroups(names[i], subs, 64) : 0;
        k = k < 64 ? k : 64;
        pthread_mutex_lock(&m->lock);
        int from = tt_group_index(m, names[i]);
        for (int j = 0; j < k; j++) {
            int before = m->ngroups, to = tt_group_index(m, subs[j]);
            tt_add_edge(m, from, to);
            if (m->ngroups > before && n == cap) { /* a new group: visit it too */
                char **v = realloc(names, (size_t)(cap *= 2) * sizeof *v);
                if (v)
                    names = v;
            }
            if (m->ngroups > before && n < cap)
                names[n++] = strdup(subs[j]);
        }
        tt_recompute_active(m);
        pthread_mutex_unlock(&m->lock);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

