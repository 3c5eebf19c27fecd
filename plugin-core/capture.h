/*
 * capture.h: field capture (docs/design.md .cap): the data behind the
 * pointers a function takes or returns, named by the user and nothing else
 * (the Kieker record language follows references only where told), bounded.
 *
 *   capture FILE_GLOB FUNCTION_GLOB SPEC [max N]      rules file
 *   TF_CAPTURE("SPEC")                                 on a function
 *
 *   SPEC  := ITEM {',' ITEM} ['max' N]
 *   ITEM  := ROOT '{' FIELDS '}' | ROOT '[' LEN ']' ['{' FIELDS '}']
 *   ROOT  := a parameter | 'return' | 'this'
 *   FIELD := NAME ['{' FIELDS '}'] | NAME '[' LEN ']' ['{' FIELDS '}']
 *   LEN   := a parameter (at the root), a sibling field, or a number
 *
 * `c{fd,peer{name,port}}` shows `c={fd=3, peer={name="db1", port=5432}}`;
 * `buf[len]` the len elements buf points to, at most `max` bytes (256 by
 * default). Both plugins resolve a SPEC against the declared types through
 * capture_types, here, so an unknown field or a capture of a non-pointer is
 * the same compile error with both; they then emit the tf_capture records of
 * <tf/abi.def> from the capture_node tree, and libtf reads every field through
 * its fault-proof reader (runtime/capture.c).
 */
#ifndef TF_CORE_CAPTURE_H
#define TF_CORE_CAPTURE_H

#include <string>
#include <vector>

namespace tf {
namespace core {

/* Bytes an array is captured up to without `max N`, and the most `max` may say. */
constexpr unsigned default_capture_max = 256;
constexpr unsigned max_capture_max = 4096;

struct capture_item {
    std::string name;     /* a parameter, "return", "this", or a field */
    unsigned column = 0;  /* 1-based, in the SPEC text */
    bool array = false;   /* NAME[LEN] */
    std::string length;   /* LEN as written */
    unsigned length_column = 0;
    std::vector<capture_item> fields; /* NAME{...}: empty when no braces */
};

struct capture_spec {
    std::vector<capture_item> items;
    unsigned max = default_capture_max;
};

/* Parses text; "" or the error, with *column (1-based) where it is. */
std::string parse_capture_spec(const std::string &text, capture_spec &out, unsigned &column);

/* ---- resolving a SPEC against the declared types -------------------------- */

/* A type as a plugin holds it (GCC: a tree; Clang: a QualType's pointer). */
typedef const void *ctype;

/* What a value of some type is, as tf_value describes it (docs/code-shape.md). */
struct value_shape {
    int kind = 0;          /* TF_K_* */
    unsigned size = 0;     /* sizeof */
    std::string type;      /* STRUCT: its spelling; COMPLEX, VECTOR: the element code */
    ctype enum_type = 0;   /* ENUM: the plugin's type, for its tf_enum_type */
    int enum_index = -1;   /* ENUM: or its index in a plugin's own table */
};

/* The questions the resolver asks; each plugin answers for its compiler. */
class capture_types {
public:
    virtual ~capture_types() {}
    virtual value_shape shape(ctype t) = 0;
    /* What a data pointer (or reference) points to; 0 for anything else. */
    virtual ctype pointee(ctype t) = 0;
    /* A fixed-size array's element type and count; 0 for anything else. */
    virtual ctype array_element(ctype t, unsigned &count) = 0;
    /* A complete struct, union or class. */
    virtual bool is_record(ctype t) = 0;
    virtual bool is_void(ctype t) = 0;
    /* Plain `char` (not signed or unsigned char): arrays of it are text. */
    virtual bool is_plain_char(ctype t) = 0;
    /* The member `name` of record t (also inside anonymous members): its
     * type and byte offset; false when there is none. *bitfield set for a
     * bit-field (which has no byte of its own). */
    virtual bool field(ctype record, const std::string &name, ctype &type, unsigned &offset, bool &bitfield) = 0;
    /* Every member name of record t, in declaration order. */
    virtual std::vector<std::string> field_names(ctype record) = 0;
    /* "struct conn", "ns::conn" (as diagnostics name types). */
    virtual std::string spelling(ctype t) = 0;
};

/* tf_capture.flags (<tf/abi.def> has the runtime's view). */
enum { CAP_FOLLOW = 1, CAP_ARRAY = 2, CAP_LEN_ARG = 4, CAP_LEN_FIELD = 8, CAP_TEXT = 16, CAP_HIDDEN = 32 };

/* One record of the tree the plugins emit as tf_capture. */
struct capture_node {
    std::string name;
    value_shape shape;     /* of the field; of one element for arrays */
    unsigned offset = 0;   /* in the object it is read from */
    unsigned flags = 0;    /* CAP_* */
    std::vector<capture_node> fields;
    int length = -1;       /* CAP_LEN_ARG: index of the value; CAP_LEN_FIELD: of the sibling */
    unsigned count = 0;    /* ARRAY without a length: its elements */
    unsigned limit = 0;    /* ARRAY: elements read at most (max bytes' worth) */
};

/* A value the captured roots may be: a parameter as the hooks pass it
 * (`this` first in C++ members, names as tf_value has them), or the result. */
struct capture_root {
    std::string name;      /* parameter name, "this"; "return" for the result */
    ctype type = 0;        /* 0: void result */
};

/* A resolved ITEM: which value (index into the roots) and its tree. */
struct capture_resolved {
    size_t root;
    capture_node node;
};

/* Resolves spec for a function named fn with these roots; "" or the error
 * (at *column of the SPEC text; the plugin says which function and which
 * rules line or attribute asked). The nodes come out in SPEC order. */
std::string resolve_capture(const capture_spec &spec, const std::string &fn, const std::vector<capture_root> &roots,
                            capture_types &types, std::vector<capture_resolved> &out, unsigned &column);

} // namespace core
} // namespace tf

#endif
