/*
 * fields.c: a tf:* event's payload and contexts as a td_event. Values become
 * tf_values so that libtf's own formatter (tf_value_format) prints them
 * exactly as dprint does: integers by signedness, a base-16 integer as a
 * pointer (0: NULL), an enumeration by its label (bool is the enumeration
 * false/true), floating point, strings, __int128, complex and vector values
 * from the recorder's structs for them, any other struct as {...}.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"

static const char *const known[][4] = {
    [TD_ENTER] = {"func", NULL},
    [TD_EXIT] = {"func", "result", NULL},
    [TD_INFO] = {"func", "info", "tp", NULL},
    [TD_EXCEPTION] = {"func", "kind", "type", NULL},
};

void td_fields_init(td_fields *f, td_kind kind)
{
    memset(f, 0, sizeof *f);
    f->e.kind = kind;
    f->e.pid = f->e.tid = -1;
    f->e.thread = "?";
    f->e.func = "?";
}

void td_fields_free(td_fields *f)
{
    free(f->args);
    free(f->values);
}

static const char *enum_label(const bt_field *fld)
{
    bt_field_class_type t = bt_field_get_class_type(fld);
    bt_field_class_enumeration_mapping_label_array labels;
    uint64_t n = 0;
    if (t == BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION)
        bt_field_enumeration_unsigned_get_mapping_labels(fld, &labels, &n);
    else
        bt_field_enumeration_signed_get_mapping_labels(fld, &labels, &n);
    return n ? labels[0] : NULL;
}

static int display_hex(const bt_field *fld)
{
    return bt_field_class_integer_get_preferred_display_base(bt_field_borrow_class_const(fld)) ==
           BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL;
}

/* A variant or an option stands for what it holds. */
static const bt_field *selected(const bt_field *fld)
{
    while (fld) {
        if (bt_field_class_type_is(bt_field_get_class_type(fld), BT_FIELD_CLASS_TYPE_VARIANT))
            fld = bt_field_variant_borrow_selected_option_field_const(fld);
        else if (bt_field_class_type_is(bt_field_get_class_type(fld), BT_FIELD_CLASS_TYPE_OPTION))
            fld = bt_field_option_borrow_field_const(fld);
        else
            break;
    }
    return fld;
}

/* ---- values the recorder writes as structs (docs/trace-format.md, "Values");
 * babeltrace2 drops the leading `_` of CTF 1.8 names (_lo is lo). */
static const bt_field *member_of(const bt_field *fld, const char *name)
{
    return bt_field_structure_borrow_member_field_by_name_const(fld, name);
}

/* An __int128 recorded as its halves into out; 1 if signed, -1 if fld is none. */
static int int128_of(const bt_field *fld, unsigned char *out)
{
    const bt_field *lo = fld ? member_of(fld, "lo") : NULL, *hi = fld ? member_of(fld, "hi") : NULL;
    if (!lo || !hi || !bt_field_class_type_is(bt_field_get_class_type(hi), BT_FIELD_CLASS_TYPE_INTEGER))
        return -1;
    int sign = bt_field_class_type_is(bt_field_get_class_type(hi), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
    uint64_t l = bt_field_integer_unsigned_get_value(lo);
    uint64_t h = sign ? (uint64_t)bt_field_integer_signed_get_value(hi) : bt_field_integer_unsigned_get_value(hi);
    memcpy(out, &l, 8); /* little-endian, as the ABI keeps it on every target TF runs on */
    memcpy(out + 8, &h, 8);
    return sign;
}

static double real_of(const bt_field *fld)
{
    return bt_field_get_class_type(fld) == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL
               ? bt_field_real_single_precision_get_value(fld)
               : bt_field_real_double_precision_get_value(fld);
}

/* One vector element into out; its class letter and bytes, 0 if unknown. */
static char element_of(const bt_field *el, unsigned char *out, unsigned *bytes)
{
    bt_field_class_type t = bt_field_get_class_type(el);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_REAL)) {
        double d = real_of(el);
        memcpy(out, &d, *bytes = 8);
        return 'f';
    }
    if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
        int sign = int128_of(el, out);
        *bytes = 16;
        return sign < 0 ? 0 : sign ? 'i' : 'u';
    }
    if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER))
        return 0;
    *bytes = (unsigned)bt_field_class_integer_get_field_value_range(bt_field_borrow_class_const(el)) / 8;
    uint64_t u = bt_field_integer_unsigned_get_value(el); /* the bits, whatever the sign */
    memcpy(out, &u, *bytes); /* little-endian: the low bytes */
    return bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ? 'i' : 'u';
}

