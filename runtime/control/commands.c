/*
 * commands.c: what the control socket answers (tf-ctl PID COMMAND). The
 * answer is text: "ok" or "error: ..." on the first line, then the output.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"

#define MAX_GROUPS 512

struct names {
    const char *v[MAX_GROUPS];
    int n;
};

static void add_name(struct names *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return;
    if (s->n < MAX_GROUPS)
        s->v[s->n++] = name;
}

static int collect_groups(const tf_tu *tu, void *arg)
{
    for (uint32_t i = 0; i < tu->ndecls; i++)
        add_name(arg, tu->decls[i].name);
    for (uint32_t i = 0; i < tu->ngroups; i++)
        add_name(arg, tu->groups[i].name);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void groups(FILE *out)
{
    struct names s = {.n = 0};
    tf_tu_foreach(collect_groups, &s);
    qsort(s.v, (size_t)s.n, sizeof s.v[0], by_name);
    for (int i = 0; i < s.n; i++) {
        tf_factory *f = tf_registered_factory(s.v[i]);
        const char *subs[64];
        int nsubs = tf_group_subgroups(s.v[i], subs, 64);
        fprintf(out, "%s\t%s", s.v[i], f ? (f->name ? f->name : "?") : "-");
        for (int k = 0; k < nsubs && k < 64; k++)
            fprintf(out, "%s%s", k ? " " : "\tsubgroups: ", subs[k]);
        fputc('\n', out);
    }
}

static int glob_matches(const char *glob, const tf_tu *tu, const char *name)
{
    return !glob || tf__function_matches(glob, tu, name);
}

struct fn_query {
    const char *glob;
    FILE *out;
};

static int list_functions(const tf_tu *tu, void *arg)
{
    struct fn_query *q = arg;
    for (uint32_t id = 0; id < tu->nnames; id++) {
        const tf_name *n = &tu->names[id];
        if (!(n->flags & TF_NAME_MONITOR) || !glob_matches(q->glob, tu, n->name))
            continue;
        const char *group = n->group >= 0 ? tu->groups[n->group].name : "?";
        int selected = tf_selected(tu, (int)id) == 1, shed = tf__registry_shed_get(tu, (int)id);
        int on = n->group >= 0 && selected && !shed && tf_monitor_for_tu(tu, group);
        fprintf(q->out, "%s.%s\t%s\t%s\t%s%s\n", tu->name, n->name, group, on ? "on" : "off",
                selected ? "selected" : "deselected", shed ? "\tdeselected by the budget" : "");
    }
    return 0;
}

static int count_tu(const tf_tu *tu, void *arg)
{
    ++*(int *)arg;
    return 0;
}

static void status(FILE *out)
{
    char exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    int tus = 0;
    tf_tu_foreach(count_tu, &tus);
    fprintf(out, "pid\t%ld\nprogram\t%s\nsocket\t%s\ntus\t%d\ntriggers\t%d\ndenials\t%lu\n",
            (long)getpid(), exe, tf__control_path() ? tf__control_path() : "-", tus,
            tf__trigger_count(), tf_denials(NULL, 0));
    /* Calls made while a hook or libtf ran on their thread (internal.h). */
    fprintf(out, "untraced\t%llu\n", (unsigned long long)__atomic_load_n(&tf__untraced, __ATOMIC_RELAXED));
}

struct sel_count {
    int all, selected;
};

static int count_selected(const tf_tu *tu, void *arg)
{
    struct sel_count *k = arg;
    for (uint32_t id = 0; id < tu->nnames; id++)
        if (tu->names[id].flags & TF_NAME_MONITOR) {
            k->all++;
            k->selected += tf_selected(tu, (int)id) == 1;
        }
    return 0;
}

static void selection(FILE *out)
{
    fputs("selection\t", out);
    if (!tf__select_show(out))
        fputs("(everything)", out);
    struct sel_count k = {0, 0};
    tf_tu_foreach(count_selected, &k);
    fprintf(out, "\nselected\t%d of %d monitored functions\n", k.selected, k.all);
}

struct first_bad {
    int index;
    char item[128];
    const char *why;
};

static void note_bad(int index, const char *item, size_t len, const char *why, void *arg)
{
    struct first_bad *b = arg;
    if (b->why)
        return;
    char *copy = strndup(item, len);
    b->index = index;
    tf__escape(b->item, sizeof b->item, copy ? copy : "?");
    b->why = why;
    free(copy);
}

/* select ITEMS / deselect GLOBS: the rest of the line, applied whole or not
 * at all (a command either does what it says or nothing). */
static int select_items(tf_cursor *c, FILE *body, int exclude)
{
    const char *rest = c->s + c->i;
    if (!*rest)
        return tf__cur_fail(c, "%s", exclude ? "deselect needs a glob" : "select needs items");
    char *items = NULL;
    if (exclude) { /* each glob becomes "-glob" */
        size_t n = strlen(rest), k = 0;
        if (!(items = malloc(2 * n + 2)))
            return tf__cur_fail(c, "out of memory");
        for (const char *p = rest; *p;) {
            size_t w = strcspn(p, ",");
            while (w && (*p == ' ' || *p == '\t'))
                p++, w--;
            k += (size_t)sprintf(items + k, "%s-%.*s", k ? "," : "", (int)w, p);
            p += w;
            p += *p == ',';
        }
    }
    struct first_bad b = {0, "", NULL};
    int rc = tf__select(items ? items : rest, TF__SELECT_CALL, note_bad, &b);
    free(items);
    if (b.why)
        return tf__cur_fail(c, "item %d '%s': %s; nothing changed", b.index, b.item, b.why);
    if (rc != TF_OK)
        return tf__cur_fail(c, "out of memory");
    selection(body);
    return 0;
}

