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
    rt_cfg.wait_ns = tf__config_ms(tf__config_get("TF_RECORD_WAIT")) * 1000000u;
}
