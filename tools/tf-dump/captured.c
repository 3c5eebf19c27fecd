/*
 * captured.c: captured values in a recording (docs/trace-format.md,
 * "Captured values"), shown as dprint shows them. The recorder wrote what
 * it read as nested CTF structures; here they become a tf_capture tree over
 * an image of those bytes, the very form a monitor gets from the plugins,
 * so that libtf's own formatter (runtime/capture.c) prints
 * c={fd=3, peer={name="db1", port=5432}} character for character.
 *
 * Each node of the image is a slot of 8 bytes (a wide value: its bytes); a
 * structure is an image of its own that its parent points to (FOLLOW), an
 * array one of its elements; "<unreadable>" is a NULL pointer there.
 */
#include <stdlib.h>
#include <string.h>

#include "captured.h"

/* Everything one value needs, freed together (td_captured_free). */
typedef struct block {
    struct block *next;
    _Alignas(16) unsigned char data[];
} block;

static void *take(td_captured *c, size_t n)
{
    block *b = calloc(1, sizeof *b + n);
    if (!b)
        return NULL;
    b->next = c->blocks;
    c->blocks = b;
    return b->data;
}

static const bt_field *member(const bt_field *s, const char *name)
{
    return bt_field_structure_borrow_member_field_by_name_const(s, name);
}

static int is_struct(const bt_field *f)
{
    return f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRUCTURE;
}

/* The recorder's array: { len, more, elem[len] } (babeltrace2 drops the `_`). */
static int is_array(const bt_field *f)
{
    return is_struct(f) && member(f, "len") && member(f, "more") && member(f, "elem");
}

static int is_unreadable(const bt_field *f)
{
    if (!f || !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ENUMERATION))
        return 0;
    const char *label = td_enum_label(f);
    return label && strcmp(label, "<unreadable>") == 0;
}

/* A value the recorder writes for a plain kind, or one of its wide structs:
 * what dprint shows of a leaf. Not a captured struct, array or unreadable mark. */
static int is_leaf(const bt_field *f)
{
    return !is_unreadable(f) && !is_array(f) && (!is_struct(f) || td_recorded_struct(f));
}

static int node_of(td_captured *c, tf_capture *n, unsigned char *at, const bt_field *f, const char *name);

#define SLOT 256 /* bytes of one member in an image: a wide value fits (RC_VECTOR_MAX) */

static uint64_t members(const bt_field *f)
{
    return bt_field_class_structure_get_member_count(bt_field_borrow_class_const(f));
}

/* A structure's members as nodes (fields, made once when fields is given)
 * and their bytes at image, one SLOT each. */
static int fill_struct(td_captured *c, tf_capture *fields, unsigned char *image, const bt_field *f)
{
    const bt_field_class *cls = bt_field_borrow_class_const(f);
    for (uint64_t i = 0; i < members(f); i++) {
        tf_capture scratch;
        tf_capture *n = fields ? &fields[i] : &scratch;
        const char *mname = bt_field_class_structure_member_get_name(
            bt_field_class_structure_borrow_member_by_index_const(cls, i));
        if (node_of(c, n, image + i * SLOT, bt_field_structure_borrow_member_field_by_index_const(f, i), mname) < 0)
            return -1;
        n->offset = (uint32_t)(i * SLOT);
    }
    return 0;
}

/* A structure: its own image, which n points to. */
static int struct_of(td_captured *c, tf_capture *n, unsigned char *at, const bt_field *f)
{
    uint64_t k = members(f);
    tf_capture *fields = take(c, (k ? k : 1) * sizeof *fields);
    unsigned char *image = take(c, (k ? k : 1) * SLOT);
    if (!fields || !image || fill_struct(c, fields, image, f) < 0)
        return -1;
    n->flags |= TF_CAP_FOLLOW;
    n->fields = fields;
    n->nfields = (uint32_t)k;
    memcpy(at, &image, sizeof image);
    return 0;
}

/* An array: its elements in one image, structures in place (as the
 * recorder read them), which n points to. */
/* Characters (a CTF text sequence, a string to babeltrace2): as many as
 * recorded, one more when there were more, so that they show cut. */
static int text_of(td_captured *c, tf_capture *n, unsigned char *at, const bt_field *f)
{
    const char *text = bt_field_string_get_value(member(f, "elem"));
    uint64_t len = bt_field_string_get_length(member(f, "elem"));
    unsigned char *image = take(c, len + 1);
    if (!image)
        return -1;
    memcpy(image, text, len);
    n->flags = TF_CAP_FOLLOW | TF_CAP_ARRAY | TF_CAP_TEXT;
    n->kind = TF_K_INT;
    n->size = 1;
    n->count = (uint32_t)len + (bt_field_integer_unsigned_get_value(member(f, "more")) != 0);
    n->limit = (uint32_t)len;
    memcpy(at, &image, sizeof image);
    return 0;
}

