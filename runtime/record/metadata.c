/*
 * metadata.c: the fixed parts of the CTF metadata (docs/trace-format.md):
 * types, trace, env, clock, stream. Formatted when a trace is written, with
 * the async-signal-safe tf_buf functions only: the clock's rate is
 * calibrated up to that moment and vpid is the writing process's.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "record.h"

static char host[64] = "?", proc[17] = "?";

void rm_init(void)
{
    if (gethostname(host, sizeof host - 1) != 0)
        strcpy(host, "?");
    if (prctl(PR_GET_NAME, proc) != 0)
        strcpy(proc, "?");
    for (char *c = proc; *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
            *c = '_';
}

static const char types[] =
    "/* CTF 1.8 */\n\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n\n"
    "trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
    "\tpacket.header := struct { uint32_t magic; };\n};\n\n";

size_t rm_preamble(char *out, size_t cap)
{
    tf_buf b = {out, cap, 0};
    tf__buf_puts(&b, types);
    tf__buf_puts(&b, "env {\n\tdomain = \"ust\";\n\ttracer_name = \"tf\";\n"
                     "\ttracer_major = 1;\n\ttracer_minor = 0;\n\thostname = \"");
    tf__buf_puts(&b, host);
    tf__buf_puts(&b, "\";\n\tvpid = ");
    tf__buf_int(&b, getpid());
    tf__buf_puts(&b, ";\n\tprocname = \"");
    tf__buf_puts(&b, proc);
    tf__buf_puts(&b, rt_cfg.stream ? "\";\n\ttf_mode = \"stream\";\n" : "\";\n\ttf_mode = \"ring\";\n");
    tf__buf_puts(&b, rt_cfg.values ? "\ttf_values = 1;\n" : "\ttf_values = 0;\n");
    tf__buf_puts(&b, tf__clock_tsc ? "\ttf_clock = \"tsc\";\n};\n\n" : "\ttf_clock = \"monotonic\";\n};\n\n");
    fenv_t fp;
    tf__fp_enter(&fp); /* maybe in a signal handler: the program's environment is kept */
    double hz = tf__clock_hz(0);
    int64_t off = tf__clock_epoch_offset_ns(hz);
    uint64_t freq = (uint64_t)(hz + 0.5);
    int64_t secs = off / 1000000000, rest = off % 1000000000;
    if (rest < 0) {
        rest += 1000000000;
        secs--;
    }
    uint64_t offset = (uint64_t)((double)rest * hz / 1e9);
    tf__fp_leave(&fp);
    tf__buf_puts(&b, "clock {\n\tname = \"tf\";\n\tdescription = \"");
    tf__buf_puts(&b, tf__clock_tsc ? "TSC, calibrated against CLOCK_MONOTONIC" : "CLOCK_MONOTONIC");
    tf__buf_puts(&b, "\";\n\tfreq = ");
    tf__buf_uint(&b, freq);
    tf__buf_puts(&b, ";\n\tprecision = 1;\n\toffset_s = ");
    tf__buf_int(&b, secs);
    tf__buf_puts(&b, ";\n\toffset = ");
    tf__buf_uint(&b, offset);
    tf__buf_puts(&b, ";\n\tabsolute = FALSE;\n};\n\n"
        "typealias integer { size = 27; align = 1; signed = false; map = clock.tf.value; } := uint27_clock_t;\n"
        "typealias integer { size = 64; align = 8; signed = false; map = clock.tf.value; } := uint64_clock_t;\n"
        "typealias enum : uint8_t { \"none\" = 0, \"enter\" = 1, \"exit\" = 2 } := tf_tp_t;\n"
        "typealias enum : uint8_t { \"throw\" = 1, \"unwind\" = 2, \"noreturn\" = 3 } := tf_exc_kind_t;\n\n");
    return b.len;
}

static const char stream[] =
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

size_t rm_stream(char *out, size_t cap)
{
    size_t n = sizeof stream - 1 < cap ? sizeof stream - 1 : cap;
    memcpy(out, stream, n);
    return n;
}
