/*
 * timing_report.c: the timing report as a text table, JSON or CSV
 * (docs/design.md .timing). All three come from one snapshot of rows.
 *
 * Text answers "where does the time go": the run's wall and CPU time, the
 * hooks' estimated share, the top points by self time; then timing points
 * grouped by timer group, groups and points by their self time, one unit per
 * column; then the group tree (the registry's graph, read once per report)
 * with self time including subgroups. JSON carries every statistic
 * of every timing point (units in the names: *_ns, plus "units"), the clock,
 * the overhead subtracted and the group tree. CSV is one row per timing point.
 * tf_timing_report is here, above the manager, so the manager never calls
 * up into its reports; it hands the Chrome trace to timing_trace.c.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timing_internal.h"

#define TOP_N 10

typedef struct row {
    const tt_timer *t;
    tf_timing_stats s;
} row;

typedef struct snapshot {
    row *rows;
    uint32_t n;
    double *group_self; /* direct, per group */
    tt_group_list *subs; /* per group, from the registry's graph */
    uint64_t unmatched, abandoned;
    tf_timing_clock_info clock;
    double self_all;        /* every timed moment once: the base of the percentages */
    uint64_t calls;
    double hooks, hooks_in_self; /* estimated hook cost, and the part inside self times */
    double wall_ns, cpu_ns; /* < 0: not known (an injected clock) */
} snapshot;

static int by_self(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->s.self_ns != y->s.self_ns)
        return x->s.self_ns < y->s.self_ns ? 1 : -1;
    return strcmp(x->t->full, y->t->full);
}

/* The hooks' estimated cost in r's calls: the measured overhead per call. */
static double row_hooks(const snapshot *sn, const row *r)
{
    return (double)r->s.count * sn->clock.overhead_ns;
}

/* Self time per call at or below the overhead: mostly the hooks' own cost. */
static int at_floor(const snapshot *sn, const row *r)
{
    return sn->clock.overhead_ns > 0 && r->s.count &&
           r->s.self_ns <= row_hooks(sn, r);
}

/* The estimated share of r's self time that is the hooks', capped at all of it. */
static double hooks_pct(const snapshot *sn, const row *r)
{
    if (at_floor(sn, r))
        return 100;
    return r->s.self_ns > 0 ? 100 * row_hooks(sn, r) / r->s.self_ns : 0;
}

static double self_pct(const snapshot *sn, const row *r)
{
    return sn->self_all > 0 ? 100 * r->s.self_ns / sn->self_all : 0;
}

/* Wall time since the manager began and the process's CPU time, with a real
 * clock; an injected one (tf-dump's replay, tests) has no run to measure. */
