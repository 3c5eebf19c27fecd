/*
 * read.c: finds the traces under a path and reads each: TF's own recordings
 * and ring files with tf-dump's own reader (native.c, rings.c), everything
 * else (LTTng sessions, a metadata that reader does not know) through a
 * babeltrace2 graph, source.ctf.fs -> filter.utils.muxer -> our sink, that
 * turns each tf:* event into a td_event (dump.h). --reader=babeltrace2
 * reads TF's CTF traces with babeltrace2 too: the tests' oracle.
 *
 * Field names are those of docs/trace-format.md: `func` (an enumeration of
 * "<tu>.<name>" or a string), one typed field per argument named after the
 * parameter, `result`, `info`, `kind`, `type`; LTTng's factory writes `args`
 * and `result` as text instead. The thread is read from the contexts
 * (vtid/tid, vpid/pid, procname/thread), then from the trace's environment.
 */
#define _GNU_SOURCE
#include <babeltrace2/babeltrace.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dump.h"
#include "fields.h"
#include "native.h"
#include "rings.h"
#include "salvage.h"

/* The probe's patience (see probe): td_probe_stall_s without a message
 * (the fuzz target shortens it), and one second more per PROBE_BYTES_PER_S
 * of input, polled at most PROBE_POLL_MS apart. */
unsigned td_probe_stall_s = 10;
#define PROBE_BYTES_PER_S (16u << 20)
#define PROBE_POLL_MS 50

struct reader {
    td_output *out;
    int failed;            /* an output said stop */
    uint64_t discarded;    /* events the recorder could not keep */
    uint64_t events;
    const bt_stream *last_stream; /* where the latest packet began */
    uint64_t packets;             /* packets begun in it so far */
};

static int64_t clock_ns(const bt_message *msg)
{
    const bt_event *ev = bt_message_event_borrow_event_const(msg);
    const bt_stream_class *sc = bt_stream_borrow_class_const(bt_event_borrow_stream_const(ev));
    int64_t ns = 0;
    if (bt_stream_class_borrow_default_clock_class_const(sc))
        bt_clock_snapshot_get_ns_from_origin(
            bt_message_event_borrow_default_clock_snapshot_const(msg), &ns);
    return ns;
}

static int kind_of(const char *name, td_kind *kind)
{
    static const char *const names[] = {"tf:enter", "tf:exit", "tf:info", "tf:exception"};
    for (int i = 0; i < 4; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *kind = (td_kind)i;
            return 1;
        }
    return 0;
}

/* tf:counters and tf:budget to the outputs that show them (dump.h). */
static void on_counters(struct reader *r, const bt_message *msg, const char *word)
{
    td_fields f;
    td_fields_init(&f, TD_ENTER);
    td_fields_of_event(&f, bt_message_event_borrow_event_const(msg));
    f.e.func = word;
    f.e.ns = clock_ns(msg);
    if (!r->failed && r->out->counters && r->out->counters(r->out->self, &f.e))
        r->failed = 1;
    td_fields_free(&f);
}

static void on_event(struct reader *r, const bt_message *msg)
{
    const bt_event *ev = bt_message_event_borrow_event_const(msg);
    const char *name = bt_event_class_get_name(bt_event_borrow_class_const(ev));
    td_kind kind;
    if (name && strcmp(name, "tf:counters") == 0)
        return on_counters(r, msg, "counters");
    if (name && strcmp(name, "tf:budget") == 0)
        return on_counters(r, msg, "budget");
    if (!kind_of(name, &kind))
        return; /* an LTTng session holds other providers' events too */
    td_fields f;
    td_fields_init(&f, kind);
    td_fields_of_event(&f, ev);
    f.e.ns = clock_ns(msg);
    r->events++;
    if (!r->failed && r->out->event(r->out->self, &f.e))
        r->failed = 1;
    td_fields_free(&f);
}

static void on_discarded(struct reader *r, const bt_message *msg)
{
    uint64_t n = 0;
    if (bt_message_discarded_events_get_count(msg, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE)
        r->discarded += n;
}

static void on_packet(struct reader *r, const bt_message *msg)
{
    const bt_stream *s = bt_packet_borrow_stream_const(bt_message_packet_beginning_borrow_packet_const(msg));
    r->packets = s == r->last_stream ? r->packets + 1 : 1;
    r->last_stream = s;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
                                                                  void *arg)
{
    struct reader *r = arg;
    bt_message_array_const msgs;
    uint64_t n;
    switch (bt_message_iterator_next(it, &msgs, &n)) {
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK: break;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_END: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
    default: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_EVENT)
            on_event(r, msgs[i]);
        else if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_DISCARDED_EVENTS)
            on_discarded(r, msgs[i]);
        else if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_PACKET_BEGINNING)
            on_packet(r, msgs[i]);
        bt_message_put_ref(msgs[i]);
    }
    return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* ---- finding the traces: every directory under path with a metadata file,
 * every ring file (a recording whose process did not write its trace) ---- */
