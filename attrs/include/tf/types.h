/*
 * types.h: the monitor interface (DESIGN.md section 4, a contract) and the
 * translation-unit descriptor that both compiler plugins emit.
 *
 * The descriptor structs are an ABI: the GCC and Clang plugins build them as
 * static data without including this header. Their layout is fixed by
 * docs/code-shape.md; change both together and bump TF_TU_ABI.
 */
#ifndef TF_TYPES_H
#define TF_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include <tf/tf.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tf_monitor tf_monitor;
typedef struct tf_factory tf_factory;
typedef struct tf_tu tf_tu;

/* ---- values passed to monitors ------------------------------------------ */

typedef enum tf_kind {
    TF_K_NONE = 0,   /* no value                                           */
    TF_K_INT = 1,    /* signed integer of `size` bytes, in v.i (char too)   */
    TF_K_UINT = 2,   /* unsigned integer of `size` bytes, in v.u            */
    TF_K_BOOL = 3,   /* v.u is 0 or 1                                       */
    TF_K_FLOAT = 4,  /* float/double/long double, as double in v.d          */
    TF_K_PTR = 5,    /* any pointer but char strings, in v.p                */
    TF_K_STR = 6,    /* const char *, NUL-terminated or NULL, in v.s        */
    TF_K_ENUM = 7,   /* v.i; type points to a tf_enum_type when known       */
    TF_K_STRUCT = 8  /* struct/union/class by value: v.p its address,
                        type its spelling ("struct point"); size its bytes  */
} tf_kind;

typedef struct tf_enumerator {
    int64_t value;
    const char *name;
} tf_enumerator;

typedef struct tf_enum_type {
    const char *name;             /* "enum color"                 */
    uint32_t count;
    uint32_t reserved;
    const tf_enumerator *items;
} tf_enum_type;

typedef struct tf_value {
    const char *name; /* parameter name; NULL for a result           offset 0  */
    uint32_t kind;    /* tf_kind                                     offset 8  */
    uint32_t size;    /* sizeof the C type                           offset 12 */
    union {
        int64_t i;
        uint64_t u;
        double d;
        const void *p;
        const char *s;
    } v;              /*                                             offset 16 */
    const void *type; /* tf_enum_type * (ENUM), const char * (STRUCT) offset 24 */
} tf_value;           /* 32 bytes */

typedef struct tf_args {
    uint32_t count;
    uint32_t reserved;
    const tf_value *values;
} tf_args;

typedef enum tf_exc_kind {
    TF_EXC_THROW = 1,    /* a throw in the function (reported before it)        */
    TF_EXC_UNWIND = 2,   /* an exception unwinding out of the function          */
    TF_EXC_NORETURN = 3  /* a call to a noreturn function (longjmp, exit, ...)  */
} tf_exc_kind;

typedef struct tf_exception {
    uint32_t kind;     /* tf_exc_kind                                            */
    uint32_t reserved;
    const char *name;  /* NORETURN: the callee's name; otherwise NULL            */
    const void *data;  /* THROW: the std::type_info * thrown (NULL: rethrow);
                          UNWIND: the _Unwind_Exception * in flight             */
} tf_exception;

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

/* tf_monitor_ops.flags: the monitor reads no argument and no result values.
 * The generated code then skips building them: enter and info get args NULL,
 * exit gets result NULL. Tracing still calls every operation; it only saves
 * the marshalling (about 20 instructions per call of a one-argument
 * function). noop and timing set it; compose sets it when all parts do.
 * flags with any other bit set reads as an ops table never initialized: the
 * runtime says so on stderr and builds values for that monitor. */
#define TF_OPS_NO_VALUES 1u

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

/* ---- the translation-unit descriptor (ABI; see docs/code-shape.md) ------ */

/* 2: the generated code reads tf_monitor_ops.flags. A libtf that knows 2 also
 * takes 1 (code that never reads it); an older libtf refuses 2, whose code
 * would read past its ops tables. */
#define TF_TU_ABI 2u

/* tf_name.flags */
#define TF_NAME_MONITOR 1u  /* a monitored function                      */
#define TF_NAME_INFO 2u     /* an info function (with TF_TP_NONE)        */
#define TF_NAME_TP_ENTER 4u /* an info function with TF_TP_ENTER         */
#define TF_NAME_TP_EXIT 8u  /* an info function with TF_TP_EXIT          */

typedef struct tf_name {
    const char *name;  /* tracing name                                   0  */
    uint32_t flags;    /* TF_NAME_*                                      8  */
    int32_t group;     /* index into tf_tu.groups, -1 for info names     12 */
    const char *file;  /* file of the definition (header or source)     16 */
    uint32_t line;     /*                                                24 */
    uint32_t reserved; /*                                                28 */
} tf_name;             /* 32 bytes */

typedef struct tf_tu_group {
    const char *name;     /* group name                                  0 */
    tf_monitor **holder;  /* the TU's slot for the group's monitor       8 */
} tf_tu_group;            /* 16 bytes */

typedef struct tf_group_decl {
    const char *name;               /* a TF_GROUP visible in the TU      0  */
    const char *const *subgroups;   /* its subgroups                     8  */
    uint32_t nsubgroups;            /*                                   16 */
    uint32_t reserved;              /*                                   20 */
} tf_group_decl;                    /* 24 bytes */

struct tf_tu {
    uint32_t abi;               /* TF_TU_ABI                             0  */
    uint32_t size;              /* sizeof(tf_tu) as emitted              4  */
    const char *file;           /* main input file, as the compiler saw  8  */
    const char *name;           /* its base name without extension       16 */
    uint32_t nnames;            /*                                       24 */
    uint32_t ngroups;           /*                                       28 */
    uint32_t ndecls;            /*                                       32 */
    uint32_t flags;             /* 0                                     36 */
    const tf_name *names;       /* sorted by strcmp of name; id = index  40 */
    const tf_tu_group *groups;  /* groups used by monitored functions    48 */
    const tf_group_decl *decls; /* TF_GROUPs visible in the TU           56 */
};                              /* 64 bytes */

/* Called by the constructor / destructor the plugins emit in each TU. */
void tf_tu_register(tf_tu *tu);
void tf_tu_unregister(tf_tu *tu);

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
