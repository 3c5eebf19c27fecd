/*
 * read.c: a babeltrace2 graph, source.ctf.fs -> filter.utils.muxer -> our
 * sink, that turns each tf:* event into a td_event (dump.h).
 *
 * Field names are those of docs/trace-format.md: `func` (an enumeration of
 * "<tu>.<name>" or a string), one typed field per argument named after the
 * parameter, `result`, `info`, `kind`, `type`; LTTng's factory writes `args`
 * and `result` as text instead. The thread is read from the contexts
 * (vtid/tid, vpid/pid, procname/thread), then from the trace's environment.
 */
#define _GNU_SOURCE
#include <babeltrace2/babeltrace.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump.h"
#include "fields.h"

struct reader {
    td_output *out;
    int failed;            /* an output said stop */
    uint64_t discarded;    /* events the recorder could not keep */
    uint64_t events;
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

static void on_event(struct reader *r, const bt_message *msg)
{
    const bt_event *ev = bt_message_event_borrow_event_const(msg);
    td_kind kind;
    if (!kind_of(bt_event_class_get_name(bt_event_borrow_class_const(ev)), &kind))
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
        bt_message_put_ref(msgs[i]);
    }
    return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* ---- finding the traces: every directory under path with a metadata file -- */
static bt_value *found_inputs;

static int visit(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
    size_t n = strlen(p);
    if (type == FTW_F && n >= 9 && strcmp(p + n - 9, "/metadata") == 0) {
        char *dir = strndup(p, n - 9);
        if (dir)
            bt_value_array_append_string_element(found_inputs, dir);
        free(dir);
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
    if (found_inputs && bt_value_array_get_length(found_inputs) == 0) {
        fprintf(stderr, "tf-dump: %s: not a CTF trace (no metadata file in it)\n", path);
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

static int connect_all(bt_graph *g, const bt_component_source *src,
                       const bt_component_filter *mux, const bt_component_sink *sink)
{
    uint64_t n = bt_component_source_get_output_port_count(src);
    for (uint64_t i = 0; i < n; i++) {
        const bt_port_input *in = bt_component_filter_borrow_input_port_by_index_const(mux, i);
        if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, i),
                                   in, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
            return -1;
    }
    return bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
                                  bt_component_sink_borrow_input_port_by_name_const(sink, "in"),
                                  NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK ? 0 : -1;
}

static int build(bt_graph *g, bt_value *inputs, struct reader *r)
{
    const bt_component_class_source *fs = component_class("ctf", "fs", 1);
    const bt_component_class_filter *mx = component_class("utils", "muxer", 0);
    bt_value *params = bt_value_map_create();
    const bt_component_source *src = NULL;
    const bt_component_filter *mux = NULL;
    const bt_component_sink *sink = NULL;
    int rc = -1;
    if (fs && mx && params && bt_value_map_insert_entry(params, "inputs", inputs) == 0 &&
        bt_graph_add_source_component(g, fs, "src", params, BT_LOGGING_LEVEL_NONE, &src) == 0 &&
        bt_graph_add_filter_component(g, mx, "mux", NULL, BT_LOGGING_LEVEL_NONE, &mux) == 0 &&
        bt_graph_add_simple_sink_component(g, "sink", NULL, consume, NULL, r, &sink) == 0)
        rc = connect_all(g, src, mux, sink);
    bt_value_put_ref(params);
    bt_component_class_source_put_ref(fs);
    bt_component_class_filter_put_ref(mx);
    return rc;
}

/* babeltrace2's causes, innermost last; the ctf source names file and offset. */
static void report_error(const char *path)
{
    const bt_error *err = bt_current_thread_take_error();
    fprintf(stderr, "tf-dump: %s: damaged or unreadable trace\n", path);
    uint64_t n = err ? bt_error_get_cause_count(err) : 0;
    for (uint64_t i = n; i > 0; i--)
        fprintf(stderr, "  %s\n", bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i - 1)));
    if (err)
        bt_error_release(err);
}

int td_read(const char *path, td_output *out)
{
    struct reader r = {out, 0, 0, 0};
    bt_value *inputs = find_traces(path);
    if (!inputs)
        return 1;
    bt_graph *g = bt_graph_create(0);
    int rc = g ? build(g, inputs, &r) : -1;
    bt_graph_run_status st = BT_GRAPH_RUN_STATUS_ERROR;
    if (rc == 0) {
        do
            st = bt_graph_run(g);
        while (st == BT_GRAPH_RUN_STATUS_AGAIN && !r.failed);
    }
    if (st != BT_GRAPH_RUN_STATUS_OK && !r.failed)
        report_error(path);
    if (r.discarded)
        fprintf(stderr, "tf-dump: %s: the recording lost %llu events (the recorder could not "
                "keep them; they are missing above)\n", path, (unsigned long long)r.discarded);
    int finish = out->finish(out->self);
    bt_graph_put_ref(g);
    bt_value_put_ref(inputs);
    return st != BT_GRAPH_RUN_STATUS_OK || r.failed || finish ? 1 : 0;
}
