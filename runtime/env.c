/*
 * env.c: activation from the environment, parsed once at start-up in this one
 * place (DESIGN.md section 3; the MPS_TELEMETRY_CONTROL idea):
 *
 *   TF_MONITORS='io=dprint,io_read=timing+tracer'   group=factory[+factory...]
 *   TF_OUTPUT=FILE   where dprint writes (default stderr)
 *   TF_REPORT=FILE   the timing report at exit
 *
 * Read with secure_getenv: ignored in set-uid/set-gid processes. A bad item is
 * reported once on stderr, naming it; the other items still apply. A group
 * that no loaded code declares by the time the program exits is reported then,
 * so a typo never silently traces nothing.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tf/record.h>

#include "../registry/internal.h"

static char *report_path;
static FILE *output;
static char **asked;   /* groups TF_MONITORS named, checked at exit */
static int nasked;

FILE *tf__create_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f)
        close(fd);
    return f;
}

const char *tf__env_report(void)
{
    return report_path;
}

FILE *tf__env_output(void)
{
    if (output)
        return output;
    const char *path = secure_getenv("TF_OUTPUT");
    if (!path || !*path || strcmp(path, "-") == 0)
        return output = stderr;
    output = tf__create_file(path);
    if (!output) {
        fprintf(stderr, "tf: TF_OUTPUT: cannot create '%s': %s; dprint writes to stderr\n",
                path, strerror(errno));
        return output = stderr;
    }
    /* Fully buffered unless asked otherwise: a line per write(2) made dprint to
     * a file 9x slower. dprint flushes it at least every 100 ms of tracing, at
     * fork and on a fatal signal (dprint.c); exit flushes all stdio. */
    const char *mode = secure_getenv("TF_OUTPUT_BUFFER");
    int line = mode && strcmp(mode, "line") == 0;
    if (mode && *mode && !line && strcmp(mode, "full") != 0)
        fprintf(stderr, "tf: TF_OUTPUT_BUFFER: '%s' is neither 'line' nor 'full'; using 'full'\n", mode);
    setvbuf(output, NULL, line ? _IOLBF : _IOFBF, line ? 0 : 1 << 16);
    if (!line)
        tf__dprint_buffered(output);
    return output;
}

static tf_factory *timing_factory(void)
{
    return tf__timing_env_factory();
}

static tf_factory *dprint_factory(void)
{
    return tf_dprint(tf__env_output());
}

static const struct {
    const char *name;
    tf_factory *(*make)(void);
} factories[] = {
    {"noop", tf_noop},
    {"dprint", dprint_factory},
    {"tracer", tf_operation_tracer},
    {"timing", timing_factory},
    {"record", tf_record},
};
#define NFACTORIES (sizeof factories / sizeof factories[0])

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = 0;
    return s;
}

static int identifier(const char *s)
{
    if (!*s || isdigit((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static int bad(FILE *err, int index, const char *item, const char *why, const char *what)
{
    fprintf(err, "tf: TF_MONITORS: item %d '%s': %s%s%s%s\n", index, item, why,
            what ? " '" : "", what ? what : "", what ? "'" : "");
    return 1;
}

/* Parses "f1+f2" into out; returns NULL or the problem (naming *culprit). */
static const char *parse_factories(char *list, tf_factory **out, size_t *n, const char **culprit)
{
    *n = 0;
    for (char *name = list, *next; name; name = next) {
        next = strchr(name, '+');
        if (next)
            *next++ = 0;
        name = trim(name);
        *culprit = name;
        if (!*name)
            return "empty factory name";
        size_t i = 0;
        while (i < NFACTORIES && strcmp(factories[i].name, name) != 0)
            i++;
        if (i == NFACTORIES)
            return "unknown factory (known: noop, dprint, tracer, timing, record)";
        tf_factory *f = factories[i].make();
        if (!f)
            return "factory could not be created";
        if (*n < 8)
            out[(*n)++] = f;
    }
    return NULL;
}

static int asked_for(const char *group)
{
    for (int i = 0; i < nasked; i++)
        if (strcmp(asked[i], group) == 0)
            return 1;
    return 0;
}

static void remember(const char *group)
{
    char **v = asked_for(group) ? NULL : realloc(asked, (size_t)(nasked + 1) * sizeof *v);
    if (!v)
        return;
    asked = v;
    if ((v[nasked] = strdup(group)))
        nasked++;
}

/* Registers group = compose(what an earlier item gave it, fs), so that
 * io=dprint,io=tracer keeps both. */
static void apply(const char *group, tf_factory **fs, size_t n)
{
    tf_factory *all[9];
    size_t k = 0;
    tf_factory *earlier = asked_for(group) ? tf_registered_factory(group) : NULL;
    if (earlier)
        all[k++] = earlier;
    for (size_t i = 0; i < n; i++)
        all[k++] = fs[i];
    tf_factory *f = k == 1 ? all[0] : tf_compose(all, k);
    if (f)
        tf__register_trusted(group, f);
    remember(group);
}

static int apply_item(char *item, int index, FILE *err)
{
    char shown[128];
    snprintf(shown, sizeof shown, "%s", item);
    char *eq = strchr(item, '=');
    if (!eq)
        return bad(err, index, shown, "expected group=factory[+factory...]", NULL);
    *eq = 0;
    char *group = trim(item), *list = trim(eq + 1);
    if (!identifier(group))
        return bad(err, index, shown, *group ? "bad group name" : "empty group name",
                   *group ? group : NULL);
    tf_factory *fs[8];
    size_t n;
    const char *culprit = NULL;
    const char *problem = parse_factories(list, fs, &n, &culprit);
    if (problem)
        return bad(err, index, shown, problem, culprit && *culprit ? culprit : NULL);
    apply(group, fs, n);
    return 0;
}

int tf__env_apply(const char *value, FILE *err)
{
    char *copy = strdup(value ? value : "");
    if (!copy)
        return 1;
    int nbad = 0, index = 0;
    /* strtok would merge empty items: walk the commas by hand. */
    for (char *item = copy, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        index++;
        char *t = trim(item);
        if (*t)
            nbad += apply_item(t, index, err);
    }
    free(copy);
    return nbad;
}

static void check_asked(void)
{
    for (int i = 0; i < nasked; i++)
        if (!tf_group_known(asked[i]))
            fprintf(stderr, "tf: TF_MONITORS: no loaded code declares group '%s': "
                            "nothing was traced for it\n", asked[i]);
}

void tf__env_init(void)
{
    const char *report = secure_getenv("TF_REPORT");
    if (report && *report)
        report_path = strdup(report);
    const char *monitors = secure_getenv("TF_MONITORS");
    if (monitors) {
        tf__env_apply(monitors, stderr);
        atexit(check_asked);
    }
}