static void run_times(tt_manager *m, snapshot *sn)
{
    struct timespec ts;
    sn->wall_ns = sn->cpu_ns = -1;
    if (m->clock.kind == TT_CLOCK_INJECTED)
        return;
    sn->wall_ns = tt_ticks_to_ns(m, (double)(tt_now(&m->clock) - m->epoch));
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
        sn->cpu_ns = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void snapshot_totals(tt_manager *m, snapshot *sn)
{
    for (uint32_t i = 0; i < sn->n; i++) {
        const row *r = &sn->rows[i];
        double h = row_hooks(sn, r);
        sn->self_all += r->s.self_ns;
        sn->calls += r->s.count;
        sn->hooks += h;
        sn->hooks_in_self += h < r->s.self_ns ? h : r->s.self_ns;
    }
    run_times(m, sn);
}

static void snapshot_free(snapshot *sn, int ngroups)
{
    for (int g = 0; sn->subs && g < ngroups; g++)
        free(sn->subs[g].v);
    free(sn->subs);
    free(sn->rows);
    free(sn->group_self);
}

/* The group tree as the registry has it now, among the manager's groups. */
static int snapshot_groups(tt_manager *m, snapshot *sn)
{
    sn->subs = calloc(m->ngroups ? (size_t)m->ngroups : 1, sizeof *sn->subs);
    int rc = sn->subs ? TF_OK : TF_ENOMEM;
    for (int g = 0; g < m->ngroups && rc == TF_OK; g++)
        rc = tt_group_subs(m, g, &sn->subs[g]);
    return rc;
}

static int snapshot_take(tt_manager *m, snapshot *sn)
{
    memset(sn, 0, sizeof *sn);
    if (snapshot_groups(m, sn) != TF_OK) {
        snapshot_free(sn, m->ngroups);
        return TF_ENOMEM;
    }
    tt_sum *sum = malloc(sizeof *sum);
    sn->rows = calloc(m->ntimers ? m->ntimers : 1, sizeof *sn->rows);
    sn->group_self = calloc(m->ngroups ? (size_t)m->ngroups : 1, sizeof *sn->group_self);
    if (!sum || !sn->rows || !sn->group_self) {
        free(sum);
        snapshot_free(sn, m->ngroups);
        return TF_ENOMEM;
    }
    for (uint32_t i = 0; i < m->ntimers; i++) {
        row *r = &sn->rows[sn->n++];
        r->t = tt_timer_at(m, i);
        tt_summarize(m, i, sum);
        tt_sum_fill(sum, m->clock.ticks_per_second, &r->s);
        sn->unmatched += r->s.unmatched_exits;
        sn->abandoned += r->s.abandoned;
        if (r->t->group >= 0)
            sn->group_self[r->t->group] += r->s.self_ns;
    }
    free(sum);
    qsort(sn->rows, sn->n, sizeof *sn->rows, by_self);
    /* m->lock is held; tf_timing_clock takes no lock. */
    tf_timing_clock((tf_timing_manager *)m, &sn->clock);
    snapshot_totals(m, sn);
    return TF_OK;
}

static const char *group_name(tt_manager *m, const tt_timer *t)
{
    return t->group >= 0 ? m->groups[t->group].name : NULL;
}

/* Self time of g and every group below it, each counted once. */
static double group_self_below(tt_manager *m, const snapshot *sn, int g, char *seen)
{
    if (seen[g])
        return 0;
    seen[g] = 1;
    double total = sn->group_self[g];
    for (int i = 0; i < sn->subs[g].n; i++)
        total += group_self_below(m, sn, sn->subs[g].v[i], seen);
    return total;
}

static double group_inclusive(tt_manager *m, const snapshot *sn, int g)
{
    char *seen = calloc((size_t)m->ngroups, 1);
    double v = seen ? group_self_below(m, sn, g, seen) : sn->group_self[g];
    free(seen);
    return v;
}

static int is_root(tt_manager *m, const snapshot *sn, int g)
{
    for (int p = 0; p < m->ngroups; p++)
        for (int i = 0; i < sn->subs[p].n; i++)
            if (sn->subs[p].v[i] == g)
                return 0;
    return 1;
}

/* ---- text ------------------------------------------------------------------ */

static const char *human(char *buf, size_t len, double ns)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.1f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.1f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.2f s", ns / 1e9);
    return buf;
}

/* The table's time columns; each has one unit, from its largest value. */
static const struct column {
    const char *name;
    size_t off;
} columns[] = {
    {"self", offsetof(tf_timing_stats, self_ns)},     {"total", offsetof(tf_timing_stats, total_ns)},
    {"mean", offsetof(tf_timing_stats, mean_ns)},     {"min", offsetof(tf_timing_stats, min_ns)},
    {"max", offsetof(tf_timing_stats, max_ns)},       {"stddev", offsetof(tf_timing_stats, stddev_ns)},
    {"p50", offsetof(tf_timing_stats, p50_ns)},       {"p90", offsetof(tf_timing_stats, p90_ns)},
    {"p99", offsetof(tf_timing_stats, p99_ns)},
};
#define NCOLUMNS (sizeof columns / sizeof *columns)

typedef struct unit {
    const char *name;
    double ns;
    int decimals; /* down to a nanosecond */
} unit;

static const unit units[] = {{"ns", 1, 0}, {"us", 1e3, 3}, {"ms", 1e6, 6}, {"s", 1e9, 9}};

