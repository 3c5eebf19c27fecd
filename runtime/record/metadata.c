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
#include "tsdl.h"

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

void rm_names(char *h, size_t hcap, char *p, size_t pcap)
{
    size_t n = strnlen(host, hcap - 1), m = strnlen(proc, pcap - 1);
    memcpy(h, host, n);
    h[n] = 0;
    memcpy(p, proc, m);
    p[m] = 0;
}

#define PUT_LOST(e, name, what)                                                                \
    tf__buf_puts(&b, "\ttf_lost_" name " = ");                                                 \
    tf__buf_uint(&b, c->lost[TFR_LOST_##e]);                                                   \
    tf__buf_puts(&b, ";\n");
#define PUT_DROP(e, name, what)                                                                \
    tf__buf_puts(&b, "\ttf_dropped_" name " = ");                                              \
    tf__buf_uint(&b, c->drops[TFR_DROP_##e]);                                                  \
    tf__buf_puts(&b, ";\n");

/* What the trace lost, each cause on its own (layout.h), and which
 * recording it is: tf-dump says the same as the exit line. */
static void put_counts(tf_buf *out, const rt_counts *c)
{
    tf_buf b = *out;
    char id[17];
    for (int i = 0; i < 16; i++)
        id[i] = "0123456789abcdef"[c->id >> (60 - 4 * i) & 15];
    id[16] = 0;
    tf__buf_puts(&b, "\ttf_recording = \"");
    tf__buf_puts(&b, id);
    tf__buf_puts(&b, "\";\n\ttf_threads = ");
    tf__buf_uint(&b, c->threads);
    tf__buf_puts(&b, ";\n");
    TFR_LOSSES(PUT_LOST)
    TFR_DROPS(PUT_DROP)
    *out = b;
}

size_t rm_preamble(char *out, size_t cap, const rt_counts *c)
{
    tf_buf b = {out, cap, 0};
    tf__buf_puts(&b, tfr_tsdl_types);
    tf__buf_puts(&b, "env {\n\tdomain = \"ust\";\n\ttracer_name = \"tf\";\n"
                     "\ttracer_major = 1;\n\ttracer_minor = 0;\n\thostname = \"");
    tf__buf_puts(&b, host);
    tf__buf_puts(&b, "\";\n\tvpid = ");
    tf__buf_int(&b, getpid());
    tf__buf_puts(&b, ";\n\tprocname = \"");
    tf__buf_puts(&b, proc);
    tf__buf_puts(&b, rt_cfg.stream ? "\";\n\ttf_mode = \"stream\";\n" : "\";\n\ttf_mode = \"ring\";\n");
    tf__buf_puts(&b, rt_cfg.values ? "\ttf_values = 1;\n" : "\ttf_values = 0;\n");
    tf__buf_puts(&b, tf__clock_tsc ? "\ttf_clock = \"tsc\";\n" : "\ttf_clock = \"monotonic\";\n");
    put_counts(&b, c);
    tf__buf_puts(&b, "};\n\n");
    /* The pool's calibration, as tf-dump reads it from a ring file too. */
    uint64_t freq, offset;
    int64_t secs;
    tfr_header h;
    fenv_t fp;
    tf__fp_enter(&fp); /* maybe in a signal handler: the program's environment is kept */
    if (rt_pool_clock(&h) != 0 || !tfr_clock_of(&h, &freq, &secs, &offset)) {
        double hz = tf__clock_hz(0);
        int64_t off = tf__clock_epoch_offset_ns(hz), rest = off % 1000000000;
        secs = off / 1000000000;
        if (rest < 0) {
            rest += 1000000000;
            secs--;
        }
        freq = (uint64_t)(hz + 0.5);
        offset = (uint64_t)((double)rest * hz / 1e9);
    }
    tf__fp_leave(&fp);
    tf__buf_puts(&b, "clock {\n\tname = \"tf\";\n\tdescription = \"");
    tf__buf_puts(&b, tf__clock_tsc ? "TSC, calibrated against CLOCK_MONOTONIC" : "CLOCK_MONOTONIC");
    tf__buf_puts(&b, "\";\n\tfreq = ");
    tf__buf_uint(&b, freq);
    tf__buf_puts(&b, ";\n\tprecision = 1;\n\toffset_s = ");
    tf__buf_int(&b, secs);
    tf__buf_puts(&b, ";\n\toffset = ");
    tf__buf_uint(&b, offset);
    tf__buf_puts(&b, ";\n\tabsolute = FALSE;\n};\n\n");
    tf__buf_puts(&b, tfr_tsdl_clocked);
    return b.len;
}
