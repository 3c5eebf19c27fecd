/*
 * suggest.c: the overhead governor (docs/design.md .perf.governor). From a
 * timing report in JSON (TF_REPORT=x.json), `tf-dump --suggest-rules` writes
 * rules-file `exclude` lines for the functions whose traced cost dominates
 * their own work: self time per call at or below the measured hook overhead
 * (the report's at_overhead_floor) and called often enough that it matters.
 * Each line says the saving to expect: calls x the hook overhead per call.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "dump.h"

typedef struct pick {
    const char *file, *function;
    uint64_t calls;
    double self_ns, hooks_ns;
} pick;

static int by_saving(const void *a, const void *b)
{
    const pick *x = a, *y = b;
    if (x->hooks_ns != y->hooks_ns)
        return x->hooks_ns < y->hooks_ns ? 1 : -1;
    return strcmp(x->function, y->function);
}

/* A rules glob that matches s: a rules line splits at blanks and '#' starts
 * its comment, so those become '?' (as in C++'s "(anonymous namespace)::f"
 * or an overload's "f#2"); glob characters are escaped. */
static void put_glob(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (strchr(" \t#", *s)) {
            fputc('?', out);
            continue;
        }
        if (strchr("*?[]\\", *s))
            fputc('\\', out);
        fputc(*s, out);
    }
}

static int bad(const char *path, const char *what, size_t i)
{
    fprintf(stderr, "tf-dump: %s: timer %zu: %s\n", path, i, what);
    return 1;
}

/* Reads timer i into p; 0: a candidate, -1: not one, 1: malformed. */
static int read_timer(const char *path, json_t *t, size_t i, uint64_t min_calls, pick *p)
{
    json_t *fn = json_object_get(t, "function"), *file = json_object_get(t, "file");
    json_t *kind = json_object_get(t, "kind"), *count = json_object_get(t, "count");
    json_t *self = json_object_get(t, "self_ns"), *hooks = json_object_get(t, "hooks_ns");
    json_t *floor = json_object_get(t, "at_overhead_floor");
    if (!json_is_string(fn) || !json_is_string(file) || !json_is_string(kind))
        return bad(path, "no function, file or kind string", i);
    if (!json_is_integer(count) || json_integer_value(count) < 0 || !json_is_number(self))
        return bad(path, "no count or self_ns number", i);
    if (!json_is_number(hooks) || !json_is_boolean(floor))
        return bad(path, "no hooks_ns or at_overhead_floor (a report of a libtf from before --suggest-rules?)", i);
    if (strcmp(json_string_value(kind), "function") != 0 || !json_is_true(floor) ||
        (uint64_t)json_integer_value(count) < min_calls)
        return -1; /* rules exclude functions, not info pairs */
    if (!*json_string_value(fn) || strpbrk(json_string_value(fn), "\r\n") ||
        !*json_string_value(file) || strpbrk(json_string_value(file), "\r\n"))
        return bad(path, "a function or file name no rules line can hold", i);
    *p = (pick){json_string_value(file), json_string_value(fn),
                (uint64_t)json_integer_value(count), json_number_value(self),
                json_number_value(hooks)};
    return 0;
}

static void write_rules(FILE *out, const char *path, const pick *v, size_t n, double overhead,
                        uint64_t min_calls, double self_total)
{
    double saving = 0;
    for (size_t i = 0; i < n; i++)
        saving += v[i].hooks_ns;
    fprintf(out, "# suggested by tf-dump --suggest-rules from %s\n", path);
    fprintf(out, "# functions with self time per call at or below the measured hook overhead\n"
                 "# (%.1f ns per call) and at least %" PRIu64 " calls; append these lines to the\n"
                 "# rules file that instrumented them.\n",
                 overhead, min_calls);
    fprintf(out, "# expected saving: %.3f ms of hook time in %zu functions (the report's self "
                 "times: %.3f ms)\n",
            saving / 1e6, n, self_total / 1e6);
    for (size_t i = 0; i < n; i++) {
        fputs("exclude ", out);
        put_glob(out, v[i].file);
        fputc(' ', out);
        put_glob(out, v[i].function);
        fprintf(out, "  # saves ~%.3f ms: %" PRIu64 " calls x %.1f ns; self %.1f ns per call\n",
                v[i].hooks_ns / 1e6, v[i].calls, overhead, v[i].self_ns / (double)v[i].calls);
    }
}

static int suggest(const char *path, json_t *doc, FILE *out, uint64_t min_calls)
{
    json_t *timers = json_object_get(doc, "timers"), *format = json_object_get(doc, "format");
    json_t *over = json_object_get(json_object_get(doc, "overhead"), "per_nested_call_ns");
    json_t *total = json_object_get(json_object_get(doc, "summary"), "self_ns_total");
    if (!json_is_string(format) || strcmp(json_string_value(format), "tf-timing-report") != 0 ||
        !json_is_array(timers) || !json_is_number(over)) {
        fprintf(stderr, "tf-dump: %s: not a TF timing report in JSON (TF_REPORT=x.json)\n",
                path);
        return 1;
    }
    if (!(json_number_value(over) > 0)) {
        fprintf(stderr, "tf-dump: %s: the report has no measured hook overhead (an "
                        "injected clock), so nothing to judge the functions by\n",
                path);
        return 1;
    }
    size_t n = 0, cap = json_array_size(timers);
    pick *v = malloc((cap ? cap : 1) * sizeof *v);
    if (!v) {
        fputs("tf-dump: out of memory\n", stderr);
        return 1;
    }
    for (size_t i = 0; i < cap; i++) {
        int rc = read_timer(path, json_array_get(timers, i), i, min_calls, &v[n]);
        if (rc > 0) {
            free(v);
            return 1;
        }
        n += rc == 0;
    }
    qsort(v, n, sizeof *v, by_saving);
    write_rules(out, path, v, n, json_number_value(over), min_calls,
                json_is_number(total) ? json_number_value(total) : 0);
    free(v);
    return 0;
}

int td_suggest_rules(const char *path, FILE *out, uint64_t min_calls)
{
    json_error_t err;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!doc) {
        fprintf(stderr, "tf-dump: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
        return 1;
    }
    int rc = suggest(path, doc, out, min_calls);
    json_decref(doc);
    return rc;
}
