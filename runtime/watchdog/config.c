/*
 * config.c: the spelling of TF_WATCHDOG (and of tf-ctl PID watchdog) and of
 * TF_SAMPLE, lines of runtime/config.c's one table, which reports a bad
 * value with these parsers' reasons.
 *
 *   DURATION[,ACTION...]   DURATION: a number and a unit, ns, us, ms or s
 *                          (as in conditions), from 10ms to 86400s
 *   ACTION: report (lines on stderr), snapshot (the flight recorder, when
 *   recording), abort (SIGABRT to the stuck thread once reported: a core
 *   dump). Without actions: report,snapshot. Given actions replace that.
 *   off                    (tf-ctl only) stop the watchdog
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "watchdog.h"
#include "../config.h"

#define MIN_NS 10000000ull            /* 10 ms: the scan runs every quarter of it */
#define MAX_NS 86400000000000ull      /* a day */

static const struct {
    const char *name;
    unsigned bit;
} actions[] = {{"abort", WD_ACT_ABORT}, {"report", WD_ACT_REPORT}, {"snapshot", WD_ACT_SNAPSHOT}};
#define NACTIONS (sizeof actions / sizeof actions[0])

/* "2s" -> ns; NULL, or why not. */
static const char *duration(const char *s, size_t n, uint64_t *ns, char *why, size_t len)
{
    static const struct { const char *unit; uint64_t ns; } units[] = {
        {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    size_t i = 0;
    uint64_t v = 0;
    for (; i < n && isdigit((unsigned char)s[i]); i++)
        v = v > MAX_NS ? v : v * 10 + (uint64_t)(s[i] - '0'); /* past MAX_NS: too long anyway */
    for (size_t u = 0; i && u < sizeof units / sizeof units[0]; u++)
        if (n - i == strlen(units[u].unit) && strncmp(s + i, units[u].unit, n - i) == 0) {
            if (v > MAX_NS / units[u].ns || v * units[u].ns < MIN_NS) {
                snprintf(why, len, "is not a duration from 10ms to 86400s");
                return why;
            }
            *ns = v * units[u].ns;
            return NULL;
        }
    snprintf(why, len, "does not start with a duration: a number and a unit (ns, us, ms, s), e.g. 2s");
    return why;
}

static const char *action(const char *s, size_t n, unsigned *bits, char *why, size_t len)
{
    for (size_t k = 0; k < NACTIONS; k++)
        if (strlen(actions[k].name) == n && strncmp(actions[k].name, s, n) == 0) {
            *bits |= actions[k].bit;
            return NULL;
        }
    char shown[64];
    snprintf(shown, sizeof shown, "%.*s", (int)(n < 40 ? n : 40), s);
    for (char *c = shown; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?'; /* the whole value is shown escaped by the caller */
    snprintf(why, len, "has an unknown action '%s' (known: abort, report, snapshot)", shown);
    return why;
}

const char *wd_parse(const char *text, wd_spec *out, char *why, size_t len)
{
    wd_spec s = {0, 0};
    if (strcmp(text, "off") == 0) {
        *out = s;
        return NULL;
    }
    size_t n = strcspn(text, ",");
    if (duration(text, n, &s.ns, why, len))
        return why;
    for (const char *p = text + n; *p;) {
        p++; /* the comma */
        n = strcspn(p, ",");
        if (!n) {
            snprintf(why, len, "has an empty action (two commas, or one at the end)");
            return why;
        }
        if (action(p, n, &s.actions, why, len))
            return why;
        p += n;
    }
    if (!s.actions)
        s.actions = WD_ACT_REPORT | WD_ACT_SNAPSHOT;
    *out = s;
    return NULL;
}

void wd_spec_format(const wd_spec *s, char *out, size_t len)
{
    if (!s->ns) {
        snprintf(out, len, "off");
        return;
    }
    tf_buf b = {out, len, 0};
    wd_buf_duration(&b, s->ns);
    for (size_t k = 0; k < NACTIONS; k++)
        if (s->actions & actions[k].bit) {
            tf__buf_puts(&b, ", ");
            tf__buf_puts(&b, actions[k].name);
        }
    tf__buf_end(&b);
}

/* The table's parsers (runtime/config.c). */
const char *tf__parse_watchdog(const char *value, const char *arg, char *why, size_t len)
{
    wd_spec s;
    if (strcmp(value, "off") == 0) {
        snprintf(why, len, "is not DURATION[,ACTION...] ('off' is for tf-ctl; leave TF_WATCHDOG unset)");
        return why;
    }
    return wd_parse(value, &s, why, len);
}

const char *tf__parse_sample(const char *value, const char *arg, char *why, size_t len)
{
    uint64_t ns;
    return duration(value, strlen(value), &ns, why, len);
}

uint64_t wd_sample_asked(void)
{
    const char *v = tf__config_get("TF_SAMPLE");
    uint64_t ns = 0;
    char why[128];
    return v && !duration(v, strlen(v), &ns, why, sizeof why) ? ns : 0;
}