static int array_of(td_captured *c, tf_capture *n, unsigned char *at, const bt_field *f)
{
    const bt_field *elem = member(f, "elem");
    if (bt_field_get_class_type(elem) == BT_FIELD_CLASS_TYPE_STRING)
        return text_of(c, n, at, f);
    uint64_t len = bt_field_array_get_length(elem);
    int more = bt_field_integer_unsigned_get_value(member(f, "more")) != 0;
    const bt_field *first = len ? td_selected(bt_field_array_borrow_element_field_by_index_const(elem, 0)) : NULL;
    int structs = first && is_struct(first) && !td_recorded_struct(first);
    uint64_t k = structs ? members(first) : 1, stride = (k ? k : 1) * SLOT;
    if (first && !structs) { /* leaves: one after the other, as the value's own bytes */
        tf_capture probe;
        unsigned char scratch[SLOT];
        if (node_of(c, &probe, scratch, first, NULL) < 0)
            return -1;
        stride = probe.size ? probe.size : 8;
    }
    unsigned char *image = take(c, (len ? len : 1) * stride);
    tf_capture *fields = structs ? take(c, (k ? k : 1) * sizeof *fields) : NULL;
    if (!image || (structs && !fields))
        return -1;
    for (uint64_t i = 0; i < len; i++) {
        const bt_field *e = td_selected(bt_field_array_borrow_element_field_by_index_const(elem, i));
        if (structs ? fill_struct(c, i ? NULL : fields, image + i * stride, e) < 0
                    : node_of(c, n, image + i * stride, e, NULL) < 0)
            return -1;
    }
    n->flags = TF_CAP_FOLLOW | TF_CAP_ARRAY;
    n->fields = fields;
    n->nfields = structs ? (uint32_t)k : 0;
    n->size = (uint32_t)stride;
    n->count = (uint32_t)len + (uint32_t)more; /* one more than shown: cut, "..." */
    n->limit = (uint32_t)len;
    memcpy(at, &image, sizeof image);
    return 0;
}

static int node_of(td_captured *c, tf_capture *n, unsigned char *at, const bt_field *f, const char *name)
{
    memset(n, 0, sizeof *n);
    n->name = name;
    f = td_selected(f);
    if (!f || is_unreadable(f)) {
        n->flags = TF_CAP_FOLLOW; /* a NULL pointer in the image */
        return 0;
    }
    if (is_array(f)) {
        const char *keep = n->name;
        int rc = array_of(c, n, at, f);
        n->name = keep;
        return rc;
    }
    if (!is_leaf(f))
        return struct_of(c, n, at, f);
    td_slot *s = take(c, sizeof *s);
    if (!s)
        return -1;
    td_value_of(s, f, name);
    tf_value v = td_slot_value(s);
    n->kind = v.kind;
    n->type = v.type;
    n->size = 8; /* as tf_value holds it: a double, a 64-bit integer or pointer */
    if (v.kind == TF_K_INT128 || v.kind == TF_K_UINT128 || v.kind == TF_K_COMPLEX || v.kind == TF_K_VECTOR) {
        n->size = v.size <= SLOT ? v.size : SLOT;
        memcpy(at, v.v.p, n->size);
    } else {
        memcpy(at, &v.v, 8);
    }
    return 0;
}

int td_captured_of(td_captured *c, tf_value *v, const bt_field *f, const char *name)
{
    tf_capture *root = take(c, sizeof *root);
    unsigned char *at = take(c, SLOT);
    if (!root || !at || node_of(c, root, at, f, name) < 0)
        return -1;
    const unsigned char *obj;
    memcpy(&obj, at, sizeof obj);
    memset(v, 0, sizeof *v);
    v->name = name;
    v->kind = TF_K_PTR;
    v->size = sizeof(void *);
    v->v.p = (root->flags & TF_CAP_FOLLOW) ? obj : NULL;
    v->type = root;
    return 0;
}

int td_captured_field(const bt_field *f)
{
    f = td_selected(f);
    /* A captured structure has a member (a SPEC names at least one field);
     * an empty one is another producer's struct value (shown {...}). */
    return f && (is_unreadable(f) || is_array(f) || (is_struct(f) && members(f) && !td_recorded_struct(f)));
}

void td_captured_free(td_captured *c)
{
    while (c->blocks) {
        block *b = c->blocks;
        c->blocks = b->next;
        free(b);
    }
}
