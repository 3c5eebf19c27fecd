/*
 * filter_opts.c: the filter options' values (filter.h). Times and durations
 * are exact integers of nanoseconds: "1.5ms" is 1500000, never a double.
 */
#include <string.h>

#include "filter.h"
#include "names.h"

static const struct unit {
    const char *name;
    int64_t ns;
} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};

/* Digits at *s into *v (at most 18 of them: no overflow); their count. */
static int digits(const char **s, int64_t *v)
{
    int n = 0;
    *v = 0;
    for (; **s >= '0' && **s <= '9'; (*s)++, n++)
        if (n < 18)
            *v = *v * 10 + (**s - '0');
        else
            return -1;
    return n;
}

/* "<int>[.<frac>]" then the rest at *end; frac has at most 9 digits. */
static int number(const char *s, int64_t *whole, int64_t *frac, int *frac_digits, const char **end)
{
    if (digits(&s, whole) <= 0)
        return 0;
    *frac = 0;
    *frac_digits = 0;
    if (*s == '.') {
        s++;
        *frac_digits = digits(&s, frac);
        if (*frac_digits <= 0 || *frac_digits > 9)
            return 0;
    }
    *end = s;
    return 1;
}

int td_parse_duration(const char *s, int64_t *ns)
{
    int64_t whole, frac;
    int nd;
    const char *u;
    if (!number(s, &whole, &frac, &nd, &u))
        return 0;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        if (strcmp(u, units[i].name) != 0)
            continue;
        int64_t scale = 1;
        for (int d = 0; d < nd; d++)
            scale *= 10;
        if (whole > INT64_MAX / units[i].ns)
            return 0;
        *ns = whole * units[i].ns + (frac * units[i].ns + scale / 2) / scale;
        return 1;
    }
    return 0;
}

/* A duration since the first event, or "<s>.<ns>" since the clock's origin
 * (how text lines and --time=abs show times), or 0 (the first event). */
static int parse_when(const char *s, td_when *w)
{
    int64_t whole, frac;
    int nd;
    const char *end;
    w->text = s;
    w->relative = 1;
    if (strcmp(s, "0") == 0) {
        w->ns = 0;
        return 1;
    }
    if (td_parse_duration(s, &w->ns))
        return 1;
    if (!number(s, &whole, &frac, &nd, &end) || *end || !nd || whole > INT64_MAX / 1000000000 - 1)
        return 0;
    for (int d = nd; d < 9; d++)
        frac *= 10;
    w->ns = whole * 1000000000 + frac;
    w->relative = 0;
    return 1;
}

static int say_bad(const char *option, const char *value, const char *what)
{
    td_say_bad_value(option, value, what);
    return 2;
}

static int append(const char ***items, uint32_t *n, uint32_t *cap, const char *v)
{
    if (!td_grow(items, cap, *n, sizeof **items, 4)) {
        fputs("tf-dump: out of memory\n", stderr);
        return 2;
    }
    (*items)[(*n)++] = v;
    return 1;
}

static const char when_help[] =
    "time: give one since the first event with its unit (250us, 1.5ms, 2s) or in seconds since "
    "the clock's origin as tf-dump prints times (1700000000.000001500)";

int td_filter_option(td_filter_opts *o, const char *a)
{
    if (strncmp(a, "--thread=", 9) == 0)
        return a[9] ? append(&o->threads, &o->nthreads, &o->cthreads, a + 9)
                    : say_bad("--thread", "", "thread id or name");
    if (strncmp(a, "--function=", 11) == 0)
        return a[11] ? append(&o->functions, &o->nfunctions, &o->cfunctions, a + 11)
                     : say_bad("--function", "", "function name or glob");
    if (strncmp(a, "--from=", 7) == 0)
        return parse_when(a + 7, &o->from) ? 1 : say_bad("--from", a + 7, when_help);
    if (strncmp(a, "--to=", 5) == 0)
        return parse_when(a + 5, &o->to) ? 1 : say_bad("--to", a + 5, when_help);
    if (strncmp(a, "--min-duration=", 15) == 0)
        return td_parse_duration(a + 15, &o->min_dur) && o->min_dur > 0
                   ? 1 : say_bad("--min-duration", a + 15,
                                 "duration: give one above 0 with its unit (40ns, 250us, 1.5ms, 2s)");
    if (strncmp(a, "--depth=", 8) == 0) {
        const char *s = a + 8;
        int64_t v;
        int n = digits(&s, &v);
        if (n <= 0 || *s || v <= 0 || v > UINT32_MAX)
            return say_bad("--depth", a + 8, "depth: give a count of levels from 1");
        o->depth = (uint32_t)v;
        return 1;
    }
    return 0;
}

int td_filter_any(const td_filter_opts *o)
{
    return o->nthreads || o->nfunctions || o->from.text || o->to.text || o->depth || o->min_dur;
}

int td_filter_check(const td_filter_opts *o)
{
    if (o->from.text && o->to.text && o->from.relative == o->to.relative && o->from.ns > o->to.ns) {
        fputs("tf-dump: --from=", stderr);
        td_put_text(stderr, o->from.text);
        fputs(" is after --to=", stderr);
        td_put_text(stderr, o->to.text);
        fputs("\n", stderr);
        return 2;
    }
    return 0;
}

char *td_filter_threads_label(const td_filter_opts *o)
{
    size_t len = 16;
    for (uint32_t i = 0; i < o->nthreads; i++)
        len += strlen(o->threads[i]) + 2;
    char *s = malloc(len);
    if (s)
        strcpy(s, o->nthreads ? "thread " : "all threads");
    for (uint32_t i = 0; s && i < o->nthreads; i++)
        strcat(strcat(s, i ? ", " : ""), o->threads[i]);
    return s;
}

void td_filter_opts_free(td_filter_opts *o)
{
    free(o->threads);
    free(o->functions);
}
