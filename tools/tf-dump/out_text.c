/*
 * out_text.c: the default output, dprint's line format (docs/design.md
 * .use.dprint) with each line prefixed by the event's time,
 * [<seconds>.<9 digits>].
 */
#include <stdlib.h>
#include <string.h>

#include <tf/monitors.h>

#include "dump.h"

const char *td_short_name(const char *func)
{
    const char *dot = strchr(func, '.');
    return dot ? dot + 1 : func;
}

static void put_value(FILE *out, const tf_value *v)
{
    char small[256];
    size_t n = tf_value_format(small, sizeof small, v);
    if (n < sizeof small) {
        fputs(small, out);
        return;
    }
    char *big = malloc(n + 1);
    if (big)
        tf_value_format(big, n + 1, v);
    fputs(big ? big : small, out);
    free(big);
}

static void put_args(FILE *out, const td_event *e)
{
    if (e->args_text) {
        fputs(e->args_text, out);
        return;
    }
    for (uint32_t i = 0; i < e->nargs; i++) {
        fprintf(out, "%s%s=", i ? ", " : "", e->args[i].name ? e->args[i].name : "?");
        put_value(out, &e->args[i]);
    }
}

/* An info name may come qualified like func; dprint shows it bare. */
static const char *info_name(const td_event *e)
{
    if (!e->info)
        return "?";
    size_t tu = (size_t)(td_short_name(e->func) - e->func);
    return tu && strncmp(e->info, e->func, tu) == 0 ? e->info + tu : e->info;
}

static int t_event(void *self, const td_event *e)
{
    FILE *out = self;
    uint64_t ns = (uint64_t)e->ns;
    fprintf(out, "[%llu.%09llu] (%s): %s", (unsigned long long)(ns / 1000000000),
            (unsigned long long)(ns % 1000000000), e->thread, e->func);
    switch (e->kind) {
    case TD_ENTER:
        fputs("->(", out);
        put_args(out, e);
        fputs(")", out);
        break;
    case TD_INFO:
        fprintf(out, "::(%s)(", info_name(e));
        put_args(out, e);
        fputs(")", out);
        break;
    case TD_EXIT:
        fputs("<-", out);
        if (e->result) {
            fputs("(", out);
            put_value(out, e->result);
            fputs(")", out);
        } else if (e->result_text && *e->result_text) {
            fprintf(out, "(%s)", e->result_text);
        }
        break;
    case TD_EXCEPTION: /* dprint's noreturn(callee) */
        if (e->exc_kind && strcmp(e->exc_kind, "noreturn") == 0)
            fprintf(out, ":throw:noreturn(%s)", e->exc_type ? e->exc_type : "?");
        else
            fprintf(out, ":throw:%s", e->exc_type ? e->exc_type : "unknown");
        break;
    case TD_SIGNAL: /* "signal SIGSEGV (code 1, address 0x0)": func is "" */
        fprintf(out, "signal %s (code %lld", e->sig_name, (long long)e->sig_code);
        if (e->sig_has_addr)
            fprintf(out, ", address 0x%llx", (unsigned long long)e->sig_addr);
        fputs(")", out);
        break;
    case TD_COUNTERS: /* they come to t_counters, never here */
    case TD_BUDGET:
        break;
    }
    return putc('\n', out) == EOF;
}

/* "[time] (thread): counters rss=..., threads=..." (or budget ...) */
static int t_counters(void *self, const td_event *e)
{
    FILE *out = self;
    uint64_t ns = (uint64_t)e->ns;
    fprintf(out, "[%llu.%09llu] (%s): %s ", (unsigned long long)(ns / 1000000000),
            (unsigned long long)(ns % 1000000000), e->thread, e->func);
    put_args(out, e);
    return putc('\n', out) == EOF;
}

static int t_finish(void *self)
{
    return fflush(self) != 0 || ferror(self);
}

td_output *td_text_new(FILE *out)
{
    td_output *o = malloc(sizeof *o);
    if (o)
        *o = (td_output){out, t_event, t_finish, t_counters};
    return o;
}
