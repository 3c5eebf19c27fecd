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
 *   tf-dump --format=replay DIR        uftrace-replay lines with durations (out_replay.c)
 *   tf-dump --format=sqlite -o F.db DIR...  a SQLite database (out_sqlite.c)
 *   tf-dump --sql QUERY | --ask QUESTION DIR...|F.db   a query's answer (query.c, ask.c)
 *   tf-dump --diff A B                 per function, A against B (diff.c)
 *
 * The filters (filter.h) apply to every output: --thread, --function,
 * --from/--to, --depth, --min-duration.
 *
 * Outputs (-o, --flamegraph) are created as TF creates every file
 * (runtime/files.c); --force replaces a file tf-dump did not write.
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
#include <unistd.h>

#include "dump.h"
#include "filter.h"
#include "names.h"
#include "query.h"
#include "files.h"
#include "nearest.h"

static const char usage[] =
    "usage: tf-dump [--format=text|chrome|report|replay|sqlite] [-o FILE] [--flamegraph=FILE.svg]\n"
    "               [--time=abs] [FILTERS] TRACE_DIR|RING_FILE...\n"
    "       tf-dump --sql QUERY [--format=table|csv|json] [FILTERS] TRACE_DIR...|FILE.db\n"
    "       tf-dump --ask QUESTION [--explain] [--format=table|csv|json] [FILTERS] TRACE_DIR...|FILE.db\n"
    "       tf-dump --diff [--format=table|csv|json] A B  (recordings or TF_REPORT=x.json reports)\n"
    "       tf-dump --suggest-rules [--min-calls=N] [-o FILE] TIMING_REPORT.json\n"
    "       tf-dump [--format=...] [FILTERS] --core CORE [EXECUTABLE]\n"
    "       --reader=tf|babeltrace2: TF's traces read only by tf-dump's own reader, or only by babeltrace2\n"
    "FILTERS: --thread=TID|NAME --function=GLOB --from=T --to=T --depth=N --min-duration=D\n"
    "QUESTION: 'callers F', 'within F G', 'repeats F G', 'slowest F [N]', 'where ARG=VALUE',\n"
    "          'histogram F'\n"
    "An existing FILE is replaced only if tf-dump wrote it, unless --force is given.\n";

struct options {
    const char *format, *out, *flame, *trace;
    int suggest, force;
    uint64_t min_calls;
    const char **traces;   /* every TRACE_DIR given (trace is the first) */
    int ntraces, abs_time, diff;
    td_filter_opts filter;
    td_query_opts query;
    td_read_options read;
};

/* "did you mean ...?" for an option or format that is none of names. */
static const char *hint(const char *word, const char *const *names, char *out, size_t len)
{
    tf_nearest near;
    tf_nearest_begin(&near, word);
    for (; *names; names++)
        tf_nearest_offer(&near, *names);
    size_t n = tf_nearest_say(&near, out, len);
    tf_nearest_end(&near);
    if (n && n + 2 < len) { /* "; did you mean ...?" */
        memmove(out + 2, out, n + 1);
        memcpy(out, "; ", 2);
    }
    return out;
}

/* An unknown option, with the nearest one; an option that wants "=VALUE"
 * given without it says so. */
