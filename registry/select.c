/*
 * select.c: which monitored functions follow their group's monitor
 * (docs/design.md .ctl.select, README "Selecting functions"). The selection is
 * a list of items, each including or excluding the functions a glob matches;
 * the last item matching a function decides, and a function no item matches
 * is selected unless the first item is an inclusion ("only these").
 *
 * The registry owns the list (under its lock) and turns it into each TU's
 * slots; this file parses items and answers "is this function selected".
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct rule {
    int include;
    int hit;    /* matched a monitored function of some TU: it did something */
    int item;   /* its place in TF_SELECT (1-based, bad items counted); 0: from a call */
    int literal; /* tf__glob_literal: looked up in the table below */
    int same;   /* literal: the next rule of the same text, or -1 */
    char *glob;
};

static struct rule *rules;
static int nrules, caprules;

/* Literal rules are looked up by their text, the others matched one by one:
 * a selection of thousands of names (a script's) against every function of
 * every TU is then a lookup or two per function, not thousands of compares.
 * An open-addressed table of the first rule of each text (chained by
 * .same, in order), made when first needed after the rules change, with
 * the list of the other rules beside it. */
static int *table, tablesize; /* -1: empty; NULL: not made */
static int *globs, nglobs;    /* the rules that are not literal, in order */
static int anydotted;         /* some literal has a '.': look up "<tu>.<name>" too */

static void unindex(void)
{
    free(table);
    free(globs);
    table = globs = NULL;
    tablesize = nglobs = anydotted = 0;
}

int tf__glob_literal(const char *glob)
{
    return !strpbrk(glob, "*?[\\");
}

const char *tf__literal_name_in(const char *literal, const tf_tu *tu)
{
    if (!strchr(literal, '.'))
        return literal;
    size_t t = strlen(tu->name);
    return strncmp(literal, tu->name, t) == 0 && literal[t] == '.' ? literal + t + 1 : NULL;
}

/* fnmatch without flags gives '.' and '/' no meaning: a literal is compared
 * as a string, many times faster, for whoever matches a glob against every
 * function of every TU (triggers, hints, TF_OUT's items). */
int tf__function_matches(const char *glob, const tf_tu *tu, const char *name)
{
    if (tf__glob_literal(glob)) {
        const char *want = tf__literal_name_in(glob, tu);
        return want && strcmp(want, name) == 0;
    }
    if (!strchr(glob, '.'))
        return fnmatch(glob, name, 0) == 0;
    size_t t = strlen(tu->name), k = strlen(name);
    char small[512], *full = t + k + 2 <= sizeof small ? small : malloc(t + k + 2);
    if (!full)
        return 0;
    memcpy(full, tu->name, t);
    full[t] = '.';
    memcpy(full + t + 1, name, k + 1);
    int hit = fnmatch(glob, full, 0) == 0;
    if (full != small)
        free(full);
    return hit;
}

/* Why glob is not one fnmatch reads as written, or NULL. fnmatch takes an
 * unclosed '[' or a trailing '\' literally: a user meaning a class would
 * silently match nothing. */
const char *tf__glob_problem(const char *g, size_t len)
{
    if (!len)
        return "an empty glob";
    for (size_t i = 0; i < len; i++) {
        if (g[i] == '\\' && ++i == len)
            return "ends with '\\'";
        if (g[i] == '[') {
            size_t j = i + 1;
            if (j < len && (g[j] == '!' || g[j] == '^'))
                j++;
            if (j < len && g[j] == ']')
                j++;
            while (j < len && g[j] != ']')
                j++;
            if (j == len)
                return "an unclosed '['";
            i = j;
        }
    }
    return NULL;
}

/* The next item of items at *p: its sign and glob (trimmed), or a problem. */
struct item {
    const char *text; /* the item as written, trimmed */
    size_t len;
    int include;
    const char *glob;
    size_t glen;
    const char *problem;
};

static int next_item(const char **p, struct item *it)
{
    const char *s = *p;
    if (!*s)
        return 0;
    size_t n = strcspn(s, ",");
    *p = s[n] ? s + n + 1 : s + n;
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    it->text = s;
    it->len = n;
    it->include = !(n && *s == '-');
    it->glob = n && (*s == '-' || *s == '+') ? s + 1 : s;
    it->glen = n - (size_t)(it->glob - s);
    it->problem = !n ? "an empty item" : tf__glob_problem(it->glob, it->glen);
    return 1;
}

static int add_rule(int include, const char *glob, size_t len, int item)
{
    if (nrules == caprules) {
        int cap = caprules ? 2 * caprules : 8;
        struct rule *v = realloc(rules, (size_t)cap * sizeof *v);
        if (!v)
            return TF_ENOMEM;
        rules = v;
        caprules = cap;
    }
    char *g = strndup(glob, len);
    if (!g)
        return TF_ENOMEM;
    rules[nrules++] = (struct rule){include, 0, item, tf__glob_literal(g), -1, g};
    unindex();
    return TF_OK;
}

