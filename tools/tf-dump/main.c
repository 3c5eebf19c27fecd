/*
 * tf-dump: reads a TF recording (or an LTTng trace with tf:* events) and
 * prints it (DESIGN.md section 9):
 *
 *   tf-dump DIR                        dprint lines, each prefixed [s.nnnnnnnnn]
 *   tf-dump --format=chrome DIR        Chrome trace JSON (ui.perfetto.dev)
 *   tf-dump --format=report DIR        the timing report (-o x.json / x.csv / text)
 *   tf-dump --flamegraph=F.svg DIR     an SVG flame graph (with or without --format)
 *
 * Exit status 0; 1 when the trace is damaged (after printing what precedes
 * the damage) or an output cannot be written; 2 for bad usage.
 */
#include <stdlib.h>
#include <string.h>

#include "dump.h"

static const char usage[] =
    "usage: tf-dump [--format=text|chrome|report] [-o FILE] [--flamegraph=FILE.svg] TRACE_DIR\n";

struct options {
    const char *format, *out, *flame, *trace;
};

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
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return fputs(usage, stdout), 0;
        else if (a[0] == '-' && a[1])
            return fprintf(stderr, "tf-dump: unknown option '%s'\n%s", a, usage), 2;
        else if (o->trace)
            return fprintf(stderr, "tf-dump: one trace at a time ('%s' and '%s')\n%s", o->trace, a, usage), 2;
        else
            o->trace = a;
    }
    if (!o->trace)
        return fputs(usage, stderr), 2;
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
    struct options o = {0};
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
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
    rc = td_read(o.trace, n == 1 ? outs[0] : td_tee_new(outs, n));
    if (out && out != stdout && fclose(out) != 0)
        rc = 1;
    if (flame && flame != stdout && fclose(flame) != 0)
        rc = 1;
    return rc;
}
