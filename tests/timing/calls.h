/*
 * calls.h: monitored and info functions of TU "wc" as the plugins generate
 * them, shared by the timing tests; each does `work` ticks of fake-clock time.
 */
#ifndef TF_TESTS_TIMING_CALLS_H
#define TF_TESTS_TIMING_CALLS_H

#include "fixture.h"

#define NOINLINE __attribute__((noinline))

NOINLINE static void tokenize(uint64_t work)
{
    GEN_ENTER(__tf_holder_tokenize, ID_TOKENIZE);
    advance(work);
    GEN_EXIT(ID_TOKENIZE);
}

NOINLINE static void read_chunk(uint64_t work)
{
    GEN_ENTER(__tf_holder_io, ID_READ_CHUNK);
    advance(work);
    GEN_EXIT(ID_READ_CHUNK);
}

/* Rewritten info functions: (params, mm, caller_id). */
NOINLINE static void flush_begin(tf_monitor *mm, int caller_id)
{
    GEN_INFO(ID_FLUSH, TF_TP_ENTER, caller_id);
}

NOINLINE static void flush_end(tf_monitor *mm, int caller_id)
{
    GEN_INFO(ID_FLUSH, TF_TP_EXIT, caller_id);
}

#endif
