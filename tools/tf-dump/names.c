/* names.c: escaping and nearest names (names.h). */
#include <stdlib.h>
#include <string.h>

#include <tf/monitors.h>

#include "names.h"

void td_put_text(FILE *out, const char *s)
{
    static const char named[] = "\nn\tt\rr\\\\";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *n = strchr(named, *p);
        if (n && (n - named) % 2 == 0)
            fprintf(out, "\\%c", n[1]);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            putc(*p, out);
    }
}

/* Levenshtein distance, one row at a time. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = malloc((lb + 1) * sizeof *row);
    if (!row)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

void td_say_bad_value(const char *option, const char *value, const char *what)
{
    fprintf(stderr, "tf-dump: %s: '", option);
    td_put_text(stderr, value);
    fprintf(stderr, "' is no %s\n", what);
}

/* want's distance to name, or to name's part after its first dot. */
static size_t name_distance(const char *want, const char *name)
{
    size_t d = distance(want, name);
    const char *dot = strchr(name, '.');
    size_t e = dot && dot[1] ? distance(want, dot + 1) : d;
    return e < d ? e : d;
}

void td_put_nearest(FILE *out, const char *want, const char *const *names, size_t n)
{
    enum { K = 3 };
    size_t best[K], dist[K], have = 0;
    for (size_t i = 0; i < n; i++) {
        size_t d = name_distance(want, names[i]), at = have;
        while (at > 0 && (dist[at - 1] > d || (dist[at - 1] == d && strcmp(names[best[at - 1]], names[i]) > 0)))
            at--;
        if (at >= K)
            continue;
        for (size_t j = (have < K ? have : K - 1); j > at; j--) {
            best[j] = best[j - 1];
            dist[j] = dist[j - 1];
        }
        best[at] = i;
        dist[at] = d;
        have += have < K;
    }
    if (!have) {
        fputs(" (there are none)", out);
        return;
    }
    size_t close = strlen(want) / 3 > 2 ? strlen(want) / 3 : 2, shown = 1;
    while (shown < have && dist[shown] <= close)
        shown++;
    fputs(" (nearest: ", out);
    for (size_t i = 0; i < shown; i++) {
        fputs(i ? ", " : "", out);
        td_put_text(out, names[best[i]]);
    }
    fputs(")", out);
}

size_t td_args_text(char *buf, size_t len, const td_event *e)
{
    if (e->args_text)
        return (size_t)snprintf(buf, len, "%s", e->args_text);
    size_t at = 0;
    for (uint32_t i = 0; i < e->nargs; i++) {
        at += (size_t)snprintf(buf + (at < len ? at : len), at < len ? len - at : 0, "%s%s=",
                               i ? ", " : "", e->args[i].name ? e->args[i].name : "?");
        at += tf_value_format(buf + (at < len ? at : len), at < len ? len - at : 0, &e->args[i]);
    }
    if (!e->nargs && len)
        *buf = 0;
    return at;
}

void td_format_time(char *buf, size_t len, int64_t ns)
{
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, len, "%s%llu.%09llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000000000),
             (unsigned long long)(a % 1000000000));
}

void td_format_duration(char *buf, size_t len, int64_t ns)
{
    static const struct {
        uint64_t per;
        const char *unit;
    } scale[] = {{1000, "us"}, {1000000, "ms"}, {1000000000, "s"}};
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    int i = a >= 1000000000 ? 2 : a >= 1000000 ? 1 : 0;
    snprintf(buf, len, "%s%llu.%03llu %s", ns < 0 ? "-" : "", (unsigned long long)(a / scale[i].per),
             (unsigned long long)(a % scale[i].per * 1000 / scale[i].per), scale[i].unit);
}
