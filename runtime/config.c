/*
 * config.c: the one table of TF_* environment variables (see config.h).
 *
 * Adding a variable is one line in `vars` below: its name, a parser
 * (config.h), the parser's argument, the default, and a help line that
 * TF_HELP=1 prints. The module that owns it reads it with tf__config_get.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "config.h"
#include "escape.h"
#include "nearest.h"

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
    {"TF_SELECT", tf__parse_any, NULL, NULL,
     "+GLOB,-GLOB: which monitored functions follow their group's monitor (README: selecting)"},
    {"TF_OUTPUT", tf__parse_any, NULL, NULL,
     "file dprint writes to, created 0600, never through a symlink (default and '-': stderr)"},
    {"TF_OUTPUT_BUFFER", tf__parse_one_of, "line|full", "full",
     "line: write TF_OUTPUT line by line; full: buffer it, flushed every 100 ms of tracing"},
    {"TF_REPORT", tf__parse_any, NULL, NULL,
     "the timing report at exit: .json JSON, .csv CSV, '-' stderr, else text (default stderr)"},
    {"TF_TIMING_TRACE", tf__parse_any, NULL, NULL,
     "file for the timing event log as Chrome trace JSON (ui.perfetto.dev)"},
    {"TF_CONTROL", tf__parse_one_of, "0|1|anywhere", "0",
     "1: serve tf-ctl on a Unix socket (tf-ctl list shows where); anywhere: its report and "
     "snapshot may also write outside the working directory and TF's directories"},
    {"TF_TRIGGERS", tf__parse_any, NULL, NULL,
     "FUNCTION:EVENT [if CONDITION] -> ACTION items separated by ',' (README: triggers)"},
    {"TF_OUT", tf__parse_any, NULL, NULL,
     "FUNCTION:PARAMETER items: dprint shows that char * buffer at the exit, not the entry"},
    {"XDG_RUNTIME_DIR", tf__parse_any, NULL, NULL,
     "not TF's own: TF_CONTROL's socket goes in its tf/ if it is absolute (else /tmp/tf-<uid>/)"},
    {"TF_RECORD", tf__parse_any, NULL, NULL,
     "record: the trace directory, made 0700 (default tf-record-<pid>)"},
    {"TF_RECORD_MODE", tf__parse_one_of, "ring|stream", "ring",
     "record: ring keeps the last TF_RECORD_SIZE a thread; stream writes every event"},
    {"TF_RECORD_SIZE", tf__parse_size, "4K|1024G", "1M",
     "record: bytes a thread, 4K to 1024G, suffixes K, M, G"},
    {"TF_RECORD_TOTAL", tf__parse_size, "4K|16384G", NULL,
     "record: bytes of all threads' rings at once (default 64 x TF_RECORD_SIZE)"},
    {"TF_RECORD_WAIT", tf__parse_ms, "0|600000", "1000",
     "record, stream mode: ms a thread waits for a writer that makes no progress, then discards"},
    {"TF_RECORD_VALUES", tf__parse_one_of, "0|1", "1",
     "record: 1 keeps argument and result values, 0 only functions and times"},
    {"TF_WATCHDOG", tf__parse_watchdog, NULL, NULL,
     "DURATION[,ACTION...]: report calls open longer than DURATION, hangs, lock cycles (README: when it hangs or dies)"},
    {"TF_BUDGET", tf__parse_budget, NULL, NULL,
     "PERCENT, e.g. 5%: switch off the functions whose hooks cost more than that of the program's time (README: overhead budget)"},
    {"TF_SAMPLE", tf__parse_sample, NULL, NULL,
     "DURATION between samples of RSS, threads, fds, context switches into the recording (default 1s with TF_WATCHDOG)"},
    {"TF_OVERWRITE", tf__parse_one_of, "0|1", "0",
     "1: TF may replace a file (or fill a directory) of yours that TF did not write"},
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

unsigned long long tf__config_size(const char *s)
{
    if (*s < '0' || *s > '9') /* strtoull would take a sign or blanks */
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return 0;
    unsigned shift = 0;
    if (*end && strchr("KkMmGg", *end))
        shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : 30;
    if (shift)
        end++;
    if (*end || v > (ULLONG_MAX >> shift))
        return 0;
    return v << shift;
}

