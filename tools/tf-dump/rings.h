/*
 * rings.h: a recording's ring file read as a trace (rings.c), from the file
 * or from an image of it (a core dump: core.c).
 */
#ifndef TF_DUMP_RINGS_H
#define TF_DUMP_RINGS_H

#include <stddef.h>

#include "native.h"

/* NULL, the reason said on stderr, if it is no ring file this tf-dump reads. */
td_trace *td_rings_open(const char *path);
td_trace *td_rings_read(const char *name, const unsigned char *img, size_t size);
/* The ring file of the process a core dump is of (core.c); executable, if
 * given, is checked against the core's program name. */
td_trace *td_core_open(const char *core, const char *executable);
/* 1 if a file name is a ring file's (.rings-<pid>-<k>). */
int td_rings_name(const char *base);

#endif
