/*
 * tf-dump: reads a TF recording (or an LTTng trace with tf:* events) and
 * prints it (docs/design.md .rec.reader):
 *
 *   tf-dump DIR                        dprint lines, each prefixed [s.nnnnnnnnn]
 *   tf-dump --format=chrome DIR        Chrome trace JSON (ui.perfetto.dev)
 *   tf-dump --format=report DIR        the timing report (-o x.json / x.csv / text)
 *   tf-dump --flamegraph=F.svg DIR     an SVG flame graph (with or without --format)
 *   tf-dump --suggest-rules [--min-calls=N] REPORT.json
 *                                      rules-file exclude lines for hot, tiny functions
 *   tf-dump --core CORE [EXECUTABLE]   the rings of a process out of its core dump
 *   tf-dump --reader=tf|babeltrace2 DIR  TF's traces read only by tf-dump's own reader, or
 *                                      only by babeltrace2 (the tests' oracle)
 *
 * Exit status 0; 1 when the trace is damaged (after reading past the damage)
 * or an output cannot be written; 2 for bad usage.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump.h"

static const char usage[] =
    "usage: tf-dump [--format=text|chrome|report] [-o FILE] [--flamegraph=FILE.svg]\n"
    "               [--reader=tf|babeltrace2] TRACE_DIR|RING_FILE\n"
    "       tf-dump --suggest-rules [--min-calls=N] [-o FILE] TIMING_REPORT.json\n"
    "       tf-dump [--format=...] --core CORE [EXECUTABLE]\n";

struct options {
    const char *format, *out, *flame, *trace;
    int suggest;
    uint64_t min_calls;
    td_read_options read;
};

static int min_calls(const char *s, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    *out = v;
    return !*end && errno == 0;
}

static int parse(int argc, char **argv, struct options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--format=", 9) == 0)
            o->format = a + 9;
        else if (strncmp(a, "--flamegraph=", 13) == 0 && a[13])
            o->flame = a + 13;
        else if (strcmp(a, "-o") == 0 && i + 1 < argc)
            o->out = argv[++i];
        else if (strncmp(a, "--output=", 9) == 0 && a[9])
            o->out = a + 9;
        else if (strcmp(a, "--suggest-rules") == 0)
            o->suggest = 1;
        else if (strcmp(a, "--core") == 0 && i + 1 < argc)
            o->read.core = argv[++i];
        else if (strcmp(a, "--core") == 0)
            return fprintf(stderr, "tf-dump: --core wants a core file (and the executable)\n%s", usage), 2;
        else if (strcmp(a, "--reader=babeltrace2") == 0)
            o->read.reader = TD_READER_BABELTRACE2;
        else if (strcmp(a, "--reader=tf") == 0)
            o->read.reader = TD_READER_TF;
        else if (strncmp(a, "--min-calls=", 12) == 0 && !min_calls(a + 12, &o->min_calls))
            return fprintf(stderr, "tf-dump: --min-calls wants a count, not '%s'\n", a + 12), 2;
        else if (strncmp(a, "--min-calls=", 12) == 0)
            continue;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return fputs(usage, stdout), 0;
        else if (a[0] == '-' && a[1])
            return fprintf(stderr, "tf-dump: unknown option '%s'\n%s", a, usage), 2;
        else if (o->read.core && !o->read.executable && !o->trace)
            o->read.executable = a; /* --core CORE EXECUTABLE */
        else if (o->trace || o->read.core)
            return fprintf(stderr, "tf-dump: one trace at a time ('%s' and '%s')\n%s",
                           o->trace ? o->trace : o->read.core, a, usage), 2;
        else
            o->trace = a;
    }
    if (o->read.core)
        o->trace = o->read.core;
    if (!o->trace)
        return fputs(usage, stderr), 2;
    if (o->suggest && (o->format || o->flame))
        return fprintf(stderr, "tf-dump: --suggest-rules reads a timing report; no --format or "
                               "--flamegraph with it\n%s", usage), 2;
    if (o->format && strcmp(o->format, "text") != 0 && strcmp(o->format, "chrome") != 0 &&
        strcmp(o->format, "report") != 0)
        return fprintf(stderr, "tf-dump: unknown format '%s' (known: text, chrome, report)\n", o->format), 2;
    return -1;
}

static FILE *open_out(const char *path)
{
    if (!path || strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "tf-dump: cannot write %s: %m\n", path);
    return f;
}

static int suggest_rules(const struct options *o)
{
    struct stat st;
    if (stat(o->trace, &st) == 0 && S_ISDIR(st.st_mode))
        return fprintf(stderr, "tf-dump: %s is a recording, whose times include the recorder's "
                               "cost, not the timing hooks'; run the program with "
                               "TF_MONITORS=...=timing TF_REPORT=r.json and give r.json\n",
                       o->trace), 1;
    FILE *out = open_out(o->out);
    if (!out)
        return 1;
    int rc = td_suggest_rules(o->trace, out, o->min_calls);
    if (out != stdout && fclose(out) != 0)
        rc = 1;
    return rc;
}

static td_output *main_output(const struct options *o, FILE *out)
{
    if (o->format && strcmp(o->format, "chrome") == 0)
        return td_chrome_new(out);
    if (o->format && strcmp(o->format, "report") == 0)
        return td_report_new(out, o->out);
    return td_text_new(out);
}

int main(int argc, char **argv)
{
    struct options o = {.min_calls = 1000};
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.suggest)
        return suggest_rules(&o);
    td_output *outs[2];
    int n = 0;
    FILE *out = NULL, *flame = NULL;
    if ((o.format || !o.flame) && (out = open_out(o.out)))
        outs[n++] = main_output(&o, out);
    if (o.flame && (flame = open_out(o.flame)))
        outs[n++] = td_flame_new(flame);
    if ((o.format || !o.flame) != !!out || (o.flame && !flame))
        return 1;
    for (int i = 0; i < n; i++)
        if (!outs[i])
            return fputs("tf-dump: out of memory\n", stderr), 1;
    rc = td_read_with(o.trace, n == 1 ? outs[0] : td_tee_new(outs, n), &o.read);
    if (out && out != stdout && fclose(out) != 0)
        rc = 1;
    if (flame && flame != stdout && fclose(flame) != 0)
        rc = 1;
    return rc;
}
