/*
 * commands.c: what the control socket answers (tf-ctl PID COMMAND). The
 * answer is text: "ok" or "error: ..." on the first line, then the output.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"

/* Every group name once (a listing of all groups: no count is a limit). */
struct names {
    const char **v;
    int n, cap;
    int failed; /* out of memory: the listing says so */
};

static void add_name(struct names *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        const char **v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v) {
            s->failed = 1;
            return;
        }
        s->v = v;
        s->cap = cap;
    }
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

static void subgroups(FILE *out, const char *group)
{
    const char *some[64], **subs = some;
    int n = tf_group_subgroups(group, some, 64);
    if (n > 64 && (subs = malloc((size_t)n * sizeof *subs)))
        n = tf_group_subgroups(group, subs, n); /* edges are only added: n is still enough */
    for (int k = 0; k < n && (subs != some || k < 64) && subs; k++)
        fprintf(out, "%s%s", k ? " " : "\tsubgroups: ", subs[k]);
    if (!subs)
        fputs("\tsubgroups: (out of memory)", out);
    if (subs != some)
        free(subs);
}

static void groups(FILE *out)
{
    struct names s = {0};
    tf_tu_foreach(collect_groups, &s);
    if (s.n)
        qsort(s.v, (size_t)s.n, sizeof s.v[0], by_name);
    for (int i = 0; i < s.n; i++) {
        tf_factory *f = tf_registered_factory(s.v[i]);
        fprintf(out, "%s\t%s", s.v[i], f ? (f->name ? f->name : "?") : "-");
        subgroups(out, s.v[i]);
        fputc('\n', out);
    }
    if (s.failed)
        fputs("(out of memory: not every group is listed)\n", out);
    free(s.v);
}

static int glob_matches(const char *glob, const tf_tu *tu, const char *name)
{
    return !glob || tf__function_matches(glob, tu, name);
}

