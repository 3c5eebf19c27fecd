/* intern.c: a hash table of names kept at most half full, so a look-up is
 * a probe or two (intern.h). */
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "intern.h"

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static uint32_t *slot_of(const td_names *t, const char *s)
{
    uint32_t i = hash(s) & (t->nslots - 1);
    while (t->slots[i] && strcmp(t->s[t->slots[i] - 1], s) != 0)
        i = (i + 1) & (t->nslots - 1);
    return &t->slots[i];
}

static int rehash(td_names *t)
{
    uint32_t n = t->nslots ? 2 * t->nslots : 256;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return 0;
    free(t->slots);
    t->slots = slots;
    t->nslots = n;
    for (uint32_t i = 0; i < t->n; i++)
        *slot_of(t, t->s[i]) = i + 1;
    return 1;
}

uint32_t td_names_add(td_names *t, const char *s, int *added)
{
    *added = 0;
    if (2 * (t->n + 1) > t->nslots && !rehash(t))
        return UINT32_MAX;
    uint32_t *slot = slot_of(t, s);
    if (*slot)
        return *slot - 1;
    if (!td_grow(&t->s, &t->cap, t->n, sizeof *t->s, 64) || !(t->s[t->n] = strdup(s)))
        return UINT32_MAX;
    *added = 1;
    *slot = ++t->n;
    return t->n - 1;
}

uint32_t td_names_find(const td_names *t, const char *s)
{
    return t->nslots && *slot_of(t, s) ? *slot_of(t, s) - 1 : UINT32_MAX;
}

void td_names_free(td_names *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slots);
}