static int vector_of(td_slot *s, const bt_field *arr)
{
    uint64_t n = bt_field_array_get_length(arr);
    unsigned bytes = 0, at = 0;
    char cls = 0;
    for (uint64_t i = 0; i < n; i++) {
        unsigned char el[16];
        cls = element_of(bt_field_array_borrow_element_field_by_index_const(arr, i), el, &bytes);
        if (!cls || bytes > 16 || at + bytes > sizeof s->bytes)
            return TF_K_NONE;
        memcpy(s->bytes + at, el, bytes);
        at += bytes;
    }
    if (!n)
        return TF_K_NONE;
    snprintf(s->code, sizeof s->code, "%c%u*%u", cls, bytes, (unsigned)n);
    s->v.size = at;
    return TF_K_VECTOR;
}

/* The kind of a struct field the recorder wrote for a value, -1 for a struct
 * value (its spelling). */
static int wide_of(td_slot *s, const bt_field *fld)
{
    const bt_field *re = member_of(fld, "re"), *im = member_of(fld, "im"), *vec = member_of(fld, "v");
    int sign = int128_of(fld, s->bytes);
    s->v.v.p = s->bytes;
    s->v.type = s->code;
    if (sign >= 0) {
        s->v.size = 16;
        return sign ? TF_K_INT128 : TF_K_UINT128;
    }
    if (re && im && bt_field_class_type_is(bt_field_get_class_type(re), BT_FIELD_CLASS_TYPE_REAL)) {
        double d[2] = {real_of(re), real_of(im)};
        memcpy(s->bytes, d, sizeof d);
        strcpy(s->code, "f8*2");
        s->v.size = 16;
        return TF_K_COMPLEX;
    }
    if (vec && bt_field_class_type_is(bt_field_get_class_type(vec), BT_FIELD_CLASS_TYPE_ARRAY))
        return vector_of(s, vec);
    return member_of(fld, "unknown") ? TF_K_NONE : -1;
}

static void value_of(td_slot *s, const bt_field *fld, const char *name)
{
    tf_value *v = &s->v;
    int kind;
    memset(s, 0, offsetof(td_slot, bytes));
    v->name = name;
    fld = selected(fld);
    bt_field_class_type t = fld ? bt_field_get_class_type(fld) : BT_FIELD_CLASS_TYPE_OPTION;
    if (!fld) {
        v->kind = TF_K_PTR; /* an empty option: a NULL string or pointer */
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ENUMERATION)) {
        v->kind = TF_K_ENUM;
        int sign = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
        v->v.i = sign ? bt_field_integer_signed_get_value(fld)
                      : (int64_t)bt_field_integer_unsigned_get_value(fld);
        s->item.value = v->v.i;
        s->item.name = enum_label(fld);
        s->type.count = s->item.name ? 1 : 0;
        s->type.items = &s->item;
        v->type = &s->type;
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
        v->kind = TF_K_INT;
        v->v.i = bt_field_integer_signed_get_value(fld);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
        v->kind = display_hex(fld) ? TF_K_PTR : TF_K_UINT;
        v->v.u = bt_field_integer_unsigned_get_value(fld);
    } else if (t == BT_FIELD_CLASS_TYPE_BOOL) {
        v->kind = TF_K_BOOL;
        v->v.u = bt_field_bool_get_value(fld);
    } else if (t == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL) {
        v->kind = TF_K_FLOAT;
        v->v.d = bt_field_real_single_precision_get_value(fld);
    } else if (t == BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL) {
        v->kind = TF_K_FLOAT;
        v->v.d = bt_field_real_double_precision_get_value(fld);
    } else if (t == BT_FIELD_CLASS_TYPE_STRING) {
        v->kind = TF_K_STR;
        v->v.s = bt_field_string_get_value(fld);
    } else if (t == BT_FIELD_CLASS_TYPE_STRUCTURE && (kind = wide_of(s, fld)) >= 0) {
        v->kind = (uint32_t)kind;
    } else {
        v->kind = TF_K_STRUCT;
    }
}