typedef struct col_fmt { /* a column's unit and its decimals (fewer if they do not fit) */
    const unit *u;
    int decimals;
} col_fmt;

static double column_value(const row *r, size_t c)
{
    return *(const double *)(const void *)((const char *)&r->s + columns[c].off);
}

static int shown(const row *r)
{
    return r->s.count || r->s.unmatched_exits;
}

/* One unit per column, from its largest value, so that small values keep their
 * nanoseconds as decimals where the column (two spaces apart) allows. */
static void choose_units(const snapshot *sn, col_fmt out[NCOLUMNS])
{
    for (size_t c = 0; c < NCOLUMNS; c++) {
        double max = 0;
        for (uint32_t i = 0; i < sn->n; i++)
            if (shown(&sn->rows[i]) && column_value(&sn->rows[i], c) > max)
                max = column_value(&sn->rows[i], c);
        int u = max < 1e3 ? 0 : max < 1e6 ? 1 : max < 1e9 ? 2 : 3;
        int digits = snprintf(NULL, 0, "%.0f", max / units[u].ns);
        out[c].u = &units[u];
        out[c].decimals = units[u].decimals < 8 - digits ? units[u].decimals : 8 - digits;
        out[c].decimals = out[c].decimals > 0 ? out[c].decimals : 0;
    }
}

static void text_header(FILE *out, col_fmt u[NCOLUMNS])
{
    char b[32];
    fprintf(out, "  %-32s %9s %6s", "timing point", "calls", "self%");
    for (size_t c = 0; c < NCOLUMNS; c++) {
        snprintf(b, sizeof b, "%s %s", columns[c].name, u[c].u->name);
        fprintf(out, " %10s", b);
    }
    fputs(" hooks%\n", out);
}

static void text_row(FILE *out, const snapshot *sn, const row *r, col_fmt u[NCOLUMNS])
{
    const tf_timing_stats *s = &r->s;
    fprintf(out, "  %-32s %9" PRIu64 " %6.1f", r->t->full, s->count, self_pct(sn, r));
    for (size_t c = 0; c < NCOLUMNS; c++)
        fprintf(out, " %10.*f", u[c].decimals, column_value(r, c) / u[c].u->ns);
    if (sn->clock.overhead_ns > 0)
        fprintf(out, " %6.1f%s", hooks_pct(sn, r), at_floor(sn, r) ? " *" : "");
    else
        fputs("      -", out);
    if (s->unwinds || s->longjmps || s->unmatched_exits || s->abandoned)
        fprintf(out, "  (unwinds %" PRIu64 ", longjmps %" PRIu64 ", unmatched exits %" PRIu64
                     ", abandoned %" PRIu64 ")",
                s->unwinds, s->longjmps, s->unmatched_exits, s->abandoned);
    fputc('\n', out);
}

static void text_group(tt_manager *m, FILE *out, const snapshot *sn, int g, col_fmt u[NCOLUMNS])
{
    int n = 0;
    char b[32];
    for (uint32_t i = 0; i < sn->n; i++) {
        const row *r = &sn->rows[i];
        if (r->t->group != g || !shown(r))
            continue;
        if (!n++) {
            if (g < 0) {
                fputs("\ninfo timing points never entered from a group\n", out);
            } else {
                const tt_group *gr = &m->groups[g];
                fprintf(out, "\ngroup %s: self %s%s", gr->name, human(b, sizeof b, sn->group_self[g]),
                        gr->blocked ? " (disabled)" : "");
                for (int k = 0; k < sn->subs[g].n; k++)
                    fprintf(out, "%s%s", k ? ", " : "; contains ",
                            m->groups[sn->subs[g].v[k]].name);
                fputc('\n', out);
            }
            text_header(out, u);
        }
        text_row(out, sn, r, u);
    }
}

