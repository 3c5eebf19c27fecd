/*
 * report.c: what the budget says (.budget.say): each decision into the
 * recording when the process records (tf:budget: runtime/record/events.def, record.c),
 * the state on tf-ctl PID budget, and at exit, once, every function it
 * switched off, most costly first, with the numbers it decided by.
 */
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "../config.h"
#include "../record/record.h"

void bg_record(const bg_fn *fn, const char *action, double rate, double ns_per_call, double share,
               double over, double budget)
{
    if (!rt_pool_now()) /* not recording */
        return;
    char name[512];
    bg_fn_name(fn, name, sizeof name);
    double v[RC_NBUDGET] = {rate, ns_per_call, share * 100, over * 100, budget * 100};
    rt_record_budget(v, name, action);
}

/* "41.2M", "830.5k", "512" */
static void put_rate(char *out, size_t len, double r)
{
    if (r >= 1e6)
        snprintf(out, len, "%.1fM", r / 1e6);
    else if (r >= 1e3)
        snprintf(out, len, "%.1fk", r / 1e3);
    else
        snprintf(out, len, "%.0f", r);
}

/* Lock held: every function ever switched off (also of TUs unloaded since);
 * *n of them. */
static const bg_fn **deselected(size_t *n)
{
    size_t k = 0, cap = 16;
    const bg_fn **v = malloc(cap * sizeof *v);
    bg_gone *g = bg_gone_list;
    for (uint32_t i = 0; v && (i < bg_nfns || g); i++) {
        const bg_fn *f = i < bg_nfns ? &bg_fns[i] : &g->fn;
        if (i >= bg_nfns)
            g = g->next;
        if (!f->ever)
            continue;
        if (k == cap) {
            const bg_fn **w = realloc(v, 2 * cap * sizeof *v);
            if (!w)
                break;
            v = w, cap *= 2;
        }
        v[k++] = f;
    }
    *n = k;
    return v;
}

static int by_share(const void *pa, const void *pb)
{
    const bg_fn *a = *(const bg_fn *const *)pa, *b = *(const bg_fn *const *)pb;
    return (a->share < b->share) - (a->share > b->share);
}

/* "budapp.tiny: 41.2M calls/s, 23.5 ns a call: 96.9% of the program's own
 * time; deselected at 0.01 s" and what happened since. */
static void put_fn(FILE *out, const bg_fn *f)
{
    char name[512], rate[32];
    bg_fn_name(f, name, sizeof name);
    tf__config_escaped(out, name);
    put_rate(rate, sizeof rate, f->rate);
    fprintf(out, ": %s calls/s, %.1f ns a call: %.1f%% of the program's own time; deselected at %.2f s",
            rate, f->ns_per_call, f->share * 100, f->at);
    if (f->strikes > 1)
        fprintf(out, " (%d times)", f->strikes);
    if (f->state == BG_TRIAL)
        fprintf(out, "; on trial");
    else if (f->state == BG_ON && f->back_at >= f->at)
        fprintf(out, "; re-admitted at %.2f s", f->back_at);
}

void bg_show(FILE *out)
{
    bg_totals t;
    bg_get(&t);
    char b[32];
    if (t.budget <= 0) {
        fprintf(out, "budget\toff\n");
        return;
    }
    bg_format(t.budget, b, sizeof b);
    fprintf(out, "budget\t%s\nhooks\t%.1f%% of the program's own time so far (last window %.1f%%)\n", b,
            t.useful_ns > 0 ? t.hooks_ns / t.useful_ns * 100 : 0, t.last_over * 100);
    pthread_mutex_lock(&bg_lock);
    size_t n = 0, off = 0, trial = 0;
    const bg_fn **v = deselected(&n);
    for (size_t i = 0; v && i < n; i++) {
        off += v[i]->state == BG_SHED;
        trial += v[i]->state == BG_TRIAL;
    }
    fprintf(out, "functions\t%u measured, %zu deselected, %zu on trial\n", t.measured, off, trial);
    if (v)
        qsort(v, n, sizeof *v, by_share);
    for (size_t i = 0; v && i < n; i++)
        if (v[i]->state != BG_ON) {
            fprintf(out, "%s\t", v[i]->state == BG_SHED ? "deselected" : "trial");
            put_fn(out, v[i]);
            fputc('\n', out);
        }
    pthread_mutex_unlock(&bg_lock);
    free(v);
}

void bg_say_at_exit(void)
{
    bg_totals t;
    bg_get(&t);
    if (t.budget <= 0 && t.hooks_ns <= 0)
        return; /* never ran, or switched off before it judged anything */
    char b[32];
    bg_format(t.budget > 0 ? t.budget : 0, b, sizeof b);
    /* written in one piece: stderr is unbuffered, and a line per function
     * (hundreds on speedtest1) is many writes otherwise; nor is it
     * interleaved with another thread's output */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        out = stderr;
    pthread_mutex_lock(&bg_lock);
    size_t n = 0;
    const bg_fn **v = deselected(&n);
    if (v)
        qsort(v, n, sizeof *v, by_share);
    fprintf(out, "tf: budget %s: the hooks and the budget's thread took %.1f%% of the program's own time "
                    "(%.3f s of %.3f s CPU; %llu calls traced); ",
            t.budget > 0 ? b : "off", t.useful_ns > 0 ? t.hooks_ns / t.useful_ns * 100 : 0,
            t.hooks_ns / 1e9, (t.hooks_ns + t.useful_ns) / 1e9, (unsigned long long)t.traced);
    if (n)
        fprintf(out, "%zu of %u functions measured were deselected, most costly first:\n", n,
                t.measured);
    else
        fprintf(out, "no function was deselected (%u measured)\n", t.measured);
    for (size_t i = 0; v && i < n; i++) {
        fputs("tf:   ", out);
        put_fn(out, v[i]);
        fputc('\n', out);
    }
    if (bg_unmeasured)
        fprintf(out, "tf: budget: %llu functions were not measured (more than %u functions, or out "
                        "of memory) and could not be deselected\n",
                (unsigned long long)bg_unmeasured, BG_MAX_FUNCS);
    unsigned light = 0;
    for (const bg_tu *u = bg_tus; u; u = u->next)
        light += u->light && !u->internal;
    if (light && t.traced)
        fprintf(out, "tf: budget: %u translation unit%s built with light traced copies "
                        "(-fplugin-arg-tf-clone-opt=light, the default): the calls kept there run "
                        "bodies compiled light (GCC -Og, Clang optsize), a cost the budget cannot "
                        "see; build with -fplugin-arg-tf-clone-opt=full\n",
                light, light == 1 ? " was" : "s were");
    pthread_mutex_unlock(&bg_lock);
    free(v);
    if (out != stderr && fclose(out) == 0 && text)
        fwrite(text, 1, len, stderr);
    free(text);
}
