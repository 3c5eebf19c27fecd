/*
 * hints.c: names that may match nothing (docs/design.md .silent.nearest).
 * A glob in TF_SELECT or TF_TRIGGERS is given before the code it names has
 * loaded, so whether it matched can only be said at exit, and by then the
 * TUs' destructors have unregistered them (they run before libtf's exit
 * handlers). So each such glob is a "pending" one that watches every TU as
 * it registers (tf__registry_observe): whether the TU has what it names, and
 * which of its names are nearest (nearest/), for "did you mean ...?" later.
 * Groups need no watching: the registry never forgets one (tf__hint_group).
 * Never called from a hook.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nearest.h"

#define INFO_FLAGS (TF_NAME_INFO | TF_NAME_TP_ENTER | TF_NAME_TP_EXIT)

struct tf_pending {
    char *want;
    int suggest;       /* a function glob with a wildcard is no misspelt name */
    int qualified;     /* a glob with a '.' is matched with "<tu>.<name>" */
    int matched, info; /* matched a monitored function; an info function */
    tf_nearest near;
    struct tf_pending *next;
};

/* Taken under the registry's lock (the observer), never the other way. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tf_pending *pendings;

static void offer(tf_pending *p, const tf_tu *tu, const tf_name *n)
{
    char full[512];
    if (!p->qualified)
        tf_nearest_offer(&p->near, n->name);
    else if ((size_t)snprintf(full, sizeof full, "%s.%s", tu->name, n->name) < sizeof full)
        tf_nearest_offer(&p->near, full); /* a longer one is no typo's neighbour */
}

/* Whether the TU has what p names; only while p has matched no monitored
 * function are its names offered for "did you mean" (a distance each, the
 * costly part: 878 exact TF_SELECT items over SQLite's 2,156 names took
 * 2 s of start-up when every name was offered to every item). */
static void see(tf_pending *p, const tf_tu *tu)
{
    if (p->matched)
        return;
    /* a name without wildcards (p->suggest) is looked for in the TU it names
     * only, resolved once per TU: thousands of TF_SELECT items are each
     * seen against every TU */
    const char *literal = p->suggest ? tf__literal_name_in(p->want, tu) : NULL;
    if (literal || !p->suggest)
        for (uint32_t id = 0; id < tu->nnames; id++) {
            const char *name = tu->names[id].name;
            if (literal ? strcmp(literal, name) == 0 : tf__function_matches(p->want, tu, name)) {
                p->matched |= (tu->names[id].flags & TF_NAME_MONITOR) != 0;
                p->info |= (tu->names[id].flags & INFO_FLAGS) != 0;
            }
        }
    if (p->matched || !p->suggest)
        return;
    for (uint32_t id = 0; id < tu->nnames; id++)
        if (tu->names[id].flags & TF_NAME_MONITOR)
            offer(p, tu, &tu->names[id]);
}

static void observe(const tf_tu *tu)
{
    pthread_mutex_lock(&lock);
    for (tf_pending *p = pendings; p; p = p->next)
        see(p, tu);
    pthread_mutex_unlock(&lock);
}

static int see_loaded(const tf_tu *tu, void *arg)
{
    pthread_mutex_lock(&lock);
    see(arg, tu);
    pthread_mutex_unlock(&lock);
    return 0;
}

tf_pending *tf__pending_function(const char *want)
{
    tf_pending *p = calloc(1, sizeof *p);
    if (!p || !(p->want = strdup(want))) {
        free(p);
        return NULL;
    }
    p->suggest = tf__glob_literal(want);
    p->qualified = strchr(want, '.') != NULL;
    tf_nearest_begin(&p->near, want);
    pthread_mutex_lock(&lock);
    p->next = pendings;
    pendings = p;
    pthread_mutex_unlock(&lock);
    /* The TUs loaded already (one registering meanwhile may be seen twice:
     * harmless), then every later one. */
    tf_tu_foreach(see_loaded, p);
    static int observing;
    if (!__atomic_exchange_n(&observing, 1, __ATOMIC_ACQ_REL))
        tf__registry_observe(observe);
    return p;
}

void tf__pending_free(tf_pending *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&lock);
    tf_pending **link = &pendings;
    while (*link && *link != p)
        link = &(*link)->next;
    if (*link)
        *link = p->next;
    pthread_mutex_unlock(&lock);
    tf_nearest_end(&p->near);
    free(p->want);
    free(p);
}

int tf__pending_matched(tf_pending *p)
{
    pthread_mutex_lock(&lock);
    int matched = p->matched;
    pthread_mutex_unlock(&lock);
    return matched;
}

int tf__pending_info_only(tf_pending *p)
{
    pthread_mutex_lock(&lock);
    int info = p->info && !p->matched;
    pthread_mutex_unlock(&lock);
    return info;
}

void tf__pending_hint(tf_pending *p, char *hint, size_t len)
{
    pthread_mutex_lock(&lock);
    if (p->suggest)
        tf_nearest_say(&p->near, hint, len);
    else if (len)
        hint[0] = 0;
    pthread_mutex_unlock(&lock);
}

void tf__hints_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&lock);
    else
        pthread_mutex_unlock(&lock);
}

/* ---- groups: the registry never forgets one, so no watching ------------- */

static int keep_group(const char *name, void *arg)
{
    tf_names *names = arg;
    if (names->n % 64 == 0) {
        char **v = realloc(names->v, (names->n + 64) * sizeof *v);
        if (!v)
            return 1;
        names->v = v;
    }
    if (!(names->v[names->n] = strdup(name)))
        return 1;
    names->n++;
    return 0;
}

tf_names tf__declared_groups(void)
{
    tf_names names = {NULL, 0, 0};
    tf__group_each_declared(keep_group, &names);
    return names;
}

/* A program may name 100,000 groups nothing declares, among as many that
 * are: past this many comparisons the rest are said without a suggestion
 * (docs/design.md .silent.nearest). */
#define HINT_BUDGET 20000000ul

void tf__names_hint(tf_names *names, const char *want, char *hint, size_t len)
{
    if (len)
        hint[0] = 0;
    if (names->spent + names->n > HINT_BUDGET)
        return;
    names->spent += names->n;
    tf_nearest near;
    tf_nearest_begin(&near, want);
    for (size_t i = 0; i < names->n; i++)
        tf_nearest_offer(&near, names->v[i]);
    tf_nearest_say(&near, hint, len);
    tf_nearest_end(&near);
}

void tf__names_free(tf_names *names)
{
    for (size_t i = 0; i < names->n; i++)
        free(names->v[i]);
    free(names->v);
    *names = (tf_names){NULL, 0, 0};
}

void tf__hint_group(const char *want, char *hint, size_t len)
{
    tf_names names = tf__declared_groups();
    tf__names_hint(&names, want, hint, len);
    tf__names_free(&names);
}