static void text_tree(tt_manager *m, FILE *out, const snapshot *sn, int g, int depth, double all)
{
    char b[32];
    if (depth > 32)
        return;
    double v = group_inclusive(m, sn, g);
    fprintf(out, "  %*s%-*s %10s %5.1f%%\n", 2 * depth, "", 30 - 2 * depth, m->groups[g].name,
            human(b, sizeof b, v), all > 0 ? 100 * v / all : 0.0);
    for (int i = 0; i < sn->subs[g].n; i++)
        text_tree(m, out, sn, sn->subs[g].v[i], depth + 1, all);
}

/* The run's times, the hooks' share and the top points: the answer first. */
static void text_summary(FILE *out, const snapshot *sn)
{
    char b[3][32];
    if (sn->wall_ns >= 0)
        fprintf(out, "run: wall %s, process CPU %s (all threads; wall time includes waiting and "
                     "preemption)\n",
                human(b[0], 32, sn->wall_ns), sn->cpu_ns >= 0 ? human(b[1], 32, sn->cpu_ns) : "?");
    fprintf(out, "self times exclude %s of measured hook overhead per nested timed call\n",
            human(b[0], 32, sn->clock.overhead_ns));
    if (sn->clock.overhead_ns > 0)
        fprintf(out, "hooks: est. %s in %" PRIu64 " timed calls at %s each; %s of it, %.1f%% of "
                     "the measured self time, is inside the self times below\n",
                human(b[0], 32, sn->hooks), sn->calls, human(b[1], 32, sn->clock.overhead_ns),
                human(b[2], 32, sn->hooks_in_self),
                sn->self_all > 0 ? 100 * sn->hooks_in_self / sn->self_all : 0.0);
    else
        fprintf(out, "hooks: no overhead measured (the clock is %s: times given, not read), so no "
                     "estimate of their share\n", sn->clock.source);
    uint32_t n = 0;
    double top = 0;
    while (n < sn->n && n < TOP_N && sn->rows[n].s.count)
        top += sn->rows[n++].s.self_ns;
    fprintf(out, "top %u by self time: %.1f%% of the measured self time (%s of %s)\n", n,
            sn->self_all > 0 ? 100 * top / sn->self_all : 0.0, human(b[0], 32, top),
            human(b[1], 32, sn->self_all));
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "  %-32s %5.1f%%%s\n", sn->rows[i].t->full, self_pct(sn, &sn->rows[i]),
                at_floor(sn, &sn->rows[i]) ? " *" : "");
    fputs("self%: share of the measured self time (the sum of all self times, each timed moment "
          "once); hooks%: estimated share of a point's self time that is the hooks' own cost\n",
          out);
    if (sn->clock.overhead_ns > 0)
        fprintf(out, "*: self time per call at or below the hook overhead (%s), so its numbers "
                     "are mostly the hooks' own cost\n",
                human(b[0], 32, sn->clock.overhead_ns));
}

/* ---- call sites under their callers (docs/design.md .call.time) ----------- */

typedef struct edge_row {
    uint32_t caller, callee;
    tt_sum sum;
    tf_timing_stats s;
} edge_row;

typedef struct edge_list {
    edge_row *v;
    size_t n, cap;
    int failed;
} edge_list;

static void add_edge(uint32_t caller, uint32_t callee, const tt_stats *st, void *arg)
{
    edge_list *l = arg;
    size_t i = 0;
    while (i < l->n && (l->v[i].caller != caller || l->v[i].callee != callee))
        i++;
    if (i == l->n) {
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 16;
            edge_row *v = realloc(l->v, cap * sizeof *v);
            if (!v) {
                l->failed = 1;
                return;
            }
            l->v = v, l->cap = cap;
        }
        memset(&l->v[l->n], 0, sizeof *l->v);
        l->v[l->n].caller = caller;
        l->v[l->n].callee = callee;
        tt_sum_init(&l->v[l->n++].sum);
    }
    tt_sum_add(&l->v[i].sum, st);
}