/* The slot's value, its pointers into the slot where it is now (the array
 * of slots may have moved since it was read). */
static tf_value slot_value(td_slot *s)
{
    tf_value v = s->v;
    if (v.kind == TF_K_ENUM)
        v.type = &s->type;
    if (v.kind == TF_K_INT128 || v.kind == TF_K_UINT128 || v.kind == TF_K_COMPLEX || v.kind == TF_K_VECTOR) {
        v.v.p = s->bytes;
        v.type = s->code;
    }
    return v;
}

static const char *text_of(const bt_field *fld)
{
    fld = selected(fld);
    if (fld && bt_field_get_class_type(fld) == BT_FIELD_CLASS_TYPE_STRING)
        return bt_field_string_get_value(fld);
    if (fld && bt_field_class_type_is(bt_field_get_class_type(fld), BT_FIELD_CLASS_TYPE_ENUMERATION))
        return enum_label(fld);
    return NULL;
}

static int is_known(td_kind kind, const char *name)
{
    for (int i = 0; known[kind][i]; i++)
        if (strcmp(known[kind][i], name) == 0)
            return 1;
    return 0;
}

static void add_arg(td_fields *f, const bt_field *fld, const char *name)
{
    if (!td_grow(&f->args, &f->cap, f->e.nargs, sizeof *f->args, 8))
        return; /* out of memory: the value is left out, the event still shown */
    value_of(&f->args[f->e.nargs++], fld, name);
}

static int64_t as_int(const bt_field *fld)
{
    bt_field_class_type t = bt_field_get_class_type(fld);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
        return bt_field_integer_signed_get_value(fld);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
        return (int64_t)bt_field_integer_unsigned_get_value(fld);
    return -1;
}

static void member(td_fields *f, const bt_field *fld, const char *name)
{
    td_event *e = &f->e;
    if (strcmp(name, "func") == 0) {
        const char *t = text_of(fld);
        if (!t && bt_field_class_type_is(bt_field_get_class_type(fld), BT_FIELD_CLASS_TYPE_INTEGER)) {
            snprintf(f->func_num, sizeof f->func_num, "%lld", (long long)as_int(fld));
            t = f->func_num;
        }
        e->func = t ? t : "?";
    } else if (e->kind == TD_INFO && strcmp(name, "info") == 0) {
        e->info = text_of(fld);
    } else if (e->kind == TD_INFO && strcmp(name, "tp") == 0) {
        e->info_tp = text_of(fld);
    } else if (e->kind == TD_EXCEPTION && strcmp(name, "kind") == 0) {
        e->exc_kind = text_of(fld);
    } else if (e->kind == TD_EXCEPTION && strcmp(name, "type") == 0) {
        e->exc_type = text_of(fld);
    } else if (e->kind == TD_EXIT && strcmp(name, "result") == 0) {
        if (f->lttng) {
            e->result_text = text_of(fld);
        } else {
            value_of(&f->result, fld, NULL);
            e->result = &f->result.v;
        }
    } else if (f->lttng && e->kind != TD_EXIT && strcmp(name, "args") == 0) {
        e->args_text = text_of(fld);
    } else if (!is_known(e->kind, name) && e->kind != TD_EXCEPTION) {
        add_arg(f, fld, name);
    }
}

