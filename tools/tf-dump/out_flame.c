/*
 * out_flame.c: a self-contained SVG flame graph (the layout Brendan Gregg
 * introduced): one box per call stack, the root at the bottom, each box as
 * wide as the inclusive time spent in that stack, summed over all threads
 * (or those --thread chose: the title says which);
 * siblings in name order, so equal stacks always line up. Hovering a box
 * shows its function, time and share (<title>); no scripts, no styles from
 * elsewhere.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stacks.h"

#define WIDTH 1200.0
#define ROW 17
#define TOP 44
#define CHAR_PX 7.2 /* 12px monospace */

typedef struct node {
    char *name;
    uint64_t total;
    struct node *kids, *next;
} node;

struct flame {
    td_output base;
    FILE *out;
    char *which;           /* the threads, as the title names them */
    td_threads threads;
    node root;
};

static node *child(node *parent, const char *name)
{
    for (node *k = parent->kids; k; k = k->next)
        if (strcmp(k->name, name) == 0)
            return k;
    node *k = calloc(1, sizeof *k);
    if (!k || !(k->name = strdup(name))) {
        free(k);
        return NULL;
    }
    k->next = parent->kids;
    parent->kids = k;
    return k;
}

static void close_top(td_thread *t, int64_t ns)
{
    td_frame f = td_pop(t);
    node *n = f.node;
    if (n && ns > f.start)
        n->total += (uint64_t)(ns - f.start);
    free(f.func);
}

static int f_event(void *self, const td_event *e)
{
    struct flame *fl = self;
    td_thread *t = td_thread_of(&fl->threads, e);
    if (!t) {
        fputs("tf-dump: out of memory\n", stderr);
        return 1;
    }
    t->last = e->ns;
    if (e->kind == TD_ENTER) {
        node *parent = t->depth ? t->stack[t->depth - 1].node : &fl->root;
        td_frame *f = td_push(t, e->func, e->ns);
        if (!f || !(f->node = child(parent ? parent : &fl->root, e->func))) {
            fputs("tf-dump: out of memory\n", stderr);
            return 1;
        }
    } else if (e->kind == TD_EXIT) {
        uint32_t at = td_find(t, e->func);
        if (!at)
            fl->threads.unmatched++;
        while (at && t->depth >= at)
            close_top(t, e->ns);
    }
    return 0;
}

static void human(char *buf, size_t len, double ns)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    int u = 0;
    while (ns >= 1000 && u < 3) {
        ns /= 1000;
        u++;
    }
    snprintf(buf, len, "%.*f %s", u ? 2 : 0, ns, units[u]);
}

/* The "hot" palette: reds to yellows, the same colour for the same name. */
static void colour(char *buf, size_t len, const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    snprintf(buf, len, "rgb(%u,%u,%u)", 205 + (h & 0xff) * 50 / 255,
             (h >> 8 & 0xff) * 200 / 255, (h >> 16 & 0xff) * 55 / 255);
}

static int max_depth(const node *n)
{
    int d = 0;
    for (const node *k = n->kids; k; k = k->next) {
        int kd = 1 + max_depth(k);
        d = kd > d ? kd : d;
    }
    return d;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(node *const *)a)->name, (*(node *const *)b)->name);
}

static void sort_kids(node *n)
{
    size_t count = 0;
    for (node *k = n->kids; k; k = k->next)
        count++;
    node **v = count ? malloc(count * sizeof *v) : NULL;
    if (!v)
        return; /* out of memory or no children: the order stays as it is */
    size_t i = 0;
    for (node *k = n->kids; k; k = k->next)
        v[i++] = k;
    qsort(v, count, sizeof *v, by_name);
    for (i = 0; i < count; i++)
        v[i]->next = i + 1 < count ? v[i + 1] : NULL;
    n->kids = v[0];
    free(v);
}

static void box(FILE *out, const node *n, double x, double w, int y, double all)
{
    char t[32], fill[32];
    human(t, sizeof t, (double)n->total);
    colour(fill, sizeof fill, n->name);
    fputs("<g><title>", out);
    td_xml_text(out, n->name);
    fprintf(out, " (%s, %.2f%%)</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
            "fill=\"%s\" rx=\"2\"/>", t, all > 0 ? 100.0 * (double)n->total / all : 100.0, x, y, w,
            ROW - 1, fill);
    size_t fit = (size_t)((w - 6) / CHAR_PX);
    if (fit >= 3) {
        fprintf(out, "<text x=\"%.2f\" y=\"%d\">", x + 3, y + ROW - 5);
        size_t len = strlen(n->name);
        char *label = strndup(n->name, fit < len ? fit - 2 : len);
        td_xml_text(out, label ? label : "");
        fputs(fit < len ? "..</text>" : "</text>", out);
        free(label);
    }
    fputs("</g>\n", out);
}

static void draw(FILE *out, node *n, double x, int depth, int height, double scale, double all)
{
    double w = (double)n->total * scale;
    if (w < 0.1)
        return; /* narrower than a tenth of a pixel: invisible anyway */
    box(out, n, x, w, height - (depth + 1) * ROW, all);
    sort_kids(n);
    for (node *k = n->kids; k; k = k->next) {
        draw(out, k, x, depth + 1, height, scale, all);
        x += (double)k->total * scale;
    }
}

static void free_tree(node *n)
{
    while (n->kids) {
        node *k = n->kids;
        n->kids = k->next;
        free_tree(k);
        free(k->name);
        free(k);
    }
}

static int f_finish(void *self)
{
    struct flame *fl = self;
    for (uint32_t i = 0; i < fl->threads.n; i++)
        while (fl->threads.all[i]->depth)
            close_top(fl->threads.all[i], fl->threads.all[i]->last);
    fl->root.total = 0;
    for (node *k = fl->root.kids; k; k = k->next)
        fl->root.total += k->total;
    int height = TOP + (max_depth(&fl->root) + 1) * ROW + 10;
    FILE *out = fl->out;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"monospace\" "
            "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
            "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"17\">Flame graph: inclusive "
            "time by call stack, ",
            (int)WIDTH + 20, height, (int)WIDTH + 20, height, (int)WIDTH / 2 + 10);
    td_xml_text(out, fl->which);
    fputs(" (hover for totals)</text>\n", out);
    double all = (double)fl->root.total;
    draw(out, &fl->root, 10, 0, height - 10, all > 0 ? WIDTH / all : 0, all);
    fputs("</svg>\n", out);
    td_threads_note(&fl->threads, "flamegraph");
    td_threads_free(&fl->threads);
    free_tree(&fl->root);
    free(fl->which);
    return fflush(out) != 0 || ferror(out);
}

td_output *td_flame_new(FILE *out)
{
    return td_flame_for(out, "all threads");
}

td_output *td_flame_for(FILE *out, const char *threads)
{
    struct flame *fl = calloc(1, sizeof *fl);
    if (!fl || !(fl->which = strdup(threads))) {
        free(fl);
        return NULL;
    }
    fl->base = (td_output){fl, f_event, f_finish, NULL}; /* counters are no calls */
    fl->out = out;
    fl->root.name = "all";
    return &fl->base;
}
