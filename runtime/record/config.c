/*
 * config.c: the recorder's environment (README "Recording"), read once with
 * secure_getenv. A bad value is said on stderr, naming the variable and the
 * value, and the default applies.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const char *v = secure_getenv("TF_RECORD");
    if (v && *v) {
        if (strlen(v) >= sizeof rt_cfg.dir - 32)
            fprintf(stderr, "tf: TF_RECORD: the path is too long; using tf-record-<pid>\n");
        else
            strcpy(rt_cfg.dir, v);
    }
    v = secure_getenv("TF_RECORD_MODE");
    if (v && *v) {
        if (strcmp(v, "stream") == 0)
            rt_cfg.stream = 1;
        else if (strcmp(v, "ring") != 0)
            fprintf(stderr, "tf: TF_RECORD_MODE: '%s' is neither 'ring' nor 'stream'; using 'ring'\n", v);
    }
    v = secure_getenv("TF_RECORD_SIZE");
    if (v && *v) {
        uint64_t size = parse_size(v);
        if (size >= MIN_SIZE)
            rt_cfg.size = size;
        else
            fprintf(stderr, "tf: TF_RECORD_SIZE: '%s' is not a size from 4K to 1024G "
                            "(a number with an optional K, M or G); using 1M\n", v);
    }
    v = secure_getenv("TF_RECORD_VALUES");
    if (v && *v) {
        if (strcmp(v, "0") == 0)
            rt_cfg.values = 0;
        else if (strcmp(v, "1") != 0)
            fprintf(stderr, "tf: TF_RECORD_VALUES: '%s' is neither 0 nor 1; using 1\n", v);
    }
}
