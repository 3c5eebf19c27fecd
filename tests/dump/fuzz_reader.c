/*
 * fuzz_reader.c: libFuzzer target for tf-dump's readers (docs/design.md
 * .rel.input: trace files are untrusted input). TF_FUZZ_MODE chooses what an
 *   input is: (unset)  one stream file of a trace whose metadata is
 *            $TF_FUZZ_METADATA, read as tf-dump reads it (babeltrace2 for a
 *   metadata not TF's); trace    a 4-byte length, that much metadata, then one
 *            stream file: the metadata is fuzzed too, read by tf-dump's own
 *   reader only; rings    a ring file (runtime/record/layout.h), read by
 * rings.c. Each is read through every output at once, as `tf-dump --format=...
 * --flamegraph=...` would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "rings.h"

static char dir[] = "/tmp/tf-fuzz.XXXXXX";
static char stream[64], metadata[64];
static const char *mode;

static int setup(void)
{
    const char *meta = getenv("TF_FUZZ_METADATA");
    mode = getenv("TF_FUZZ_MODE") ? getenv("TF_FUZZ_MODE") : "";
    td_probe_stall_s = 1; /* a stalled babeltrace2 is found out within libFuzzer's -timeout */
    if (!mkdtemp(dir))
        return -1;
    snprintf(metadata, sizeof metadata, "%s/metadata", dir);
    snprintf(stream, sizeof stream, "%s/stream", dir);
    if (*mode)
        return strcmp(mode, "trace") && strcmp(mode, "rings") ? -1 : 0;
    if (!meta)
        return fprintf(stderr, "fuzz_reader: set TF_FUZZ_METADATA to a CTF metadata file\n"), -1;
    return symlink(meta, metadata);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
}

/* The tee keeps the array of outputs it is given. */
static td_output *every_output(FILE *null)
{
    static td_output *outs[4];
    outs[0] = td_text_new(null);
    outs[1] = td_chrome_new(null);
    outs[2] = td_report_new(null, NULL);
    outs[3] = td_flame_new(null);
    return td_tee_new(outs, 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready && setup() != 0)
        abort();
    ready = 1;
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        abort();
    if (!strcmp(mode, "rings")) {
        td_trace *t = td_rings_read("fuzz", data, size);
        td_output *out = every_output(null);
        if (t)
            td_native_read(&t, 1, out);
        out->finish(out->self);
        td_trace_free(t);
    } else {
        size_t m = 0;
        if (!strcmp(mode, "trace") && size >= 4) {
            uint32_t len;
            memcpy(&len, data, 4);
            m = len < size - 4 ? len : size - 4;
            write_file(metadata, data + 4, m);
            data += 4 + m;
            size -= 4 + m;
        }
        write_file(stream, data, size);
        td_read_options o = {.reader = *mode ? TD_READER_TF : TD_READER_AUTO};
        td_read_with(dir, every_output(null), &o);
    }
    fclose(null);
    return 0;
}