static int unknown_option(const char *a)
{
    static const char *const options[] = {
        "--format", "--flamegraph", "--output", "--suggest-rules", "--min-calls", "--help",
        "--force", "--diff", "--time", "--sql", "--ask", "--explain", "--thread", "--function",
        "--from", "--to", "--depth", "--min-duration", "--core", "--reader", NULL};
    static const char *const valued[] = {"--format", "--flamegraph", "--output", "--min-calls",
                                         "--time", NULL};
    if (strcmp(a, "-o") == 0) {
        fprintf(stderr, "tf-dump: -o needs a file after it\n%s", usage);
        return 2;
    }
    for (const char *const *v = valued; *v; v++)
        if (strcmp(a, *v) == 0) {
            fprintf(stderr, "tf-dump: %s needs a value: %s=...\n%s", a, a, usage);
            return 2;
        }
    char name[64], more[128];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
    fprintf(stderr, "tf-dump: unknown option '%s'%s\n%s", a, hint(name, options, more, sizeof more),
            usage);
    return 2;
}

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
    o->traces = calloc((size_t)argc, sizeof *o->traces);
    if (!o->traces) {
        fputs("tf-dump: out of memory\n", stderr);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int taken = td_filter_option(&o->filter, a);
        if (taken == 2)
            return 2;
        if (taken)
            continue;
        if (td_query_option(&o->query, argc, argv, &i, &taken) != 0)
            return 2;
        if (taken)
            continue;
        if (strcmp(a, "--diff") == 0)
            o->diff = 1;
        else if (strcmp(a, "--time=abs") == 0 || strcmp(a, "--time=rel") == 0)
            o->abs_time = a[7] == 'a';
        else if (strncmp(a, "--time=", 7) == 0) {
            td_say_bad_value("--time", a + 7, "way to show times: give abs or rel");
            return 2;
        } else if (strncmp(a, "--format=", 9) == 0)
            o->format = a + 9;
        else if (strncmp(a, "--flamegraph=", 13) == 0 && a[13])
            o->flame = a + 13;
        else if (strcmp(a, "-o") == 0 && i + 1 < argc)
            o->out = argv[++i];
        else if (strncmp(a, "--output=", 9) == 0 && a[9])
            o->out = a + 9;
        else if (strcmp(a, "--force") == 0)
            o->force = 1;
        else if (strcmp(a, "--suggest-rules") == 0)
            o->suggest = 1;
        else if (strcmp(a, "--core") == 0 && i + 1 < argc)
            o->read.core = argv[++i];
        else if (strcmp(a, "--core") == 0) {
            fprintf(stderr, "tf-dump: --core wants a core file (and the executable)\n%s", usage);
            return 2;
        } else if (strcmp(a, "--reader=babeltrace2") == 0)
            o->read.reader = TD_READER_BABELTRACE2;
        else if (strcmp(a, "--reader=tf") == 0)
            o->read.reader = TD_READER_TF;
        else if (strncmp(a, "--min-calls=", 12) == 0 && !min_calls(a + 12, &o->min_calls)) {
            fprintf(stderr, "tf-dump: --min-calls wants a count, not '%s'\n", a + 12);
            return 2;
        } else if (strncmp(a, "--min-calls=", 12) == 0)
            continue;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (a[0] == '-' && a[1])
            return unknown_option(a);
        else if (o->read.core && !o->read.executable && !o->trace)
            o->read.executable = a; /* --core CORE EXECUTABLE */
        else if (o->read.core) {
            fprintf(stderr, "tf-dump: --core reads one process ('%s' and '%s')\n%s",
                    o->read.core, a, usage);
            return 2;
        } else if (o->trace && o->suggest) {
            fprintf(stderr, "tf-dump: one report at a time ('%s' and '%s')\n%s", o->trace, a, usage);
            return 2;
        } else
            o->trace = o->traces[o->ntraces++] = a;
    }
    if (o->read.core)
        o->trace = o->traces[o->ntraces++] = o->read.core;
    if (!o->trace) {
        fputs(usage, stderr);
        return 2;
    }
    if (td_filter_check(&o->filter))
        return 2;
    if (o->diff || o->query.sql || o->query.ask)
        return -1; /* their own formats: checked where they run */
    if (o->suggest && (o->format || o->flame)) {
        fprintf(stderr, "tf-dump: --suggest-rules reads a timing report; no --format or "
                        "--flamegraph with it\n%s", usage);
        return 2;
    }
    static const char *const formats[] = {"text", "chrome", "report", "replay", "sqlite", NULL};
    char more[128];
    if (o->format && strcmp(o->format, "text") != 0 && strcmp(o->format, "chrome") != 0 &&
        strcmp(o->format, "report") != 0 && strcmp(o->format, "replay") != 0 &&
        strcmp(o->format, "sqlite") != 0) {
        fprintf(stderr, "tf-dump: unknown format '%s' (known: text, chrome, report, replay, "
                        "sqlite)%s\n", o->format, hint(o->format, formats, more, sizeof more));
        return 2;
    }
    if (o->format && strcmp(o->format, "sqlite") == 0 && (!o->out || strcmp(o->out, "-") == 0)) {
        fputs("tf-dump: --format=sqlite writes a database file: name it with -o FILE.db\n",
              stderr);
        return 2;
    }
    return -1;
}

