/*
 * config.c: the recorder's variables (README "Recording"), from libtf's one
 * table (runtime/config.c), which checks TF_RECORD_MODE and TF_RECORD_VALUES;
 * the size is checked here. A bad value is said on stderr and the default
 * applies.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config.h"
#include "record.h"

#define MIN_SIZE 4096ull
#define MAX_SIZE (1ull << 40)

/* "64K", "1M", "2G", "4096": bytes, or 0 if malformed or out of range. */
static uint64_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return 0;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end || v > (MAX_SIZE >> shift))
        return 0;
    return (uint64_t)v << shift;
}

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
    v = tf__config_get("TF_RECORD_SIZE");
    uint64_t size = v ? parse_size(v) : 0;
    if (size >= MIN_SIZE)
        rt_cfg.size = size;
    else if (v)
        fprintf(stderr, "tf: TF_RECORD_SIZE: '%s' is not a size from 4K to 1024G "
                        "(a number with an optional K, M or G); using 1M\n", v);
}
