/*
 * register.c: "GROUP=FACTORY[+FACTORY...] [if CONDITION]", the one spelling
 * of a registration in TF_MONITORS, tf-ctl and triggers. Requests from the
 * control socket and triggers act as environment activation does (trusted
 * like the program's own start-up) but obey TF_SEAL_REGISTRATIONS.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"

static tf_factory *wrap(tf_factory **fs, size_t n, const tf_cond *cond)
{
    tf_factory *inner = n == 1 ? fs[0] : tf_compose(fs, n);
    return inner ? tf__cond_factory(inner, cond) : NULL;
}

tf_factory *tf__cond_wrap(const char *text, size_t col, tf_factory **fs, size_t n, int index)
{
    tf_cursor c = {.s = text};
    tf_cond cond;
    if (tf__cond_parse(&c, &cond) == 0) {
        tf__cur_ws(&c);
        static const char *const and[] = {"and"};
        if (c.s[c.i])
            tf__cur_fail_word(&c, and, 1, "expected 'and' or the end of the item");
    }
    if (c.err[0]) {
        char where[80];
        fprintf(stderr, "tf: TF_MONITORS: item %d, column %zu: %s (%s)\n", index,
                col + c.errcol, c.err, tf__cur_where(&c, where, sizeof where));
        return NULL;
    }
    tf_factory *f = wrap(fs, n, &cond);
    if (!f) {
        fprintf(stderr, "tf: TF_MONITORS: item %d: out of memory\n", index);
        return NULL;
    }
    char where[64];
    snprintf(where, sizeof where, "TF_MONITORS: item %d", index);
    tf__cond_written(f, where);
    return f;
}

static int group_name(tf_cursor *c, char *out, size_t max)
{
    tf__cur_ws(c);
    size_t n = 0;
    while (isalnum((unsigned char)c->s[c->i]) || c->s[c->i] == '_') {
        if (n + 1 >= max)
            return tf__cur_fail(c, "group name too long");
        out[n++] = c->s[c->i++];
    }
    out[n] = 0;
    if (!n || isdigit((unsigned char)out[0]))
        return tf__cur_fail(c, "expected a group name");
    return 0;
}

/* The factory TF_MONITORS knows as name (at column at), made on first use. */
static tf_factory *factory_named(tf_cursor *c, const char *name, size_t at)
{
    char why[256];
    int unknown;
    tf_factory *f = tf__env_factory(name, &unknown, why, sizeof why);
    if (f)
        return f;
    c->i = at;
    if (!unknown) {
        tf__cur_fail(c, "factory could not be created");
    } else if (why[0]) {
        tf__cur_fail(c, "unknown factory (%s)", why);
    } else {
        char hint[160];
        char *known = tf__factories_known();
        tf__hint_factory(name, hint, sizeof hint);
        tf__cur_fail(c, "unknown factory (known: %s)%s%s", known ? known : "?", *hint ? "; " : "", hint);
        free(known);
    }
    return NULL;
}

/* FACTORY[+FACTORY...] into fs. */
static int factories(tf_cursor *c, tf_factory **fs, size_t *n)
{
    *n = 0;
    do {
        char name[64];
        tf__cur_ws(c);
        size_t at = c->i;
        if (!tf__cur_token(c, name, sizeof name, "+"))
            return tf__cur_fail(c, "expected a factory name");
        tf_factory *f = factory_named(c, name, at);
        if (!f)
            return -1;
        if (*n == 8)
            return tf__cur_fail(c, "more than 8 factories");
        fs[(*n)++] = f;
        tf__cur_ws(c);
    } while (c->s[c->i] == '+' && ++c->i);
    return 0;
}

tf_factory *tf__parse_registration(tf_cursor *c, char *group, size_t max, const char *where)
{
    tf_factory *fs[8];
    size_t n;
    if (group_name(c, group, max) < 0)
        return NULL;
    tf__cur_ws(c);
    if (c->s[c->i] != '=') {
        tf__cur_fail(c, "expected '=' after the group name");
        return NULL;
    }
    c->i++;
    if (factories(c, fs, &n) < 0)
        return NULL;
    tf_factory *f = n == 1 ? fs[0] : tf_compose(fs, n);
    if (tf__cur_keyword(c, "if")) {
        tf_cond cond;
        if (tf__cond_parse(c, &cond) < 0)
            return NULL;
        f = f ? tf__cond_factory(f, &cond) : NULL;
        if (f) /* what only the calls show is said at exit */
            tf__cond_written(f, where);
    }
    if (!f)
        tf__cur_fail(c, "out of memory");
    return f;
}

int tf__group_unknown(tf_cursor *c, const char *group, size_t at, const char *unchanged)
{
    if (tf_group_known(group))
        return 0;
    char hint[160], shown[96];
    tf__hint_group(group, hint, sizeof hint);
    tf__escape(shown, sizeof shown, group);
    c->i = at;
    return tf__cur_fail(c, "no loaded code declares group '%s'; %s%s%s", shown, unchanged,
                        *hint ? "; " : "", hint);
}

int tf__control_register(tf_cursor *c, const char *who)
{
    char group[128];
    tf__cur_ws(c);
    size_t at = c->i;
    tf_factory *f = tf__parse_registration(c, group, sizeof group, "tf-ctl register");
    if (!f)
        return -1;
    tf__cur_ws(c);
    if (c->s[c->i])
        return tf__cur_fail(c, "expected 'if', 'and' or the end");
    if (tf__group_unknown(c, group, at, "nothing registered") < 0)
        return -1;
    int rc = tf__register_external(group, f, who);
    if (rc == TF_EPERM)
        return tf__cur_fail(c, "permission denied: registrations are sealed");
    return rc == TF_OK ? 0 : tf__cur_fail(c, "registration failed (%d)", rc);
}
