/*
 * internal.h: what registry.c and permission.c share, and nobody else.
 */
#ifndef TF_REGISTRY_INTERNAL_H
#define TF_REGISTRY_INTERNAL_H

#include <stdio.h>

#include "export.h"

/* Permission check for the module containing caller; records a denial. */
int tf__permitted(const void *caller, const char *what);

#endif
