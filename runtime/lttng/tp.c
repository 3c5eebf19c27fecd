/* tp.c: the probes of provider `tf` (tp.h), built into libtf-lttng.so, which
 * both defines and fires the tracepoints, so it links liblttng-ust itself. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tp.h"