int tf__select_items(const char *items, enum tf__select_from from, tf__select_bad bad, void *arg)
{
    struct item it;
    int nbad = 0, index = 0;
    for (const char *p = items; next_item(&p, &it);)
        if (++index, it.problem && ++nbad && bad)
            bad(index, it.text, it.len, it.problem, arg);
    if (index == 0) {
        if (bad)
            bad(0, items, 0, "no item", arg);
        return TF_EINVAL;
    }
    if (nbad && from == TF__SELECT_CALL)
        return TF_EINVAL;
    index = 0;
    for (const char *p = items; next_item(&p, &it);)
        if (++index, !it.problem &&
            add_rule(it.include, it.glob, it.glen, from == TF__SELECT_ENV ? index : 0) != TF_OK)
            return TF_ENOMEM;
    return nbad ? TF_EINVAL : TF_OK;
}

void tf__select_reset(void)
{
    for (int i = 0; i < nrules; i++)
        free(rules[i].glob);
    nrules = 0;
    unindex();
}

/* FNV-1a of "<tu>.<name>", or of name alone without tu. */
static uint32_t hash(const tf_tu *tu, const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *k = tu ? tu->name : ""; *k; k++)
        h = (h ^ (unsigned char)*k) * 16777619u;
    if (tu)
        h = (h ^ (unsigned char)'.') * 16777619u;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 16777619u;
    return h;
}

/* Whether glob is the text "<tu>.<name>" (name without tu). */
static int spells(const char *glob, const tf_tu *tu, const char *name)
{
    if (!tu)
        return strcmp(glob, name) == 0;
    const char *want = strchr(glob, '.') ? tf__literal_name_in(glob, tu) : NULL;
    return want && strcmp(want, name) == 0;
}

/* The table's slot of the text "<tu>.<name>" (name without tu): that of
 * its first rule, or an empty one. */
static int *find(const tf_tu *tu, const char *name)
{
    uint32_t mask = (uint32_t)tablesize - 1;
    for (uint32_t h = hash(tu, name) & mask;; h = (h + 1) & mask)
        if (table[h] < 0 || spells(rules[table[h]].glob, tu, name))
            return &table[h];
}

/* Makes the table; 0 if out of memory (then every rule is matched). */
static int make_index(void)
{
    int nlit = 0;
    for (int i = 0; i < nrules; i++)
        nlit += rules[i].literal;
    int size = 16;
    while (size < 2 * nlit)
        size *= 2;
    table = malloc((size_t)size * sizeof *table);
    globs = malloc((size_t)(nrules - nlit + 1) * sizeof *globs);
    if (!table || !globs) {
        unindex();
        return 0;
    }
    tablesize = size;
    for (int h = 0; h < size; h++)
        table[h] = -1;
    for (int i = 0; i < nrules; i++) {
        rules[i].same = -1;
        if (!rules[i].literal) {
            globs[nglobs++] = i;
            continue;
        }
        anydotted |= strchr(rules[i].glob, '.') != NULL;
        int *at = find(NULL, rules[i].glob);
        while (*at >= 0)
            at = &rules[*at].same; /* the end of its text's chain */
        *at = i;
    }
    return 1;
}

/* The literal rules of the text "<tu>.<name>" (name without tu): each hit;
 * the last of them, or -1. */
static int lookup(const tf_tu *tu, const char *name)
{
    int last = -1;
    for (int r = *find(tu, name); r >= 0; r = rules[r].same) {
        rules[r].hit = 1;
        last = r;
    }
    return last;
}

int tf__select_wants(const tf_tu *tu, const char *name)
{
    int selected = nrules == 0 || !rules[0].include;
    int indexed = table || make_index(), last = -1;
    if (indexed) {
        /* a literal with a '.' is only ever "<tu>.<name>" (tf__function_matches) */
        last = strchr(name, '.') ? -1 : lookup(NULL, name);
        int r = anydotted ? lookup(tu, name) : -1;
        last = r > last ? r : last;
    }
    /* the last rule that matches decides */
    for (int k = 0; k < (indexed ? nglobs : nrules); k++) {
        int i = indexed ? globs[k] : k;
        if (tf__function_matches(rules[i].glob, tu, name)) {
            rules[i].hit = 1;
            last = i > last ? i : last;
        }
    }
    return last >= 0 ? rules[last].include : selected;
}

void tf__select_unmatched(void (*fn)(int index, const char *item, void *arg), void *arg)
{
    char item[4096];
    for (int i = 0; i < nrules; i++)
        if (!rules[i].hit && rules[i].item) {
            snprintf(item, sizeof item, "%c%s", rules[i].include ? '+' : '-', rules[i].glob);
            fn(rules[i].item, item, arg);
        }
}

int tf__select_print(FILE *out)
{
    for (int i = 0; i < nrules; i++)
        fprintf(out, "%s%c%s", i ? "," : "", rules[i].include ? '+' : '-', rules[i].glob);
    return nrules;
}
