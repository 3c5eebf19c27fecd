/*
 * internal.h: what registry.c and permission.c share, and nobody else.
 */
#ifndef TF_REGISTRY_INTERNAL_H
#define TF_REGISTRY_INTERNAL_H

#include <stdio.h>

#include "export.h"

/* Permission check for the module containing caller; records a denial. */
int tf__permitted(const void *caller, const char *what);

/* The function selection (select.c); the registry calls these under its lock. */
int tf__select_wants(const tf_tu *tu, const char *name);
int tf__select_items(const char *items, enum tf__select_from from, tf__select_bad bad, void *arg);
void tf__select_reset(void);
int tf__select_print(FILE *out);
void tf__select_unmatched(void (*fn)(int index, const char *item, void *arg), void *arg);

#endif
