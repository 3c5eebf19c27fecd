/*
 * config.c: the recorder's variables (README "Recording"), from libtf's one
 * table (runtime/config.c), which checks them: a bad value is said on stderr
 * and the default applies.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config.h"
#include "record.h"

void rt_configure(void)
{
    const char *v = tf__config_get("TF_RECORD");
    if (v && *v) {
        if (strlen(v) >= sizeof rt_cfg.dir - 32)
            fprintf(stderr, "tf: TF_RECORD: the path is too long; using tf-record-<pid>\n");
        else
            strcpy(rt_cfg.dir, v);
    }
    v = tf__config_get("TF_RECORD_MODE");
    rt_cfg.stream = v && strcmp(v, "stream") == 0;
    v = tf__config_get("TF_RECORD_VALUES");
    rt_cfg.values = !(v && strcmp(v, "0") == 0);
    rt_cfg.size = tf__config_size(tf__config_get("TF_RECORD_SIZE"));
    /* The budget: 64 threads' full rings unless set (docs/design.md .rec.budget). */
    v = tf__config_get("TF_RECORD_TOTAL");
    rt_cfg.total = v ? tf__config_size(v) : 64 * rt_cfg.size;
    if (rt_cfg.total < rt_cfg.size)
        fprintf(stderr, "tf: TF_RECORD_TOTAL (%llu bytes) is less than TF_RECORD_SIZE (%llu): a "
                "thread keeps at most %llu bytes\n", (unsigned long long)rt_cfg.total,
                (unsigned long long)rt_cfg.size, (unsigned long long)rt_cfg.total);
    rt_cfg.wait_ns = tf__config_ms(tf__config_get("TF_RECORD_WAIT")) * 1000000u;
}
