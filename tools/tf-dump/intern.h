/* intern.h: names stored once, numbered in order of first use (intern.c):
 * the functions of a recording, seen millions of times. */
#ifndef TF_DUMP_INTERN_H
#define TF_DUMP_INTERN_H

#include <stdint.h>

typedef struct td_names {
    char **s;              /* by number */
    uint32_t n, cap;
    uint32_t *slots, nslots; /* open addressing: number + 1, 0 free */
} td_names;

/* The number of s, added (and *added set) if new; UINT32_MAX when out of
 * memory. */
uint32_t td_names_add(td_names *t, const char *s, int *added);
/* The number of s, or UINT32_MAX if it is not there. */
uint32_t td_names_find(const td_names *t, const char *s);
void td_names_free(td_names *t);

#endif