static int by_caller(const void *a, const void *b, void *arg)
{
    tt_manager *m = arg;
    const edge_row *x = a, *y = b;
    int c = strcmp(tt_timer_at(m, x->caller)->full, tt_timer_at(m, y->caller)->full);
    if (c)
        return c;
    if (x->s.self_ns != y->s.self_ns)
        return x->s.self_ns < y->s.self_ns ? 1 : -1;
    return strcmp(tt_timer_at(m, x->callee)->full, tt_timer_at(m, y->callee)->full);
}

/* Every edge merged over threads, by caller, then by self time; lock held. */
static edge_list edges_take(tt_manager *m)
{
    edge_list l = {0};
    tt_foreach_edge(m, add_edge, &l);
    for (size_t i = 0; i < l.n; i++) {
        tt_sum_done(&l.v[i].sum);
        tt_sum_fill(&l.v[i].sum, m->clock.ticks_per_second, &l.v[i].s);
    }
    if (l.n) /* l.v is NULL without edges, which qsort_r may not be given */
        qsort_r(l.v, l.n, sizeof *l.v, by_caller, m);
    return l;
}

static void text_calls(tt_manager *m, FILE *out)
{
    edge_list l = edges_take(m);
    char b[4][32];
    for (size_t i = 0; i < l.n; i++) {
        const edge_row *e = &l.v[i];
        if (!e->s.count)
            continue;
        if (i == 0 || e->caller != l.v[i - 1].caller)
            fprintf(out, "%s  %s\n", i ? "" : "\ncall sites under the functions that made the calls\n",
                    tt_timer_at(m, e->caller)->full);
        fprintf(out, "    %-30s %9" PRIu64 " calls  total %s  self %s  mean %s  max %s\n",
                tt_timer_at(m, e->callee)->full, e->s.count, human(b[0], 32, e->s.total_ns),
                human(b[1], 32, e->s.self_ns), human(b[2], 32, e->s.mean_ns), human(b[3], 32, e->s.max_ns));
    }
    if (l.failed)
        fputs("  (out of memory: some call sites are missing)\n", out);
    free(l.v);
}

static void json_calls(tt_manager *m, FILE *out)
{
    edge_list l = edges_take(m);
    fputs(",\n  \"calls\": [", out);
    for (size_t i = 0, k = 0; i < l.n; i++) {
        const edge_row *e = &l.v[i];
        if (!e->s.count)
            continue;
        fputs(k++ ? ",\n    {\"caller\": " : "\n    {\"caller\": ", out);
        tt_json_string(out, tt_timer_at(m, e->caller)->full);
        fputs(", \"callee\": ", out);
        tt_json_string(out, tt_timer_at(m, e->callee)->full);
        fprintf(out, ", \"count\": %" PRIu64 ", \"total_ns\": %.1f, \"self_ns\": %.1f, \"mean_ns\": %.1f"
                     ", \"min_ns\": %.1f, \"max_ns\": %.1f}",
                e->s.count, e->s.total_ns, e->s.self_ns, e->s.mean_ns, e->s.min_ns, e->s.max_ns);
    }
    fputs(l.n ? "\n  ]" : "]", out);
    free(l.v);
}

