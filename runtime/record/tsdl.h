/*
 * tsdl.h: the fixed text of the recorder's CTF metadata (docs/trace-format.md).
 * A metadata file is, in order:
 *
 *   tfr_tsdl_types, env { ... }, clock { ... }, tfr_tsdl_clocked,
 *   the function enumerations (tf_func16_t, tf_func32_t: classes.c),
 *   tfr_tsdl_stream, tfr_tsdl_fixed_events, the classes with values.
 *
 * libtf writes it (metadata.c, classes.c); tf-dump rebuilds it from a ring
 * file's header and metadata log with the same pieces (rings.c). Header
 * only, shared as layout.h is.
 */
#ifndef TF_RECORD_TSDL_H
#define TF_RECORD_TSDL_H

#include "layout.h"

#define TFR_UNUSED __attribute__((unused))

static const char tfr_tsdl_types[] TFR_UNUSED =
    "/* CTF 1.8 */\n\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; base = 16; } := tf_addr_t;\n"
    "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n\n"
    "trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
    "\tpacket.header := struct { uint32_t magic; };\n};\n\n";

/* After the clock: what refers to it, and the small enumerations. */
static const char tfr_tsdl_clocked[] TFR_UNUSED =
    "typealias integer { size = 27; align = 1; signed = false; map = clock.tf.value; } := uint27_clock_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.tf.value; } := uint64_clock_t;\n"
    "typealias enum : uint8_t { \"none\" = 0, \"enter\" = 1, \"exit\" = 2 } := tf_tp_t;\n"
    "typealias enum : uint8_t { \"throw\" = 1, \"unwind\" = 2, \"noreturn\" = 3 } := tf_exc_kind_t;\n"
    "typealias enum : uint8_t { \"SIGHUP\" = 1, \"SIGINT\" = 2, \"SIGQUIT\" = 3, \"SIGILL\" = 4, "
    "\"SIGTRAP\" = 5, \"SIGABRT\" = 6, \"SIGBUS\" = 7, \"SIGFPE\" = 8, \"SIGKILL\" = 9, "
    "\"SIGUSR1\" = 10, \"SIGSEGV\" = 11, \"SIGUSR2\" = 12, \"SIGPIPE\" = 13, \"SIGALRM\" = 14, "
    "\"SIGTERM\" = 15, \"SIGSTKFLT\" = 16, \"SIGCHLD\" = 17, \"SIGCONT\" = 18, \"SIGSTOP\" = 19, "
    "\"SIGTSTP\" = 20, \"SIGTTIN\" = 21, \"SIGTTOU\" = 22, \"SIGURG\" = 23, \"SIGXCPU\" = 24, "
    "\"SIGXFSZ\" = 25, \"SIGVTALRM\" = 26, \"SIGPROF\" = 27, \"SIGWINCH\" = 28, \"SIGIO\" = 29, "
    "\"SIGPWR\" = 30, \"SIGSYS\" = 31 } := tf_signal_t;\n\n";

static const char tfr_tsdl_stream[] TFR_UNUSED =
    "stream {\n"
    "\tpacket.context := struct {\n"
    "\t\tuint64_clock_t timestamp_begin;\n\t\tuint64_clock_t timestamp_end;\n"
    "\t\tuint32_t content_size;\n\t\tuint32_t packet_size;\n"
    "\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n"
    "\t\tuint32_t tid;\n"
    "\t\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } thread[16];\n"
    "\t};\n"
    "\tevent.header := struct {\n"
    "\t\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
    "\t\tvariant <id> {\n"
    "\t\t\tstruct { uint27_clock_t timestamp; } compact;\n"
    "\t\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
    "\t\t} v;\n"
    "\t};\n};\n\n";

#define TF_RECORD_EVENT(id, name, fields)                                                      \
    "event { name = \"" name "\"; id = " #id "; fields := struct { " fields " }; };\n"
static const char tfr_tsdl_fixed_events[] TFR_UNUSED =
#include "events.def"
    "\n";
#undef TF_RECORD_EVENT

/* The clock of a ring file's header as the metadata declares it: the rate
 * from the calibration's start to its latest point, the offset of clock 0
 * to the epoch. The recorder (metadata.c) and tf-dump (rings.c) compute it
 * alike, so a trace and the ring file it came from give the same times.
 * 0 when the rate was not measured (a span under a microsecond). */
static inline int tfr_clock_of(const tfr_header *h, uint64_t *freq, int64_t *offset_s, uint64_t *offset)
{
    double hz = 1e9;
    int measured = !(h->flags & TFR_TSC);
    if (h->flags & TFR_TSC && !(h->clock_gen & 1) && h->mono1 > h->mono0 + 1000 && h->tsc1 > h->tsc0) {
        hz = (double)(h->tsc1 - h->tsc0) * 1e9 / (double)(h->mono1 - h->mono0);
        measured = 1;
    }
    int64_t off = (int64_t)h->real0 - (int64_t)((double)h->tsc0 * 1e9 / hz);
    int64_t secs = off / 1000000000, rest = off % 1000000000;
    if (rest < 0) {
        rest += 1000000000;
        secs--;
    }
    *freq = (uint64_t)(hz + 0.5);
    *offset_s = secs;
    *offset = (uint64_t)((double)rest * hz / 1e9);
    return measured;
}

#endif
