/*
 * report_tus.h: the translation units a recording names, rebuilt as the
 * tf_tu descriptors the timing monitor is made for (report_tus.c).
 */
#ifndef TF_DUMP_REPORT_TUS_H
#define TF_DUMP_REPORT_TUS_H

#include <tf/types.h>

typedef struct func {
    char *full;            /* "<tu>.<name>" as recorded */
    uint32_t tu, id;       /* set by td_tus_build */
    uint32_t flags;        /* TF_NAME_TP_ENTER/EXIT for an info pair's name; 0: monitored */
} func;

typedef struct td_tus {
    tf_tu *tus;
    uint32_t n;
    char **strings;        /* every name and TU name, for freeing */
    uint32_t nstrings;
    tf_monitor **holders;
} td_tus;

int td_tus_build(td_tus *t, func *funcs, uint32_t n);
/* One monitor of f per TU; NULL when one could not be made. */
tf_monitor **td_tus_monitors(td_tus *t, tf_factory *f);
void td_tus_free(td_tus *t, tf_monitor **monitors);

#endif
