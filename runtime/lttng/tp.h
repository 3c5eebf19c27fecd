/*
 * tp.h: the LTTng-UST tracepoint provider `tf` (docs/design.md .lttng, a
 * contract): the event names and fields follow docs/trace-format.md ("The
 * LTTng factory"), so one set of tools reads a TF recording and an LTTng
 * session alike. LTTng-UST fixes an event's fields at compile time, so
 * argument and result values travel as text in dprint's value syntax.
 *
 * No text is ever empty: a function without arguments has args "void", like
 * a void result. Babeltrace 2.0.4 (Debian 12) shows an empty string field as
 * the value the same field had in an earlier event; "void" is no value in
 * dprint's syntax (an enumerator cannot be called that), so it is unambiguous.
 *
 * Read several times by lttng/tracepoint-event.h (tp.c), as LTTng requires.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tf

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./tp.h"

#if !defined(TF_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TF_LTTNG_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

/* tf_tp_type and tf_exc_kind, labelled as the recorder labels them. */
LTTNG_UST_TRACEPOINT_ENUM(tf, tp,
    LTTNG_UST_TP_ENUM_VALUES(
        lttng_ust_field_enum_value("none", 0)
        lttng_ust_field_enum_value("enter", 1)
        lttng_ust_field_enum_value("exit", 2)))

LTTNG_UST_TRACEPOINT_ENUM(tf, kind,
    LTTNG_UST_TP_ENUM_VALUES(
        lttng_ust_field_enum_value("throw", 1)
        lttng_ust_field_enum_value("unwind", 2)
        lttng_ust_field_enum_value("noreturn", 3)))

/* func (and info) is "<tu>.<name>"; tid the kernel thread id (the recorder
 * has it in its packet context; LTTng's vtid context gives it too). */
LTTNG_UST_TRACEPOINT_EVENT(tf, enter,
    LTTNG_UST_TP_ARGS(const char *, func, const char *, args, int32_t, tid),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(func, func)
        lttng_ust_field_string(args, args)
        lttng_ust_field_integer(int32_t, tid, tid)))

/* result: the value as dprint shows it, "void" for a void function and for
 * the exit of a function left by an exception. */
LTTNG_UST_TRACEPOINT_EVENT(tf, exit,
    LTTNG_UST_TP_ARGS(const char *, func, const char *, result, int32_t, tid),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(func, func)
        lttng_ust_field_string(result, result)
        lttng_ust_field_integer(int32_t, tid, tid)))

LTTNG_UST_TRACEPOINT_EVENT(tf, info,
    LTTNG_UST_TP_ARGS(const char *, func, const char *, info, uint8_t, tp,
                      const char *, args, int32_t, tid),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(func, func)
        lttng_ust_field_string(info, info)
        lttng_ust_field_enum(tf, tp, uint8_t, tp, tp)
        lttng_ust_field_string(args, args)
        lttng_ust_field_integer(int32_t, tid, tid)))

/* type: the thrown type ("std::runtime_error", "unknown" for a rethrow), or
 * for kind noreturn the callee ("longjmp"). */
LTTNG_UST_TRACEPOINT_EVENT(tf, exception,
    LTTNG_UST_TP_ARGS(const char *, func, uint8_t, kind, const char *, type, int32_t, tid),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(func, func)
        lttng_ust_field_enum(tf, kind, uint8_t, kind, kind)
        lttng_ust_field_string(type, type)
        lttng_ust_field_integer(int32_t, tid, tid)))

#endif

#include <lttng/tracepoint-event.h>