static bt_value *found_inputs;
static char **found_rings;
static uint32_t nrings, cap_rings;

static void add_ring(const char *p)
{
    char *copy = strdup(p);
    if (copy && td_grow(&found_rings, &cap_rings, nrings, sizeof *found_rings, 4))
        found_rings[nrings++] = copy;
    else
        free(copy);
}

static int visit(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
    size_t n = strlen(p);
    if ((type == FTW_F || type == FTW_SL) && n >= 9 && strcmp(p + n - 9, "/metadata") == 0) {
        char *dir = strndup(p, n - 9);
        if (dir)
            bt_value_array_append_string_element(found_inputs, dir);
        free(dir);
    } else if (type == FTW_F && td_rings_name(p + ftw->base)) {
        add_ring(p);
    }
    return 0;
}

static bt_value *find_traces(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "tf-dump: %s: %m\n", path);
        return NULL;
    }
    found_inputs = bt_value_array_create();
    if (found_inputs && S_ISDIR(st.st_mode))
        nftw(path, visit, 16, FTW_PHYS);
    else if (found_inputs && S_ISREG(st.st_mode))
        add_ring(path); /* a ring file named by itself */
    if (found_inputs && bt_value_array_get_length(found_inputs) == 0 && nrings == 0) {
        fprintf(stderr, "tf-dump: %s: not a recording (no metadata file and no ring file in it)\n", path);
        bt_value_put_ref(found_inputs);
        found_inputs = NULL;
    }
    return found_inputs;
}

/* ---- the graph ------------------------------------------------------------- */
static const void *component_class(const char *plugin_name, const char *name, int source)
{
    const bt_plugin *plugin = NULL;
    if (bt_plugin_find(plugin_name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &plugin) !=
        BT_PLUGIN_FIND_STATUS_OK) {
        fprintf(stderr, "tf-dump: babeltrace2 plugin '%s' not found (is babeltrace2 installed?)\n",
                plugin_name);
        return NULL;
    }
    const void *cls = source ? (const void *)bt_plugin_borrow_source_component_class_by_name_const(plugin, name)
                             : (const void *)bt_plugin_borrow_filter_component_class_by_name_const(plugin, name);
    bt_component_class_get_ref(cls);
    bt_plugin_put_ref(plugin);
    return cls;
}

static int connect_all(bt_graph *g, const bt_component_source *const *srcs, uint64_t nsrc,
                       const bt_component_filter *mux, const bt_component_sink *sink)
{
    uint64_t in = 0; /* the muxer makes a new input port for each one connected */
    for (uint64_t s = 0; s < nsrc; s++) {
        uint64_t n = bt_component_source_get_output_port_count(srcs[s]);
        for (uint64_t i = 0; i < n; i++)
            if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(srcs[s], i),
                                       bt_component_filter_borrow_input_port_by_index_const(mux, in++),
                                       NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
                return -1;
    }
    return bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
                                  bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
                                  NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK ? 0 : -1;
}

/* One ctf.fs source per trace directory, as the babeltrace2 CLI makes them:
 * one source given several traces refuses those without a UUID (a recording
 * and its forked children's), while the muxer merges their events by time.
 * 0, or -2 if a source refused its trace (docs/design.md .ask.multi). */
static int add_sources(bt_graph *g, const bt_component_class_source *fs, const bt_value *inputs,
                       const bt_component_source **srcs)
{
    uint64_t n = bt_value_array_get_length(inputs);
    for (uint64_t i = 0; i < n; i++) {
        bt_value *params = bt_value_map_create(), *one = bt_value_array_create();
        char name[32];
        snprintf(name, sizeof name, "src%llu", (unsigned long long)i); /* failed_file reads "src" */
        int ok = params && one &&
                 bt_value_array_append_string_element(one, bt_value_string_get(
                     bt_value_array_borrow_element_by_index_const(inputs, i))) == 0 &&
                 bt_value_map_insert_entry(params, "inputs", one) == 0 &&
                 bt_graph_add_source_component(g, fs, name, params, BT_LOGGING_LEVEL_NONE, &srcs[i]) == 0;
        bt_value_put_ref(one);
        bt_value_put_ref(params);
        if (!ok)
            return -2;
    }
    return 0;
}

