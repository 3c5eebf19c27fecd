/*
 * abi.h: <tf/abi.def> for the plugins' emitters, as C++ constants. The
 * emitters build the records from the same table (TF_ABI_FIELD shapes) and
 * take every offset and constant from here, never from a copy.
 */
#ifndef TF_CORE_ABI_H
#define TF_CORE_ABI_H

namespace tf {
namespace core {

#include <tf/abi.def>

enum kind {
#define TF_ABI_KIND(NAME, VALUE) NAME = VALUE,
#include <tf/abi.def>
};

enum exc_kind {
#define TF_ABI_EXC(NAME, VALUE) NAME = VALUE,
#include <tf/abi.def>
};

/* Offsets of what the hooks read through mm: off_tf_monitor_ops_flags, ... */
enum abi_offset {
#define TF_ABI_OFFSET(STRUCT, FIELD, OFFSET) off_##STRUCT##_##FIELD = OFFSET,
#include <tf/abi.def>
};

/* sizeof of each emitted record: size_tf_tu, size_tf_value, ... */
enum abi_size {
#define TF_ABI_END(NAME, SIZE) size_##NAME = SIZE,
#include <tf/abi.def>
};

/* How an emitter builds a field (TF_ABI_FIELD's SHAPE). */
enum abi_shape { ABI_U32, ABI_I32, ABI_I64, ABI_U64, ABI_F64, ABI_STR, ABI_PTR, ABI_PAYLOAD };

struct abi_field_spec {
    const char *record, *name;
    abi_shape shape;
    unsigned offset;
};

/* Every field of every emitted record, in declaration order. */
static const abi_field_spec abi_fields[] = {
#define TF_ABI_FIELD(STRUCT, NAME, C_TYPE, SHAPE, OFFSET) {#STRUCT, #NAME, ABI_##SHAPE, OFFSET},
#include <tf/abi.def>
};

struct abi_record_spec {
    const char *name;
    unsigned size;
    bool is_union;
};

static const abi_record_spec abi_records[] = {
#define TF_ABI_STRUCT(NAME, SIZE) {#NAME, SIZE, false},
#define TF_ABI_UNION(NAME, SIZE) {#NAME, SIZE, true},
#include <tf/abi.def>
};

} // namespace core
} // namespace tf

#endif
