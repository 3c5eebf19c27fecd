/*
 * internal.h: what registry.c and permission.c share, and nobody else.
 */
#ifndef TF_REGISTRY_INTERNAL_H
#define TF_REGISTRY_INTERNAL_H

#include <stdio.h>

#include "export.h"
#include "../runtime/escape.h"

/* Names and paths in messages are escaped (runtime/escape.h, the one
 * escaper of libtf; a leaf without state): a group given to tf_register,
 * a source file's name, a module's path may hold control characters.
 * TF_ESC(x) is x escaped, in a buffer of the enclosing block (TF_ESC_BUF(x)). */
#define TF_ESC_BUF(x) char x##_esc[512]
#define TF_ESC(x) tf__escape_str(x##_esc, sizeof x##_esc, (x) ? (x) : "?")

/* Permission check for the module containing caller; records a denial. */
int tf__permitted(const void *caller, const char *what);

/* The function selection (select.c); the registry calls these under its lock. */
int tf__select_wants(const tf_tu *tu, const char *name);
int tf__select_items(const char *items, enum tf__select_from from, tf__select_bad bad, void *arg);
void tf__select_reset(void);
int tf__select_print(FILE *out);
void tf__select_unmatched(void (*fn)(int index, const char *item, void *arg), void *arg);

#endif