static int build(bt_graph *g, bt_value *inputs, struct reader *r)
{
    const bt_component_class_source *fs = component_class("ctf", "fs", 1);
    const bt_component_class_filter *mx = component_class("utils", "muxer", 0);
    uint64_t n = bt_value_array_get_length(inputs);
    const bt_component_source **srcs = calloc(n ? n : 1, sizeof *srcs);
    const bt_component_filter *mux = NULL;
    const bt_component_sink *sink = NULL;
    int rc = -1;
    if (fs && mx && srcs && add_sources(g, fs, inputs, srcs) != 0)
        rc = -2;
    else if (fs && mx && srcs &&
             bt_graph_add_filter_component(g, mx, "mux", NULL, BT_LOGGING_LEVEL_NONE, &mux) == 0 &&
             bt_graph_add_simple_sink_component(g, "sink", NULL, consume, NULL, r, &sink) == 0)
        rc = connect_all(g, srcs, n, mux, sink);
    free(srcs);
    bt_component_class_source_put_ref(fs);
    bt_component_class_filter_put_ref(mx);
    return rc;
}

/* babeltrace2's causes, innermost last; the ctf source names file and offset. */
/* ctf.fs names its ports "<uuid> | <id> | <file>": the file that failed. */
static char *failed_file(const bt_error *err, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        const char *m = bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i));
        const char *p = strstr(m, "iter-upstream-comp-name=\"src");
        p = p ? strstr(p, "port-name=\"") : NULL;
        const char *bar = p ? strrchr(p, '|') : NULL, *end = bar ? strchr(bar, '"') : NULL;
        if (end && bar[1] == ' ')
            return strndup(bar + 2, (size_t)(end - bar - 2));
    }
    return NULL;
}

static void report_error(const struct reader *r, const char *path)
{
    const bt_error *err = bt_current_thread_take_error();
    uint64_t n = err ? bt_error_get_cause_count(err) : 0;
    char *file = err ? failed_file(err, n) : NULL;
    const char *name = r->last_stream ? bt_stream_get_name(r->last_stream) : NULL;
    long long at = file && name && strcmp(name, file) == 0 ? td_packet_offset(file, r->packets) : -1;
    if (at >= 0)
        fprintf(stderr, "tf-dump: %s: damaged in the packet at offset %lld; the events from there "
                "on are missing. babeltrace2 says:\n", file, at);
    else
        fprintf(stderr, "tf-dump: %s: damaged or unreadable trace. babeltrace2 says:\n", file ? file : path);
    free(file);
    for (uint64_t i = n < 3 ? n : 3; i > 0; i--) /* the innermost: the others say "failed" */
        fprintf(stderr, "  %s\n", bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i - 1)));
    if (err)
        bt_error_release(err);
}

static bt_value *one_input(const char *dir)
{
    bt_value *inputs = bt_value_array_create();
    if (inputs && bt_value_array_append_string_element(inputs, dir) != 0) {
        bt_value_put_ref(inputs);
        inputs = NULL;
    }
    return inputs;
}

/* The graph over inputs, run to its end: 0, -2 if the source refused the
 * traces (before any event), -1 on a later error (reported). */
static int run(struct reader *r, bt_value *inputs, const char *path)
{
    bt_graph *g = bt_graph_create(0);
    int rc = g ? build(g, inputs, r) : -1;
    bt_graph_run_status st = BT_GRAPH_RUN_STATUS_ERROR;
    if (rc == 0) {
        do
            st = bt_graph_run(g);
        while (st == BT_GRAPH_RUN_STATUS_AGAIN && !r->failed);
        rc = st == BT_GRAPH_RUN_STATUS_OK ? 0 : -1;
    }
    if (rc == -1 && !r->failed)
        report_error(r, path);
    /* a cause may be left after a recovered problem, and every later call
     * into babeltrace2 asserts that none is */
    bt_current_thread_clear_error();
    bt_graph_put_ref(g);
    return rc;
}

/* The probe child's progress, in memory shared with the parent: messages
 * read so far. */
static volatile uint64_t *probe_progress;

static int null_event(void *self, const td_event *e)
{
    if (probe_progress)
        __atomic_add_fetch(probe_progress, 1, __ATOMIC_RELAXED);
    return 0;
}

static int null_finish(void *self)
{
    return 0;
}

/* The bytes of the regular files under inputs: babeltrace2 indexes every
 * packet before its first message, so a larger recording may take longer
 * to show one. */
static uint64_t input_bytes;
static int add_size(const char *path, const struct stat *st, int type, struct FTW *f)
{
    if (type == FTW_F)
        input_bytes += (uint64_t)st->st_size;
    return 0;
}

