/*
 * spec.c: the one syntax of conditions and triggers (README "Conditions and
 * triggers"). Every parser stops at the first problem with a message and the
 * column where it is, so the caller can say "item N, column C".
 *
 *   if time > 10ms and depth <= 3 and fd == 4 and path == "/etc/passwd"
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "nearest.h"

/* Newlines too: a long TF_TRIGGERS value is written across lines. */
static int blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

void tf__cur_ws(tf_cursor *c)
{
    while (blank(c->s[c->i]))
        c->i++;
}

int tf__cur_fail(tf_cursor *c, const char *fmt, ...)
{
    if (c->err[0])
        return -1; /* the first problem is the one to fix */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof c->err) /* a message too long for err: cut, and says so */
        memcpy(c->err + sizeof c->err - 4, "...", 3);
    c->errcol = c->i + 1;
    return -1;
}

int tf__cur_keyword(tf_cursor *c, const char *word)
{
    tf__cur_ws(c);
    size_t n = strlen(word);
    const char *p = c->s + c->i;
    if (strncmp(p, word, n) != 0 || (p[n] && !blank(p[n])))
        return 0;
    c->i += n;
    return 1;
}

size_t tf__cur_token(tf_cursor *c, char *out, size_t max, const char *stop)
{
    tf__cur_ws(c);
    size_t n = 0;
    while (c->s[c->i] && !blank(c->s[c->i]) &&
           !strchr(stop, c->s[c->i])) {
        if (n + 1 < max)
            out[n] = c->s[c->i];
        n++;
        c->i++;
    }
    if (max)
        out[n < max ? n : max - 1] = 0;
    return n;
}

void tf__escape(char *out, size_t max, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (; *s && n + 5 < max; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch >= 0x20 && ch < 0x7f) {
            out[n++] = (char)ch;
            continue;
        }
        out[n++] = '\\';
        out[n++] = 'x';
        out[n++] = hex[ch >> 4];
        out[n++] = hex[ch & 15];
    }
    if (*s && max > 4) {
        n = n + 3 < max ? n : max - 4;
        memcpy(out + n, "...", 3);
        n += 3;
    }
    if (max)
        out[n] = 0;
}

int tf__cur_fail_word(tf_cursor *c, const char *const *words, int n, const char *what)
{
    char word[64], hint[160];
    size_t at = c->i;
    tf__cur_token(c, word, sizeof word, "");
    c->i = at;
    tf_nearest near;
    tf_nearest_begin(&near, word);
    for (int k = 0; k < n; k++)
        tf_nearest_offer(&near, words[k]);
    tf_nearest_say(&near, hint, sizeof hint);
    tf_nearest_end(&near);
    tf__cur_ws(c);
    return tf__cur_fail(c, "%s%s%s", what, *hint ? "; " : "", hint);
}

const char *tf__cur_where(const tf_cursor *c, char *out, size_t max)
{
    const char *at = c->s + (c->errcol ? c->errcol - 1 : 0);
    if (!*at) { /* "(at '')" told nothing */
        snprintf(out, max, "at the end");
        return out;
    }
    char shown[64];
    tf__escape(shown, sizeof shown, at);
    snprintf(out, max, "at '%s'", shown);
    return out;
}

static int number(tf_cursor *c, int64_t *out)
{
    tf__cur_ws(c);
    const char *p = c->s + c->i;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 0);
    if (end == p || !(isdigit((unsigned char)*p) || *p == '-' || *p == '+'))
        return tf__cur_fail(c, "expected a number");
    if (errno == ERANGE)
        return tf__cur_fail(c, "number out of range");
    c->i += (size_t)(end - p);
    *out = v;
    return 0;
}

int tf__cur_duration(tf_cursor *c, uint64_t *ns)
{
    static const struct { const char *unit; uint64_t ns; } units[] = {
        {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    int64_t v;
    tf__cur_ws(c);
    size_t at = c->i;
    if (number(c, &v) < 0)
        return -1;
    if (v < 0) {
        c->i = at;
        return tf__cur_fail(c, "a duration cannot be negative");
    }
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t n = strlen(units[u].unit);
        const char *p = c->s + c->i;
        if (strncmp(p, units[u].unit, n) == 0 && !isalnum((unsigned char)p[n])) {
            c->i += n;
            *ns = (uint64_t)v * units[u].ns;
            return 0;
        }
    }
    return tf__cur_fail(c, "a duration needs a unit: ns, us, ms or s");
}

static int op(tf_cursor *c, int *out)
{
    static const struct { const char *s; int op; } ops[] = {
        {"==", TF_OP_EQ}, {"!=", TF_OP_NE}, {"<=", TF_OP_LE},
        {">=", TF_OP_GE}, {"<", TF_OP_LT},  {">", TF_OP_GT}};
    tf__cur_ws(c);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strncmp(c->s + c->i, ops[k].s, strlen(ops[k].s)) == 0) {
            c->i += strlen(ops[k].s);
            *out = ops[k].op;
            return 0;
        }
    if (c->s[c->i] == '=')
        return tf__cur_fail(c, "'=' compares nothing: write '=='");
    return tf__cur_fail(c, "expected a comparison: ==, !=, <, <=, > or >=");
}