const char *tf__parse_size(const char *value, const char *arg, char *why, size_t len)
{
    unsigned long long v = tf__config_size(value);
    size_t k = strcspn(arg, "|");
    char min[32];
    snprintf(min, sizeof min, "%.*s", (int)k, arg);
    if (v && v >= tf__config_size(min) && v <= tf__config_size(arg + k + 1))
        return NULL;
    /* A size out of range is told as such: "1k" is well spelt, only small. */
    if (v && v < tf__config_size(min))
        snprintf(why, len, "is %llu bytes, under the smallest size, %s", v, min);
    else if (v)
        snprintf(why, len, "is over the largest size, %s", arg + k + 1);
    else
        snprintf(why, len, "is not a size from %s to %s (a number with an optional K, M or G)",
                 min, arg + k + 1);
    return why;
}

unsigned long long tf__config_ms(const char *s)
{
    if (*s < '0' || *s > '9')
        return ULLONG_MAX;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    return errno || *end ? ULLONG_MAX : v;
}

const char *tf__parse_ms(const char *value, const char *arg, char *why, size_t len)
{
    unsigned long long v = tf__config_ms(value);
    size_t k = strcspn(arg, "|");
    char min[32];
    snprintf(min, sizeof min, "%.*s", (int)k, arg);
    if (v >= tf__config_ms(min) && v <= tf__config_ms(arg + k + 1))
        return NULL;
    snprintf(why, len, "is not a number of milliseconds from %s to %s", min, arg + k + 1);
    return why;
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

/* " (did you mean 'ring'?)" after the choices, when one is near value. */
static void suggest_choice(const char *value, const char *arg, char *why, size_t len)
{
    tf_nearest near;
    tf_nearest_begin(&near, value);
    for (const char *p = arg;; p += strcspn(p, "|") + 1) {
        char choice[64];
        snprintf(choice, sizeof choice, "%.*s", (int)strcspn(p, "|"), p);
        tf_nearest_offer(&near, choice);
        if (!p[strcspn(p, "|")])
            break;
    }
    char hint[128];
    size_t at = strlen(why);
    if (tf_nearest_say(&near, hint, sizeof hint) && at < len)
        snprintf(why + at, len - at, " (%s)", hint);
    tf_nearest_end(&near);
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
    suggest_choice(value, arg, why, len);
    return why;
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

/* Variables of TF's other programs (tf-cc, tf-c++): known, so a program
 * built by a Makefile that exports them is not told they are misspelt. */
static const char *const others[] = {"TF_CC", "TF_CXX", "TF_RULES", "TF_PLUGIN_ARGS", "TF_CC_WRAPPER"};

static int known_name(const char *name, size_t n)
{
    for (size_t i = 0; i < NVARS; i++)
        if (strlen(vars[i].name) == n && strncmp(vars[i].name, name, n) == 0)
            return 1;
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (strlen(others[i]) == n && strncmp(others[i], name, n) == 0)
            return 1;
    return 0;
}

/* A TF_ variable that is none of ours but near one (TF_MONITOR): said once.
 * One near none is left alone: TF_ is not only TF's (TensorFlow's
 * TF_CPP_MIN_LOG_LEVEL). */
static void misspelt(const char *entry)
{
    size_t n = strcspn(entry, "=");
    if (strncmp(entry, "TF_", 3) != 0 || known_name(entry, n))
        return;
    char *name = strndup(entry, n);
    if (!name)
        return;
    tf_nearest near;
    tf_nearest_begin(&near, name);
    for (size_t i = 0; i < NVARS; i++)
        tf_nearest_offer(&near, vars[i].name);
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        tf_nearest_offer(&near, others[i]);
    char hint[256];
    if (tf_nearest_say(&near, hint, sizeof hint)) {
        fprintf(stderr, "tf: ");
        tf__config_escaped(stderr, name);
        fprintf(stderr, " is set, but TF has no such variable (ignored); %s\n", hint);
    }
    tf_nearest_end(&near);
    free(name);
}

static void read_all(void)
{
    if (getauxval(AT_SECURE))
        return; /* set-uid/set-gid: secure_getenv would give nothing anyway */
    for (char **e = environ; e && *e; e++)
        misspelt(*e);
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