static const char usage[] =
    "commands: status | groups | functions [GLOB] | register GROUP=FACTORY[+FACTORY...] "
    "[if CONDITION] | clear GROUP | select [+|-]GLOB[,...] | deselect GLOB[,...] | "
    "selection [clear] | snapshot [DIR] | report [FILE] | trigger TRIGGER | triggers | untrigger N | "
    "stacks | watchdog DURATION[,ACTION...]|off | heartbeat | budget [PERCENT|off]\n";

/* Commands taking the rest of the line; the cursor is after the command word. */
static int with_rest(const char *cmd, tf_cursor *c, FILE *body, const char *who)
{
    char word[300] = "";
    size_t at = c->i;
    if (strcmp(cmd, "register") == 0)
        return tf__control_register(c, who) < 0 ? -1 : 0;
    if (strcmp(cmd, "select") == 0 || strcmp(cmd, "deselect") == 0)
        return select_items(c, body, cmd[0] == 'd');
    if (strcmp(cmd, "trigger") == 0) {
        int k = tf__trigger_add(c, who);
        if (k > 0)
            fprintf(body, "trigger %d\n", k);
        return k > 0 ? 0 : -1;
    }
    size_t n = tf__cur_token(c, word, sizeof word, "");
    tf__cur_ws(c);
    if (c->s[c->i] || n >= sizeof word)
        return tf__cur_fail(c, "unexpected text after the argument");
    char err[256] = "";
    int rc = -2;
    if (strcmp(cmd, "functions") == 0) {
        struct fn_query q = {n ? word : NULL, body};
        rc = tf_tu_foreach(list_functions, &q);
    } else if (strcmp(cmd, "selection") == 0) {
        if (n && strcmp(word, "clear") != 0)
            return tf__cur_fail(c, "selection takes nothing or 'clear'");
        if (n)
            tf_select_reset();
        selection(body);
        rc = 0;
    } else if (strcmp(cmd, "clear") == 0) {
        rc = n ? tf_clear(word) : tf__cur_fail(c, "clear needs a group");
    } else if (strcmp(cmd, "untrigger") == 0) {
        rc = tf__trigger_remove(atoi(word)) == TF_OK ? 0 : tf__cur_fail(c, "no trigger '%s'", word);
    } else if (strcmp(cmd, "report") == 0) {
        rc = tf__action_report(n ? word : NULL, body, err, sizeof err);
    } else if (strcmp(cmd, "snapshot") == 0) {
        rc = tf__action_snapshot(n ? word : NULL, err, sizeof err);
    } else if (strcmp(cmd, "watchdog") == 0) {
        rc = n ? tf__watchdog_control(word, who, body, err, sizeof err)
               : tf__cur_fail(c, "watchdog needs DURATION[,ACTION...] or off");
        c->i = rc && n ? at : c->i; /* an error points at the argument */
    } else if (strcmp(cmd, "budget") == 0) {
        rc = tf__budget_control(n ? word : NULL, who, body, err, sizeof err);
        c->i = rc && n ? at : c->i;
    }
    if (rc == -2)
        return -2;
    if (rc && err[0])
        tf__cur_fail(c, "%s", err);
    return rc ? -1 : 0;
}

static int run(tf_cursor *c, FILE *body, const char *who)
{
    char cmd[32];
    tf__cur_token(c, cmd, sizeof cmd, "");
    tf__cur_ws(c);
    int bare = !c->s[c->i];
    if (strcmp(cmd, "status") == 0 && bare)
        status(body);
    else if (strcmp(cmd, "groups") == 0 && bare)
        groups(body);
    else if (strcmp(cmd, "triggers") == 0 && bare)
        tf__trigger_list(body);
    else if (strcmp(cmd, "heartbeat") == 0 && bare)
        tf__watchdog_heartbeat(body);
    else if (strcmp(cmd, "stacks") == 0 && bare) {
        char err[256];
        c->i = 0; /* an error points at the command */
        if (tf__watchdog_stacks(body, err, sizeof err) != 0)
            return tf__cur_fail(c, "%s", err);
    }
    else if (strcmp(cmd, "help") == 0 && bare)
        fputs(usage, body);
    else {
        int rc = with_rest(cmd, c, body, who);
        if (rc == -2) {
            c->i = 0;
            return tf__cur_fail(c, "unknown command (%s)", "try 'help'");
        }
        return rc;
    }
    return 0;
}

int tf__control_command(const char *line, FILE *out, unsigned peer_uid)
{
    char who[64];
    snprintf(who, sizeof who, "control socket (uid %u)", peer_uid);
    char *text = NULL;
    size_t len = 0;
    FILE *body = open_memstream(&text, &len);
    if (!body) {
        fputs("error: out of memory\n", out);
        return -1;
    }
    tf_cursor c = {.s = line};
    int rc = run(&c, body, who);
    fclose(body);
    if (rc < 0) {
        char shown[64];
        tf__escape(shown, sizeof shown, line + (c.errcol ? c.errcol - 1 : 0));
        fprintf(out, "error: column %zu: %s (at '%s')\n", c.errcol, c.err, shown);
    } else {
        fprintf(out, "ok\n%s", text ? text : "");
    }
    free(text);
    return rc < 0 ? -1 : 0;
}