struct fn_query {
    const char *glob;
    FILE *out;
    int listed;
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
        q->listed++;
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

/* functions GLOB listed nothing: said, with the nearest names. */
static int no_function(tf_cursor *c, const char *glob)
{
    tf_pending *seen = tf__pending_function(glob);
    char hint[160] = "";
    if (seen)
        tf__pending_hint(seen, hint, sizeof hint);
    tf__pending_free(seen);
    char shown[128];
    tf__escape(shown, sizeof shown, glob);
    return tf__cur_fail(c, "no monitored function of the code loaded matches '%s'%s%s", shown,
                        *hint ? "; " : "", hint);
}

/* The first well-formed item of items ("+a,-b*") whose glob matches no
 * monitored function of the code loaded, said in c; 0 when there is none
 * (or a malformed item, which tf__select says). */
static int unmatched_item(tf_cursor *c, const char *items)
{
    int index = 0, malformed = 0, rc = 0;
    for (const char *p = items; *p && !rc; p += *p == ',') {
        size_t n = strcspn(p, ","), skip = strspn(p, " \t");
        char *item = strndup(p + skip, n > skip ? n - skip : 0);
        p += n;
        index++;
        if (!item)
            return tf__cur_fail(c, "out of memory");
        for (size_t k = strlen(item); k && (item[k - 1] == ' ' || item[k - 1] == '\t');)
            item[--k] = 0;
        const char *glob = item + (*item == '+' || *item == '-');
        tf_pending *seen = !*glob || tf__glob_problem(glob, strlen(glob)) ? NULL
                                                                          : tf__pending_function(glob);
        malformed |= !seen;
        if (seen && !tf__pending_matched(seen)) {
            char shown[128], hint[160];
            tf__escape(shown, sizeof shown, item);
            tf__pending_hint(seen, hint, sizeof hint);
            rc = tf__cur_fail(c, "item %d '%s' matches no monitored function of the code loaded; "
                                 "nothing changed%s%s", index, shown, *hint ? "; " : "", hint);
        }
        tf__pending_free(seen);
        free(item);
    }
    return malformed ? 0 : rc;
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
    if (unmatched_item(c, items ? items : rest) < 0) {
        free(items);
        return -1;
    }
    int rc = tf__select(items ? items : rest, TF__SELECT_CALL, note_bad, &b);
    free(items);
    if (b.why)
        return tf__cur_fail(c, "item %d '%s': %s; nothing changed", b.index, b.item, b.why);
    if (rc != TF_OK)
        return tf__cur_fail(c, "out of memory");
    selection(body);
    return 0;
}

/* untrigger N: N as triggers lists it, digits only. */
static int untrigger(tf_cursor *c, const char *word)
{
    char shown[64];
    tf__escape(shown, sizeof shown, word ? word : "");
    if (!word || !*word || strspn(word, "0123456789") != strlen(word) || strlen(word) > 9)
        return tf__cur_fail(c, "untrigger needs a trigger's number as 'triggers' lists it, not '%s'", shown);
    int rc = tf__trigger_remove(atoi(word));
    if (rc == TF_ENOENT)
        return tf__cur_fail(c, "no trigger %s (see 'triggers')", shown);
    return rc == TF_OK ? 0 : tf__cur_fail(c, "out of memory");
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
        int k = tf__trigger_add(c, who, 1, 0);
        if (k > 0)
            fprintf(body, "trigger %d\n", k);
        return k > 0 ? 0 : -1;
    }
    tf__cur_ws(c);
    size_t arg = c->i, word_at = arg;
    size_t n = tf__cur_token(c, word, sizeof word, "");
    tf__cur_ws(c);
    if (c->s[c->i] || n >= sizeof word)
        return tf__cur_fail(c, "unexpected text after the argument");
    c->i = arg; /* a problem with it is shown where it starts */
    char err[TF_FILES_WHY + 320] = "";
    int rc = -2;
    if (strcmp(cmd, "functions") == 0) {
        struct fn_query q = {n ? word : NULL, body, 0};
        rc = tf_tu_foreach(list_functions, &q);
        if (rc == 0 && n && !q.listed) {
            c->i = word_at;
            return no_function(c, word);
        }
    } else if (strcmp(cmd, "selection") == 0) {
        if (n && strcmp(word, "clear") != 0)
            return tf__cur_fail(c, "selection takes nothing or 'clear'");
        if (n)
            tf_select_reset();
        selection(body);
        rc = 0;
    } else if (strcmp(cmd, "clear") == 0) {
        if (n && tf__group_unknown(c, word, word_at, "nothing cleared") < 0)
            return -1;
        rc = n ? tf_clear(word) : tf__cur_fail(c, "clear needs a group");
    } else if (strcmp(cmd, "untrigger") == 0) {
        rc = untrigger(c, n ? word : NULL);
    } else if (strcmp(cmd, "report") == 0) {
        rc = n && strcmp(word, "-") != 0 && tf__control_path_allowed(c, word) != 0
                 ? -1 : tf__action_report(n ? word : NULL, body, err, sizeof err);
    } else if (strcmp(cmd, "snapshot") == 0) {
        rc = n && tf__control_path_allowed(c, word) != 0 ? -1
                                                        : tf__action_snapshot(n ? word : NULL, err, sizeof err);
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

static const char *const commands[] = {"status", "groups", "functions", "register", "clear",
                                       "select", "deselect", "selection", "snapshot", "report",
                                       "trigger", "triggers", "untrigger", "help"};

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
            return tf__cur_fail_word(c, commands, sizeof commands / sizeof commands[0],
                                     "unknown command (try 'help')");
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
        char where[80];
        fprintf(out, "error: column %zu: %s (%s)\n", c.errcol, c.err,
                tf__cur_where(&c, where, sizeof where));
    } else {
        fprintf(out, "ok\n%s", text ? text : "");
    }
    free(text);
    return rc < 0 ? -1 : 0;
}