static void payload(td_fields *f, const bt_field *p)
{
    if (!p || bt_field_get_class_type(p) != BT_FIELD_CLASS_TYPE_STRUCTURE)
        return;
    const bt_field_class *c = bt_field_borrow_class_const(p);
    uint64_t n = bt_field_class_structure_get_member_count(c);
    for (uint64_t i = 0; i < n; i++) {
        const char *name = bt_field_class_structure_member_get_name(
            bt_field_class_structure_borrow_member_by_index_const(c, i));
        member(f, bt_field_structure_borrow_member_field_by_index_const(p, i), name);
    }
    if (f->e.nargs && (f->values = malloc(f->e.nargs * sizeof *f->values))) {
        for (uint32_t i = 0; i < f->e.nargs; i++)
            f->values[i] = slot_value(&f->args[i]);
        f->e.args = f->values;
    }
}

/* ---- who: thread, pid ------------------------------------------------------ */
static const bt_field *find(const bt_field *s, const char *const *names)
{
    for (; s && *names; names++) {
        const bt_field *m = bt_field_structure_borrow_member_field_by_name_const(s, *names);
        if (m)
            return m;
    }
    return NULL;
}

static void who_from(td_fields *f, const bt_field *scope)
{
    static const char *const tids[] = {"vtid", "tid", NULL};
    static const char *const pids[] = {"vpid", "pid", NULL};
    static const char *const names[] = {"procname", "thread", "thread_name", NULL};
    if (!scope || bt_field_get_class_type(scope) != BT_FIELD_CLASS_TYPE_STRUCTURE)
        return;
    const bt_field *m;
    if (f->e.tid < 0 && (m = find(scope, tids)))
        f->e.tid = as_int(m);
    if (f->e.pid < 0 && (m = find(scope, pids)))
        f->e.pid = as_int(m);
    const char *name;
    if (strcmp(f->e.thread, "?") == 0 && (m = find(scope, names)) && (name = text_of(m)))
        f->e.thread = name;
}

static void who_from_env(td_fields *f, const bt_trace *trace)
{
    const bt_value *v;
    if (f->e.pid < 0 && (v = bt_trace_borrow_environment_entry_value_by_name_const(trace, "vpid")) &&
        bt_value_is_signed_integer(v))
        f->e.pid = bt_value_integer_signed_get(v);
    if (strcmp(f->e.thread, "?") == 0 &&
        (v = bt_trace_borrow_environment_entry_value_by_name_const(trace, "procname")) &&
        bt_value_is_string(v))
        f->e.thread = bt_value_string_get(v);
}

static int is_lttng(const bt_trace *trace)
{
    const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(trace, "tracer_name");
    return v && bt_value_is_string(v) && strncmp(bt_value_string_get(v), "lttng", 5) == 0;
}

void td_fields_of_event(td_fields *f, const bt_event *ev)
{
    const bt_stream *stream = bt_event_borrow_stream_const(ev);
    const bt_trace *trace = bt_stream_borrow_trace_const(stream);
    const bt_packet *packet = bt_event_borrow_packet_const(ev);
    f->lttng = is_lttng(trace);
    who_from(f, bt_event_borrow_common_context_field_const(ev));
    who_from(f, bt_event_borrow_specific_context_field_const(ev));
    if (packet)
        who_from(f, bt_packet_borrow_context_field_const(packet));
    who_from_env(f, trace);
    if (strcmp(f->e.thread, "?") == 0 && f->e.tid >= 0) {
        snprintf(f->tid_text, sizeof f->tid_text, "%lld", (long long)f->e.tid);
        f->e.thread = f->tid_text;
    }
    payload(f, bt_event_borrow_payload_field_const(ev));
}