static unsigned stall_limit_s(bt_value *inputs)
{
    input_bytes = 0;
    for (uint64_t i = 0; i < bt_value_array_get_length(inputs); i++)
        nftw(bt_value_string_get(bt_value_array_borrow_element_by_index_const(inputs, i)),
             add_size, 16, FTW_PHYS);
    return td_probe_stall_s + (unsigned)(input_bytes / PROBE_BYTES_PER_S);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Waits for the probe child; kills it if it reads no message for limit_s
 * seconds (said, unless label is NULL). Its wait status, or -1. The naps
 * start short: most probes end within milliseconds. */
static int wait_probe(pid_t pid, unsigned limit_s, const volatile uint64_t *progress,
                      const char *label)
{
    uint64_t seen = 0;
    double moved = now_s();
    long nap_ns = 100000;
    int status;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            return status;
        if (w < 0)
            return -1;
        uint64_t read = __atomic_load_n(progress, __ATOMIC_RELAXED);
        if (read != seen)
            seen = read, moved = now_s();
        else if (now_s() - moved >= limit_s) {
            if (label) /* salvage.c's trials are not said one by one */
                fprintf(stderr, "tf-dump: %s: babeltrace2 read no event for %u s (%llu read before): "
                        "stopped; read as damaged\n", label, limit_s, (unsigned long long)read);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        nap_ns = nap_ns * 2 > PROBE_POLL_MS * 1000000L ? PROBE_POLL_MS * 1000000L : nap_ns * 2;
    }
}

/* babeltrace2 2.0 aborts on some damaged packets (an assertion in its ctf
 * plugin, found by tests/dump/fuzz_reader.c), and on others loops forever
 * indexing them, its memory growing (tests/dump/fuzz-regress/stall-*): a
 * trace is read first in a child with no output, and here only if the
 * child lived and ended. 0: read to the end, -1: an error after some
 * events, -2: refused, or the reader died or stalled. */
static int probe(bt_value *inputs, const char *label)
{
    fflush(NULL);
    unsigned limit_s = stall_limit_s(inputs);
    volatile uint64_t *progress = mmap(NULL, sizeof *progress, PROT_READ | PROT_WRITE,
                                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (progress == MAP_FAILED)
        return -2;
    *progress = 0;
    pid_t pid = fork();
    if (pid == 0) {
        static const int fatal[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
        for (int i = 0; i < 5; i++) /* a death here is an answer, not a crash to report */
            signal(fatal[i], SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* tf-dump killed: its probe goes too */
        probe_progress = progress;
        td_output null = {NULL, null_event, null_finish, NULL};
        struct reader r = {.out = &null};
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2); /* the real reading reports */
        _exit(-run(&r, inputs, ""));
    }
    int status = pid < 0 ? -1 : wait_probe(pid, limit_s, progress, label);
    munmap((void *)progress, sizeof *progress);
    if (status == -1 || !WIFEXITED(status))
        return -2;
    return -WEXITSTATUS(status);
}

int td_ctf_readable(const char *dir)
{
    bt_value *inputs = one_input(dir);
    int ok = inputs && probe(inputs, NULL) == 0;
    bt_value_put_ref(inputs);
    return ok;
}

/* Reads what salvage.c can save of inputs; always a failure. */
static int run_salvaged(struct reader *r, bt_value *inputs, const char *path)
{
    uint64_t n = bt_value_array_get_length(inputs);
    const char **dirs = calloc(n + 1, sizeof *dirs);
    for (uint64_t i = 0; dirs && i < n; i++)
        dirs[i] = bt_value_string_get(bt_value_array_borrow_element_by_index_const(inputs, i));
    char *root = dirs ? td_salvage(dirs, n) : NULL;
    free(dirs);
    bt_value *saved = root ? find_traces(root) : NULL;
    if (saved && (probe(saved, path) == -2 || run(r, saved, path) == -2))
        fprintf(stderr, "tf-dump: %s: nothing in it could be read\n", path);
    bt_value_put_ref(saved);
    if (root)
        td_salvage_remove(root);
    free(root);
    return -1;
}

/* Every trace under each path, in one array; NULL (said) if one has none. */
static bt_value *find_all(const char *const *paths, int n)
{
    bt_value *all = bt_value_array_create();
    for (int i = 0; all && i < n; i++) {
        bt_value *found = find_traces(paths[i]);
        for (uint64_t j = 0; found && j < bt_value_array_get_length(found); j++)
            bt_value_array_append_string_element(all, bt_value_string_get(
                bt_value_array_borrow_element_by_index_const(found, j)));
        if (!found) {
            bt_value_put_ref(all);
            all = NULL;
        }
        bt_value_put_ref(found);
    }
    return all;
}

/* How messages name the recordings: the path, or the paths joined. */
static char *label_of(const char *const *paths, int n)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(paths[i]) + 2;
    char *s = malloc(len);
    if (s)
        *s = 0;
    for (int i = 0; s && i < n; i++)
        strcat(strcat(s, i ? ", " : ""), paths[i]);
    return s;
}

/* The TF traces among inputs, for the native reader: those left are
 * babeltrace2's (LTTng's, or a metadata this tf-dump does not know). A
 * trace that a ring file of the same recording supersedes (a snapshot
 * before the process was killed) is left out. */
static bt_value *take_native(bt_value *inputs, td_trace ***ts, int *nt, int reader, int *rc)
{
    bt_value *rest = bt_value_array_create();
    uint64_t n = bt_value_array_get_length(inputs);
    for (uint64_t i = 0; rest && i < n; i++) {
        const char *dir = bt_value_string_get(bt_value_array_borrow_element_by_index_const(inputs, i));
        char why[256];
        td_trace *t = reader == TD_READER_BABELTRACE2 ? NULL : td_trace_open_dir(dir, why, sizeof why);
        int superseded = 0;
        for (int k = 0; t && k < *nt; k++)
            superseded |= td_trace_meta((*ts)[k])->recording && td_trace_meta(t)->recording &&
                          !strcmp(td_trace_meta((*ts)[k])->recording, td_trace_meta(t)->recording);
        if (t && !superseded && (*ts = realloc(*ts, (size_t)(*nt + 1) * sizeof **ts)))
            (*ts)[(*nt)++] = t;
        else if (t)
            td_trace_free(t);
        else if (reader == TD_READER_TF)
            fprintf(stderr, "tf-dump: %s: not a recording tf-dump's own reader knows: %s\n", dir, why), *rc = -1;
        else
            bt_value_array_append_string_element(rest, dir);
    }
    return rest;
}

/* The traces under paths[0, n) (or in o's core), each to its reader: TF's
 * to the native one, merged in time order, then the others to babeltrace2. */
static int read_all(const char *const *paths, int n, td_output *out, const td_read_options *o)
{
    struct reader r = {.out = out};
    nrings = 0;
    bt_value *inputs = o && o->core ? bt_value_array_create() : find_all(paths, n);
    char *path = label_of(paths, n);
    if (!inputs || !path) {
        bt_value_put_ref(inputs);
        free(path);
        return 1;
    }
    td_trace **ts = NULL;
    int nt = 0, rc = 0;
    if (o && o->core) {
        td_trace *t = td_core_open(o->core, o->executable);
        rc = t ? 0 : -1;
        if (t && (ts = malloc(sizeof *ts)))
            ts[nt++] = t;
    }
    for (uint32_t i = 0; i < nrings; i++) {
        td_trace *t = td_rings_open(found_rings[i]);
        rc |= t ? 0 : -1;
        if (t && (ts = realloc(ts, (size_t)(nt + 1) * sizeof *ts)))
            ts[nt++] = t;
        free(found_rings[i]);
    }
    free(found_rings);
    found_rings = NULL;
    cap_rings = 0;
    bt_value *rest = take_native(inputs, &ts, &nt, o ? o->reader : TD_READER_AUTO, &rc);
    bt_value_put_ref(inputs);
    if (nt)
        rc |= td_native_read(ts, nt, out) ? -1 : 0;
    for (int i = 0; i < nt; i++)
        td_trace_free(ts[i]);
    free(ts);
    if (rest && bt_value_array_get_length(rest)) {
        int brc = probe(rest, path);
        rc |= brc != -2 ? run(&r, rest, path) : run_salvaged(&r, rest, path);
    }
    if (r.discarded)
        fprintf(stderr, "tf-dump: %s: the recording lost %llu events (the recorder could not "
                "keep them; they are missing above)\n", path, (unsigned long long)r.discarded);
    int finish = out->finish(out->self);
    bt_value_put_ref(rest);
    free(path);
    return rc != 0 || r.failed || finish ? 1 : 0;
}

int td_read_with(const char *path, td_output *out, const td_read_options *o)
{
    return read_all(&path, 1, out, o);
}

int td_read_paths(const char *const *paths, int n, td_output *out, const td_read_options *o)
{
    return read_all(paths, n, out, o);
}

int td_read(const char *path, td_output *out)
{
    return td_read_with(path, out, NULL);
}
