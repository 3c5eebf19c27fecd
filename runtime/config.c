/*
 * config.c: the one table of TF_* environment variables (see config.h).
 *
 * Adding a variable is one line in `vars` below: its name, a parser
 * (config.h), the parser's argument, the default, and a help line that
 * TF_HELP=1 prints. The module that owns it reads it with tf__config_get.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

struct var {
    const char *name;
    tf__config_parser *parse;
    const char *arg;
    const char *def;
    const char *help;
};

static const struct var vars[] = {
    {"TF_MONITORS", tf__parse_any, NULL, NULL,
     "group=factory[+factory...] items separated by ',': what to trace"},
    {"TF_OUTPUT", tf__parse_any, NULL, NULL,
     "file dprint writes to, created 0600, never through a symlink (default and '-': stderr)"},
    {"TF_OUTPUT_BUFFER", tf__parse_one_of, "line|full", "full",
     "line: write TF_OUTPUT line by line; full: buffer it, flushed every 100 ms of tracing"},
    {"TF_REPORT", tf__parse_any, NULL, NULL,
     "the timing report at exit: .json JSON, .csv CSV, '-' stderr, else text (default stderr)"},
    {"TF_TIMING_TRACE", tf__parse_any, NULL, NULL,
     "file for the timing event log as Chrome trace JSON (ui.perfetto.dev)"},
    {"TF_HELP", tf__parse_one_of, "0|1", "0",
     "1: list these variables and the known factories on stderr at start"},
};
#define NVARS (sizeof vars / sizeof vars[0])

static char *values[NVARS]; /* as set and parsed; NULL: the default applies */
static pthread_once_t once = PTHREAD_ONCE_INIT;

const char *tf__parse_any(const char *value, const char *arg, char *why, size_t len)
{
    return NULL;
}

/* "is neither 'a' nor 'b'" / "is none of 'a', 'b', 'c'" */
static void describe_choices(const char *arg, char *why, size_t len)
{
    int n = 1;
    for (const char *p = arg; *p; p++)
        n += *p == '|';
    size_t at = (size_t)snprintf(why, len, n == 2 ? "is neither " : "is none of ");
    for (int i = 0; at < len; i++) {
        size_t k = strcspn(arg, "|");
        const char *sep = i == 0 ? "" : n == 2 ? " nor " : ", ";
        at += (size_t)snprintf(why + at, len - at, "%s'%.*s'", sep, (int)k, arg);
        if (!arg[k])
            break;
        arg += k + 1;
    }
}

const char *tf__parse_one_of(const char *value, const char *arg, char *why, size_t len)
{
    size_t n = strlen(value);
    for (const char *p = arg;; p += strcspn(p, "|") + 1) {
        if (strcspn(p, "|") == n && strncmp(p, value, n) == 0)
            return NULL;
        if (!p[strcspn(p, "|")])
            break;
    }
    describe_choices(arg, why, len);
    return why;
}

void tf__config_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        static const char plain[] = "\n\t\r", named[] = "ntr";
        const char *e = c ? strchr(plain, c) : NULL;
        if (e)
            fprintf(out, "\\%c", named[e - plain]);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
}

static void reject(const struct var *v, const char *value, const char *why)
{
    fprintf(stderr, "tf: %s: '", v->name);
    tf__config_escaped(stderr, value);
    fprintf(stderr, "' %s; ", why);
    if (v->def)
        fprintf(stderr, "using '%s'\n", v->def);
    else
        fprintf(stderr, "ignored\n");
}

static void read_all(void)
{
    for (size_t i = 0; i < NVARS; i++) {
        const char *value = secure_getenv(vars[i].name);
        if (!value || !*value)
            continue;
        char why[256];
        const char *problem = vars[i].parse(value, vars[i].arg, why, sizeof why);
        if (problem)
            reject(&vars[i], value, problem);
        else if (!(values[i] = strdup(value)))
            fprintf(stderr, "tf: %s: out of memory; ignored\n", vars[i].name);
    }
}

void tf__config_init(void)
{
    pthread_once(&once, read_all);
}

const char *tf__config_get(const char *name)
{
    tf__config_init();
    for (size_t i = 0; i < NVARS; i++)
        if (strcmp(vars[i].name, name) == 0)
            return values[i] ? values[i] : vars[i].def;
    fprintf(stderr, "tf: internal error: %s is not in the configuration table\n", name);
    return NULL;
}

void tf__config_help(FILE *out)
{
    fprintf(out, "tf: environment variables (ignored in set-uid/set-gid processes):\n");
    for (size_t i = 0; i < NVARS; i++) {
        fprintf(out, "  %-18s %s", vars[i].name, vars[i].help);
        if (vars[i].def)
            fprintf(out, " [default: %s]", vars[i].def);
        fprintf(out, "\n");
    }
}