static void write_text(tt_manager *m, FILE *out, const snapshot *sn)
{
    uint32_t used = 0;
    for (uint32_t i = 0; i < sn->n; i++)
        used += sn->rows[i].s.count != 0;
    fprintf(out, "TF timing report: %u of %u timing points entered, %d thread%s\n", used, sn->n,
            tt_threads_seen(m), tt_threads_seen(m) == 1 ? "" : "s");
    if (sn->clock.read_ns > 0) {
        fprintf(out, "clock: %s, %.4g ticks/s, %.1f ns per read", sn->clock.source,
                sn->clock.ticks_per_second, sn->clock.read_ns);
        fprintf(out, " (rdtsc %.1f ns, clock_gettime %.1f ns)\n", sn->clock.tsc_read_ns,
                sn->clock.monotonic_read_ns);
    } else { /* an injected clock is never read here: no cost to show */
        fprintf(out, "clock: %s, %.4g ticks/s\n", sn->clock.source, sn->clock.ticks_per_second);
    }
    if (sn->unmatched || sn->abandoned || tt_lost_frames(m))
        fprintf(out, "anomalies: %" PRIu64 " unmatched exits, %" PRIu64 " abandoned entries, %" PRIu64
                     " entries lost (out of memory)\n",
                sn->unmatched, sn->abandoned, tt_lost_frames(m));
    text_summary(out, sn);
    col_fmt u[NCOLUMNS];
    choose_units(sn, u);
    /* Groups by self time, largest first. */
    int *order = malloc(((size_t)m->ngroups + 1) * sizeof *order), n = 0;
    for (int g = 0; order && g < m->ngroups; g++) {
        int k = n++;
        while (k > 0 && sn->group_self[order[k - 1]] < sn->group_self[g]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = g;
    }
    for (int k = 0; k < n; k++)
        text_group(m, out, sn, order[k], u);
    text_group(m, out, sn, -1, u);
    free(order);
    fputs("\ngroup tree (self time including subgroups, share of all timed time)\n", out);
    for (int g = 0; g < m->ngroups; g++)
        if (is_root(m, sn, g))
            text_tree(m, out, sn, g, 0, sn->self_all);
    text_calls(m, out);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_timer(tt_manager *m, FILE *out, const snapshot *sn, const row *r)
{
    const tt_timer *t = r->t;
    const tf_timing_stats *s = &r->s;
    fputs("    {\"name\": ", out);
    tt_json_string(out, t->full);
    fputs(", \"tu\": ", out);
    tt_json_string(out, t->tu_name);
    fputs(", \"tu_file\": ", out);
    tt_json_string(out, t->tu_file);
    fputs(", \"function\": ", out);
    tt_json_string(out, t->name);
    fprintf(out, ", \"kind\": \"%s\", \"group\": ",
            (t->flags & TF_NAME_MONITOR) ? "function" : "info_pair");
    if (group_name(m, t))
        tt_json_string(out, group_name(m, t));
    else
        fputs("null", out);
    fputs(", \"file\": ", out);
    tt_json_string(out, t->src_file);
    fprintf(out, ", \"line\": %u, \"enabled\": %s, \"active\": %s,\n", t->line,
            t->enabled ? "true" : "false", TT_LD(t->active) ? "true" : "false");
    fprintf(out,
            "     \"count\": %" PRIu64 ", \"total_ns\": %.3f, \"self_ns\": %.3f, \"min_ns\": %.3f, "
            "\"max_ns\": %.3f, \"mean_ns\": %.3f, \"stddev_ns\": %.3f,\n"
            "     \"p50_ns\": %.3f, \"p90_ns\": %.3f, \"p99_ns\": %.3f, \"unwinds\": %" PRIu64
            ", \"longjmps\": %" PRIu64 ", \"unmatched_exits\": %" PRIu64 ", \"abandoned\": %" PRIu64,
            s->count, s->total_ns, s->self_ns, s->min_ns, s->max_ns, s->mean_ns, s->stddev_ns,
            s->p50_ns, s->p90_ns, s->p99_ns, s->unwinds, s->longjmps, s->unmatched_exits,
            s->abandoned);
    fprintf(out, ",\n     \"self_pct\": %.3f, \"hooks_ns\": %.3f, \"hooks_pct\": %.3f, "
                 "\"at_overhead_floor\": %s}",
            self_pct(sn, r), row_hooks(sn, r), hooks_pct(sn, r), at_floor(sn, r) ? "true" : "false");
}

static void json_tree(tt_manager *m, FILE *out, const snapshot *sn, int g, int depth)
{
    fputs("{\"name\": ", out);
    tt_json_string(out, m->groups[g].name);
    fprintf(out, ", \"self_ns_with_subgroups\": %.3f, \"subgroups\": [",
            group_inclusive(m, sn, g));
    for (int i = 0; depth < 32 && i < sn->subs[g].n; i++) {
        fputs(i ? ", " : "", out);
        json_tree(m, out, sn, sn->subs[g].v[i], depth + 1);
    }
    fputs("]}", out);
}

static void json_group(tt_manager *m, FILE *out, const snapshot *sn, int g)
{
    const tt_group *gr = &m->groups[g];
    fputs("    {\"name\": ", out);
    tt_json_string(out, gr->name);
    fprintf(out, ", \"enabled\": %s, \"active\": %s, \"self_ns\": %.3f, "
                 "\"self_ns_with_subgroups\": %.3f, \"subgroups\": [",
            gr->enabled ? "true" : "false", gr->blocked ? "false" : "true", sn->group_self[g],
            group_inclusive(m, sn, g));
    for (int i = 0; i < sn->subs[g].n; i++) {
        fputs(i ? ", " : "", out);
        tt_json_string(out, m->groups[sn->subs[g].v[i]].name);
    }
    fputs("], \"timers\": [", out);
    int k = 0;
    for (uint32_t i = 0; i < sn->n; i++) {
        if (sn->rows[i].t->group != g)
            continue;
        fputs(k++ ? ", " : "", out);
        tt_json_string(out, sn->rows[i].t->full);
    }
    fputs("]}", out);
}

static void json_number_or_null(FILE *out, const char *key, double v)
{
    if (v >= 0)
        fprintf(out, "\"%s\": %.3f", key, v);
    else
        fprintf(out, "\"%s\": null", key);
}

/* What the text report's summary says; timers are sorted by self time. */
static void json_summary(FILE *out, const snapshot *sn)
{
    uint32_t n = 0;
    double top = 0;
    while (n < sn->n && n < TOP_N && sn->rows[n].s.count)
        top += sn->rows[n++].s.self_ns;
    fputs("  \"summary\": {\"percent_of\": \"self_ns_total\", ", out);
    json_number_or_null(out, "wall_ns", sn->wall_ns);
    fputs(", ", out);
    json_number_or_null(out, "cpu_ns", sn->cpu_ns);
    fprintf(out, ",\n    \"self_ns_total\": %.3f, \"calls\": %" PRIu64 ", \"hooks_ns\": %.3f, "
                 "\"hooks_in_self_ns\": %.3f, \"hooks_pct\": %.3f, \"top_n\": %u, "
                 "\"top_self_pct\": %.3f},\n",
            sn->self_all, sn->calls, sn->hooks, sn->hooks_in_self,
            sn->self_all > 0 ? 100 * sn->hooks_in_self / sn->self_all : 0.0, n,
            sn->self_all > 0 ? 100 * top / sn->self_all : 0.0);
}

static void write_json(tt_manager *m, FILE *out, const snapshot *sn)
{
    const tf_timing_clock_info *c = &sn->clock;
    fputs("{\n  \"format\": \"tf-timing-report\", \"version\": 1,\n", out);
    fputs("  \"units\": {\"time\": \"ns\", \"count\": \"calls\"},\n", out);
    fprintf(out, "  \"clock\": {\"source\": \"%s\", \"ticks_per_second\": %.1f, \"read_ns\": %.3f, "
                 "\"tsc_read_ns\": %.3f, \"monotonic_read_ns\": %.3f, \"tsc_invariant\": %s},\n",
            c->source, c->ticks_per_second, c->read_ns, c->tsc_read_ns, c->monotonic_read_ns,
            c->tsc_invariant ? "true" : "false");
    fprintf(out, "  \"overhead\": {\"subtracted_from_self\": %s, \"per_nested_call_ns\": %.3f, "
                 "\"note\": \"self_ns excludes this much per nested timed call: the hooks' cost "
                 "outside the child's own interval\"},\n",
            c->overhead_ns > 0 ? "true" : "false", c->overhead_ns);
    fprintf(out, "  \"threads\": %d,\n", tt_threads_seen(m));
    json_summary(out, sn);
    fprintf(out, "  \"anomalies\": {\"unmatched_exits\": %" PRIu64 ", \"abandoned\": %" PRIu64
                 ", \"lost_frames\": %" PRIu64 "},\n",
            sn->unmatched, sn->abandoned, tt_lost_frames(m));
    fputs("  \"timers\": [\n", out);
    for (uint32_t i = 0; i < sn->n; i++) {
        fputs(i ? ",\n" : "", out);
        json_timer(m, out, sn, &sn->rows[i]);
    }
    fputs("\n  ],\n  \"groups\": [\n", out);
    for (int g = 0; g < m->ngroups; g++) {
        fputs(g ? ",\n" : "", out);
        json_group(m, out, sn, g);
    }
    fputs("\n  ],\n  \"group_tree\": [", out);
    int k = 0;
    for (int g = 0; g < m->ngroups; g++) {
        if (!is_root(m, sn, g))
            continue;
        fputs(k++ ? ",\n    " : "\n    ", out);
        json_tree(m, out, sn, g, 0);
    }
    fputs("\n  ]", out);
    json_calls(m, out);
    fputs("\n}\n", out);
}

/* ---- CSV ------------------------------------------------------------------- */

static void csv_field(FILE *out, const char *s)
{
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void write_csv(tt_manager *m, FILE *out, const snapshot *sn)
{
    fputs("timer,tu,function,kind,group,count,total_ns,self_ns,min_ns,max_ns,mean_ns,"
          "stddev_ns,p50_ns,p90_ns,p99_ns,unwinds,longjmps,unmatched_exits,abandoned,enabled,"
          "active,self_pct,hooks_ns,hooks_pct,at_overhead_floor\n",
          out);
    for (uint32_t i = 0; i < sn->n; i++) {
        const row *r = &sn->rows[i];
        const tf_timing_stats *s = &r->s;
        csv_field(out, r->t->full);
        fputc(',', out);
        csv_field(out, r->t->tu_name);
        fputc(',', out);
        csv_field(out, r->t->name);
        fputs((r->t->flags & TF_NAME_MONITOR) ? ",function," : ",info_pair,", out);
        csv_field(out, group_name(m, r->t));
        fprintf(out,
                ",%" PRIu64 ",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%" PRIu64 ",%" PRIu64
                ",%" PRIu64 ",%" PRIu64 ",%d,%d,%.3f,%.3f,%.3f,%d\n",
                s->count, s->total_ns, s->self_ns, s->min_ns, s->max_ns, s->mean_ns, s->stddev_ns,
                s->p50_ns, s->p90_ns, s->p99_ns, s->unwinds, s->longjmps, s->unmatched_exits,
                s->abandoned, r->t->enabled, TT_LD(r->t->active), self_pct(sn, r),
                row_hooks(sn, r), hooks_pct(sn, r), at_floor(sn, r));
    }
}

static int write_report(tt_manager *m, FILE *out, tf_timing_format format)
{
    snapshot sn;
    int rc = snapshot_take(m, &sn);
    if (rc != TF_OK)
        return rc;
    if (format == TF_TIMING_JSON)
        write_json(m, out, &sn);
    else if (format == TF_TIMING_CSV)
        write_csv(m, out, &sn);
    else
        write_text(m, out, &sn);
    snapshot_free(&sn, m->ngroups);
    return ferror(out) ? TF_EINVAL : TF_OK;
}

/* ---- public API ------------------------------------------------------------ */

TF_API int tf_timing_report(tf_timing_manager *tm, FILE *out, tf_timing_format format)
{
    tt_manager *m = (tt_manager *)tm;
    if (!m || !out || format < TF_TIMING_TEXT || format > TF_TIMING_CHROME_TRACE)
        return TF_EINVAL;
    tt_clock_rate(&m->clock);
    tf__lock(&m->lock);
    /* TUs registered since may have put groups of ours inside others */
    tt_group_add_below(m);
    tt_recompute_active(m);
    fenv_t fp;
    tf__fp_enter(&fp); /* at exit or from a trigger: a program's thread (.fid.fenv) */
    int rc = format == TF_TIMING_CHROME_TRACE ? tt_write_chrome_trace(m, out)
                                              : write_report(m, out, format);
    tf__fp_leave(&fp);
    tf__unlock(&m->lock);
    fflush(out);
    return rc;
}
