/*
 * lttng.h: the factory `lttng` (docs/design.md .lttng), in its own library so
 * that libtf never depends on liblttng-ust: link -ltf-lttng to call it from
 * code. TF_MONITORS='group=lttng' needs no link: libtf loads libtf-lttng.so
 * from its own directory on first use.
 */
#ifndef TF_LTTNG_H
#define TF_LTTNG_H

#include <tf/monitors.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Emits every event as an LTTng-UST event of provider `tf`: tf:enter,
 * tf:exit, tf:info, tf:exception (fields in docs/trace-format.md). Events
 * reach an `lttng` session that enables them (`lttng enable-event -u 'tf:*'`);
 * with none, a hook costs one flag test. */
tf_factory *tf_lttng(void);

#ifdef __cplusplus
}
#endif
#endif
