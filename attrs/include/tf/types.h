/*
 * types.h: the monitor interface (docs/design.md .shape.monitor, a contract)
 * and the translation-unit descriptor that both compiler plugins emit.
 *
 * The descriptor structs are an ABI: the GCC and Clang plugins build them as
 * static data from the same table, <tf/abi.def>, that this header expands;
 * a layout change is an edit there (docs/code-shape.md says what the
 * generated code does with it).
 */
#ifndef TF_TYPES_H
#define TF_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include <tf/tf.h>
#include <tf/abi.def>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tf_monitor tf_monitor;
typedef struct tf_factory tf_factory;
typedef struct tf_tu tf_tu;

/* ---- values passed to monitors, and the TU descriptor --------------------
 * Written once in <tf/abi.def> (its comments say what each field holds) and
 * expanded here; the plugins expand the same table. */

typedef enum tf_kind {
#define TF_ABI_KIND(NAME, VALUE) NAME = VALUE,
#include <tf/abi.def>
} tf_kind;

typedef enum tf_exc_kind {
#define TF_ABI_EXC(NAME, VALUE) NAME = VALUE,
#include <tf/abi.def>
} tf_exc_kind;

typedef struct tf_enumerator tf_enumerator;
typedef struct tf_enum_type tf_enum_type;
typedef union tf_payload tf_payload;
typedef struct tf_value tf_value;
typedef struct tf_args tf_args;
typedef struct tf_exception tf_exception;
typedef struct tf_name tf_name;
typedef struct tf_tu_group tf_tu_group;
typedef struct tf_group_decl tf_group_decl;
typedef struct tf_capture tf_capture;

#define TF_ABI_STRUCT(NAME, SIZE) struct NAME {
#define TF_ABI_UNION(NAME, SIZE) union NAME {
#define TF_ABI_FIELD(STRUCT, NAME, C_TYPE, SHAPE, OFFSET) C_TYPE NAME;
#define TF_ABI_END(NAME, SIZE) };
#include <tf/abi.def>

/* ---- the monitor interface (contract) ----------------------------------- */

typedef struct tf_monitor_ops {
    void (*enter)(tf_monitor *self, int id, const tf_args *args);
    void (*info)(tf_monitor *self, const tf_args *args, int caller_id, int self_id,
                 tf_tp_type tp);
    void (*exit)(tf_monitor *self, int id, const tf_value *result); /* NULL: void or after exception */
    void (*exception)(tf_monitor *self, int id, const tf_exception *exc);
    void (*clear)(tf_monitor *self);
    void (*destroy)(tf_monitor *self);
    /* An extension after the contract's six operations: TF_OPS_* bits, 0 when
     * left out of an initializer (every monitor written before it). */
    unsigned flags; /* offset 48: the plugins' generated code reads it */
} tf_monitor_ops;

/* TF_OPS_NO_VALUES (<tf/abi.def>) in tf_monitor_ops.flags: the monitor reads no argument and no result values.
 * The generated code then skips building them: enter and info get args NULL,
 * exit gets result NULL. Tracing still calls every operation; it only saves
 * the marshalling (about 20 instructions per call of a one-argument
 * function). noop and timing set it; compose sets it when all parts do.
 * flags with any other bit set reads as an ops table never initialized: the
 * runtime says so on stderr and builds values for that monitor. */

struct tf_monitor {
    const tf_monitor_ops *ops;
    const tf_tu *tu;
    tf_factory *factory;
};

/* Set in tf_factory.flags by a factory whose monitors never call monitored code
 * (or guard themselves): the registry then skips its reentrancy guard. */
#define TF_FACTORY_NO_GUARD 1u

struct tf_factory {
    const char *name;
    tf_monitor *(*create)(tf_factory *self, const tf_tu *tu);
    unsigned flags; /* TF_FACTORY_*; 0 for user factories */
};

/* The layout every plugin emits, checked against <tf/abi.def>. */
#ifdef __cplusplus
#define TF_ABI_ASSERT static_assert
#else
#define TF_ABI_ASSERT _Static_assert
#endif
#define TF_ABI_FIELD(STRUCT, NAME, C_TYPE, SHAPE, OFFSET) \
    TF_ABI_ASSERT(offsetof(STRUCT, NAME) == OFFSET, "abi.def: offset of " #STRUCT "." #NAME);
#define TF_ABI_OFFSET(STRUCT, FIELD, OFFSET) \
    TF_ABI_ASSERT(offsetof(STRUCT, FIELD) == OFFSET, "abi.def: offset of " #STRUCT "." #FIELD);
#define TF_ABI_END(NAME, SIZE) TF_ABI_ASSERT(sizeof(NAME) == SIZE, "abi.def: size of " #NAME);
#include <tf/abi.def>
#undef TF_ABI_ASSERT

/* Called by the constructor / destructor the plugins emit in each TU. */
void tf_tu_register(tf_tu *tu);
void tf_tu_unregister(tf_tu *tu);

/* The in-place shape's enter and exit hooks (docs/code-shape.md 3.2), called
 * by generated code with mm not NULL: tmpl holds each value's name, kind, size
 * and type, payloads its payload; they call mm->ops->enter / exit with the
 * tf_args or tf_value put together (NULL for a monitor with TF_OPS_NO_VALUES). */
void tf_hook_enter(tf_monitor *mm, int id, uint32_t count, const tf_value *tmpl, const tf_payload *payloads);
void tf_hook_exit(tf_monitor *mm, int id, const tf_value *tmpl, const tf_payload *payload);

/* Return codes. */
#define TF_OK 0
#define TF_EPERM (-1)   /* the caller is not permitted                  */
#define TF_EINVAL (-2)  /* a bad argument                               */
#define TF_ENOMEM (-3)  /* out of memory                                */
#define TF_ENOENT (-4)  /* no such group, TU or name                    */

#ifdef __cplusplus
}
#endif
#endif
