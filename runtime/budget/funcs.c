/*
 * funcs.c: global indices of the functions the meter sees, and what the
 * budget decided for each (.budget.count).
 *
 * A TU gets a contiguous range of indices, one per name, when its first
 * meter is made; the range stays its own while any of its meters lives
 * (the registry keeps a TU's monitors until it is unloaded). Then the range
 * is free for the next TU of the same size, first for the same code: a TU
 * of the same file and names (a library loaded again) takes its range back
 * with what was decided for it, so dlopen and dlclose in a loop neither grow
 * the ranges nor pay again for what was switched off (.budget.reload). Any
 * other TU's first window takes the sums left in the counters as its zero.
 */
#include <stdlib.h>
#include <string.h>

#include "budget.h"

pthread_mutex_t bg_lock = PTHREAD_MUTEX_INITIALIZER;
bg_fn *bg_fns;
uint32_t bg_nfns;
bg_tu *bg_tus;
uint64_t bg_unmeasured;
static uint32_t capfns;

static int slotted(const tf_tu *tu)
{
    return tu->abi >= 3 && tu->size >= offsetof(tf_tu, slots) + sizeof tu->slots && tu->slots;
}

static int grow_fns(uint32_t need)
{
    if (need <= capfns)
        return 0;
    uint32_t cap = capfns ? capfns : 1024;
    while (cap < need)
        cap *= 2;
    bg_fn *v = realloc(bg_fns, cap * sizeof *v);
    if (!v)
        return -1;
    memset(v + capfns, 0, (cap - capfns) * sizeof *v);
    bg_fns = v;
    capfns = cap;
    return 0;
}

/* The TU's names, hashed (FNV-1a): its code, as far as the budget cares. */
static uint64_t names_hash(const tf_tu *tu)
{
    uint64_t h = 14695981039346656037ull;
    for (uint32_t i = 0; i < tu->nnames; i++)
        for (const unsigned char *c = (const unsigned char *)tu->names[i].name;; c++) {
            h = (h ^ *c) * 1099511628211ull;
            if (!*c)
                break;
        }
    return h;
}

static int same_code(const bg_tu *t, const tf_tu *tu, uint64_t hash)
{
    return t->file && strcmp(t->file, tu->file) == 0 && t->hash == hash;
}

/* Lock held: a range for tu, a free one of its size if there is one: the
 * one of the same code first. */
static bg_tu *new_range(const tf_tu *tu, uint64_t hash)
{
    bg_tu *any = NULL;
    for (bg_tu *t = bg_tus; t; t = t->next)
        if (t->refs == 0 && t->n == tu->nnames) {
            if (same_code(t, tu, hash))
                return t;
            any = any ? any : t;
        }
    if (any)
        return any;
    bg_tu *t = calloc(1, sizeof *t);
    if (!t || grow_fns(bg_nfns + tu->nnames) != 0) {
        free(t);
        return NULL;
    }
    t->first = bg_nfns;
    t->n = tu->nnames;
    bg_nfns += tu->nnames;
    if (t->first + t->n > BG_MAX_FUNCS)
        bg_unmeasured += t->first >= BG_MAX_FUNCS ? t->n : t->first + t->n - BG_MAX_FUNCS;
    t->next = bg_tus;
    bg_tus = t;
    return t;
}

/* What was deselected in a TU unloaded since is still named at exit: kept
 * aside when its range is taken by another TU. */
bg_gone *bg_gone_list;

static void keep_gone(const bg_fn *f, uint32_t index)
{
    bg_gone *g = calloc(1, sizeof *g);
    if (!g) {
        free(f->name);
        return;
    }
    g->fn = *f;
    g->fn.tu = NULL;
    g->traced = bg_seen_calls(index) - f->zero.calls;
    g->next = bg_gone_list;
    bg_gone_list = g;
}

/* Lock held: the same code again. Its counters go on counting its
 * functions; what was switched off is switched off again at the next
 * window, what was on trial is on. */
static void take_back(bg_tu *t)
{
    bg_trials_due();
    for (uint32_t id = 0; id < t->n; id++) {
        bg_fn *f = &bg_fns[t->first + id];
        if (f->tu && f->state == BG_SHED)
            bg_note_change(f);
        else if (f->tu)
            f->state = BG_ON;
    }
}

bg_tu *bg_tu_get(const tf_tu *tu)
{
    uint64_t hash = names_hash(tu);
    pthread_mutex_lock(&bg_lock);
    bg_tu *t = bg_tus;
    while (t && !(t->refs > 0 && t->tu == tu))
        t = t->next;
    if (!t && (t = new_range(tu, hash)) && same_code(t, tu, hash)) {
        t->tu = tu;
        take_back(t);
    } else if (t && t->refs == 0) {
        int reused = t->tu != NULL;
        char *file = strdup(tu->file);
        free(t->file);
        t->file = file; /* NULL if out of memory: then never the same code */
        t->hash = hash;
        t->tu = tu;
        t->internal = 0;
        t->slotted = slotted(tu);
        t->light = (tu->flags & TF_TU_LIGHT_CLONES) != 0;
        for (uint32_t id = 0; id < t->n; id++) {
            bg_fn *f = &bg_fns[t->first + id];
            if (f->ever)
                keep_gone(f, t->first + id);
            else
                free(f->name);
            memset(f, 0, sizeof *f);
            f->tu = tu->names[id].flags & TF_NAME_MONITOR ? t : NULL;
            f->id = id;
            f->fresh = reused;
        }
        bg_fresh_any |= reused;
    }
    if (t)
        t->refs++;
    pthread_mutex_unlock(&bg_lock);
    return t;
}

/* At 0 the TU is being unloaded (or the process ends): its functions keep
 * what was decided, named by the copies taken when they were deselected,
 * until another TU takes the range. */
void bg_tu_put(bg_tu *t)
{
    pthread_mutex_lock(&bg_lock);
    t->refs--;
    pthread_mutex_unlock(&bg_lock);
}

void bg_fn_name(const bg_fn *fn, char *out, size_t len)
{
    if (fn->name)
        snprintf(out, len, "%s", fn->name);
    else if (fn->tu && fn->tu->refs > 0)
        snprintf(out, len, "%s.%s", fn->tu->tu->name, fn->tu->tu->names[fn->id].name);
    else
        snprintf(out, len, "?");
}