/* As TF writes every file (runtime/files.c): no symbolic link followed,
 * a new file or one tf-dump wrote before (--force: any of the user's). */
static FILE *open_out(const char *path, int force)
{
    if (!path || strcmp(path, "-") == 0)
        return stdout;
    char why[TF_FILES_WHY];
    tf__files_overwrite_hint = "use --force";
    int fd = tf__file_open(path, TF_FILE_DUMP, force ? TF_FILES_OVERWRITE : 0, why);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !f) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        close(fd);
    }
    if (!f)
        tf__file_say("tf-dump", path, why);
    return f;
}

static int suggest_rules(const struct options *o)
{
    struct stat st;
    if (stat(o->trace, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "tf-dump: %s is a recording, whose times include the recorder's "
                        "cost, not the timing hooks'; run the program with "
                        "TF_MONITORS=...=timing TF_REPORT=r.json and give r.json\n",
                o->trace);
        return 1;
    }
    FILE *out = open_out(o->out, o->force);
    if (!out)
        return 1;
    int rc = td_suggest_rules(o->trace, out, o->min_calls);
    if (out != stdout && fclose(out) != 0)
        rc = 1;
    return rc;
}

static td_output *main_output(const struct options *o, FILE *out, const int64_t *origin)
{
    if (o->format && strcmp(o->format, "replay") == 0)
        return td_replay_new(out, o->abs_time ? NULL : origin);
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
    if (o.diff)
        return td_diff_run(o.traces, o.ntraces, o.format, o.out, &o.filter);
    if (o.query.sql || o.query.ask)
        return td_query_run(&o.query, o.traces, o.ntraces, o.format, o.out, &o.filter);
    if (o.format && strcmp(o.format, "sqlite") == 0)
        return td_sqlite_export(o.traces, o.ntraces, o.out, &o.filter, o.flame);
    td_output *outs[2];
    int n = 0;
    int64_t origin = 0;
    FILE *out = NULL, *flame = NULL;
    if ((o.format || !o.flame) && (out = open_out(o.out, o.force)))
        outs[n++] = main_output(&o, out, &origin);
    char *which = td_filter_threads_label(&o.filter);
    if (o.flame && (flame = open_out(o.flame, o.force)))
        outs[n++] = which ? td_flame_for(flame, which) : NULL;
    free(which);
    if ((o.format || !o.flame) != !!out || (o.flame && !flame))
        return 1;
    for (int i = 0; i < n; i++)
        if (!outs[i]) {
            fputs("tf-dump: out of memory\n", stderr);
            return 1;
        }
    td_output *all = n == 1 ? outs[0] : td_tee_new(outs, n);
    td_output *filter = all ? td_filter_new(&o.filter, all, &origin) : NULL;
    if (!filter) {
        fputs("tf-dump: out of memory\n", stderr);
        return 1;
    }
    rc = td_read_paths(o.traces, o.ntraces, filter, &o.read);
    if (out && out != stdout && fclose(out) != 0)
        rc = 1;
    if (flame && flame != stdout && fclose(flame) != 0)
        rc = 1;
    return rc;
}