static int quoted(tf_cursor *c, char *out, size_t max)
{
    size_t n = 0;
    c->i++; /* the opening quote */
    while (c->s[c->i] && c->s[c->i] != '"') {
        if (c->s[c->i] == '\\' && c->s[c->i + 1])
            c->i++;
        if (n + 1 >= max)
            return tf__cur_fail(c, "string longer than %d bytes", (int)max - 1);
        out[n++] = c->s[c->i++];
    }
    if (!c->s[c->i])
        return tf__cur_fail(c, "string not closed by '\"'");
    c->i++;
    out[n] = 0;
    return 0;
}

static int name(tf_cursor *c, char *out, size_t max)
{
    tf__cur_ws(c);
    size_t n = 0;
    if (strncmp(c->s + c->i, "arg.", 4) == 0)
        c->i += 4; /* arg.time: an argument named like a keyword */
    const char *p = c->s + c->i;
    if (!isalpha((unsigned char)*p) && *p != '_')
        return tf__cur_fail(c, "expected time, depth or an argument's name");
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    if (n >= max)
        return tf__cur_fail(c, "name longer than %d bytes", (int)max - 1);
    memcpy(out, p, n);
    out[n] = 0;
    c->i += n;
    return 0;
}

/* at_op: where the comparison is, blamed when a string cannot take it. */
static int constant(tf_cursor *c, tf_cond_term *t, size_t at_op)
{
    tf__cur_ws(c);
    char ch = c->s[c->i];
    if (t->what == TF_C_TIME) {
        uint64_t ns;
        if (tf__cur_duration(c, &ns) < 0)
            return -1;
        t->num = (int64_t)ns;
        return 0;
    }
    if (t->what == TF_C_DEPTH || isdigit((unsigned char)ch) || ch == '-' || ch == '+')
        return number(c, &t->num);
    t->is_str = 1;
    if (ch == '"' && quoted(c, t->str, sizeof t->str) < 0)
        return -1;
    if (ch != '"' && !tf__cur_token(c, t->str, sizeof t->str, ""))
        return tf__cur_fail(c, "expected a number or a string");
    if (t->op != TF_OP_EQ && t->op != TF_OP_NE) {
        c->i = at_op;
        return tf__cur_fail(c, "strings compare with == and != only");
    }
    return 0;
}

static int term(tf_cursor *c, tf_cond_term *t)
{
    tf__cur_ws(c);
    int explicit_arg = strncmp(c->s + c->i, "arg.", 4) == 0;
    if (name(c, t->arg, sizeof t->arg) < 0)
        return -1;
    tf__cur_ws(c);
    size_t at_op = c->i;
    if (op(c, &t->op) < 0)
        return -1;
    t->what = TF_C_ARG;
    if (!explicit_arg && strcmp(t->arg, "time") == 0)
        t->what = TF_C_TIME;
    if (!explicit_arg && strcmp(t->arg, "depth") == 0)
        t->what = TF_C_DEPTH;
    return constant(c, t, at_op);
}

int tf__cond_parse(tf_cursor *c, tf_cond *out)
{
    memset(out, 0, sizeof *out);
    do {
        tf__cur_ws(c);
        if (out->n == TF_COND_MAX)
            return tf__cur_fail(c, "more than %d comparisons", TF_COND_MAX);
        if (term(c, &out->t[out->n++]) < 0)
            return -1;
    } while (tf__cur_keyword(c, "and"));
    return 0;
}

int tf__cond_has(const tf_cond *cond, int what)
{
    for (int k = 0; cond && k < cond->n; k++)
        if (cond->t[k].what == what)
            return 1;
    return 0;
}

/* The spelling that parses back to the same term: "arg." before an argument
 * named like a keyword, '\' before '"' and '\' in a string. */
static void format_name(tf_buf *b, const tf_cond_term *t)
{
    if (t->what == TF_C_TIME || t->what == TF_C_DEPTH) {
        tf__buf_puts(b, t->what == TF_C_TIME ? "time" : "depth");
        return;
    }
    if (strcmp(t->arg, "time") == 0 || strcmp(t->arg, "depth") == 0)
        tf__buf_puts(b, "arg.");
    tf__buf_puts(b, t->arg);
}

static void format_str(tf_buf *b, const char *s)
{
    tf__buf_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            tf__buf_puts(b, "\\");
        tf__buf_put(b, s, 1);
    }
    tf__buf_puts(b, "\"");
}

void tf__cond_format(const tf_cond *cond, char *out, size_t max)
{
    static const char *const ops[] = {"", "==", "!=", "<", "<=", ">", ">="};
    tf_buf b = {out, max, 0};
    for (int k = 0; k < cond->n; k++) {
        const tf_cond_term *t = &cond->t[k];
        tf__buf_puts(&b, k ? " and " : "if ");
        format_name(&b, t);
        tf__buf_puts(&b, " ");
        tf__buf_puts(&b, ops[t->op]);
        tf__buf_puts(&b, " ");
        if (t->is_str) {
            format_str(&b, t->str);
        } else {
            tf__buf_int(&b, t->num);
            if (t->what == TF_C_TIME)
                tf__buf_puts(&b, "ns");
        }
    }
    tf__buf_end(&b);
}
