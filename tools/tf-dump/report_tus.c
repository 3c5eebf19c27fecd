/* report_tus.c: TU descriptors from recorded names (report_tus.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_tus.h"

static func *sorting; /* qsort has no context argument */

static int by_full(const void *a, const void *b)
{
    return strcmp(sorting[*(const uint32_t *)a].full, sorting[*(const uint32_t *)b].full);
}

static char *keep(td_tus *t, char *s)
{
    if (s)
        t->strings[t->nstrings++] = s;
    return s;
}

static size_t tu_len(const char *full)
{
    const char *dot = strchr(full, '.');
    return dot ? (size_t)(dot - full) : 0;
}

static int same_tu(const char *a, const char *b)
{
    return tu_len(a) == tu_len(b) && strncmp(a, b, tu_len(a)) == 0;
}

/* Sorted by full name, a TU's names are contiguous and in strcmp order. */
static int fill(td_tus *t, func *funcs, const uint32_t *order, uint32_t n, tf_name *names,
                tf_tu_group *groups)
{
    for (uint32_t i = 0; i < n; i++) {
        func *f = &funcs[order[i]];
        if (i == 0 || !same_tu(funcs[order[i - 1]].full, f->full)) {
            size_t len = tu_len(f->full);
            char *tu = keep(t, len ? strndup(f->full, len) : strdup("?"));
            if (!tu)
                return -1;
            groups[t->n] = (tf_tu_group){tu, &t->holders[t->n]};
            t->tus[t->n] = (tf_tu){TF_TU_ABI, sizeof(tf_tu), tu, tu, 0, 1, 0, 0, &names[i],
                                   &groups[t->n], NULL, NULL, NULL};
            t->n++;
        }
        tf_tu *tu = &t->tus[t->n - 1];
        size_t skip = tu_len(f->full) ? tu_len(f->full) + 1 : 0;
        /* An info pair's name is a timing point of no group of its own: the
         * timing monitor gives it its caller's. */
        names[i] = (tf_name){f->full + skip, f->flags ? f->flags : TF_NAME_MONITOR, f->flags ? -1 : 0,
                             tu->file, 0, 0};
        f->tu = t->n - 1;
        f->id = tu->nnames++;
    }
    return 0;
}

int td_tus_build(td_tus *t, func *funcs, uint32_t n)
{
    memset(t, 0, sizeof *t);
    uint32_t *order = malloc((n + 1) * sizeof *order);
    tf_name *names = malloc((n + 1) * sizeof *names);
    tf_tu_group *groups = malloc((n + 1) * sizeof *groups);
    t->tus = malloc((n + 1) * sizeof *t->tus);
    t->holders = calloc(n + 1, sizeof *t->holders);
    t->strings = malloc((n + 2) * sizeof *t->strings);
    int rc = order && names && groups && t->tus && t->holders && t->strings ? 0 : -1;
    if (rc == 0) {
        t->strings[t->nstrings++] = (char *)names;
        t->strings[t->nstrings++] = (char *)groups;
        for (uint32_t i = 0; i < n; i++)
            order[i] = i;
        sorting = funcs;
        qsort(order, n, sizeof *order, by_full);
        rc = fill(t, funcs, order, n, names, groups);
    } else {
        free(names);
        free(groups);
    }
    free(order);
    return rc;
}

tf_monitor **td_tus_monitors(td_tus *t, tf_factory *f)
{
    tf_monitor **m = calloc(t->n + 1, sizeof *m);
    for (uint32_t i = 0; m && i < t->n; i++)
        if (!(m[i] = f->create(f, &t->tus[i]))) {
            td_tus_free(t, m);
            return NULL;
        }
    if (!m)
        fputs("tf-dump: out of memory\n", stderr);
    return m;
}

void td_tus_free(td_tus *t, tf_monitor **monitors)
{
    for (uint32_t i = 0; monitors && i < t->n; i++)
        if (monitors[i])
            monitors[i]->ops->destroy(monitors[i]);
    free(monitors);
    for (uint32_t i = 0; t->strings && i < t->nstrings; i++)
        free(t->strings[i]);
    free(t->strings);
    free(t->tus);
    free(t->holders);
    memset(t, 0, sizeof *t);
}
