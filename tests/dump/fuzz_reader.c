/*
 * fuzz_reader.c: libFuzzer target for tf-dump's reader (DESIGN.md section
 * 8: trace files are untrusted input). Each input is one stream file of a
 * trace whose metadata is $TF_FUZZ_METADATA; it is read through every
 * output at once, as `tf-dump --format=... --flamegraph=...` would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"

static char dir[] = "/tmp/tf-fuzz.XXXXXX";
static char stream[64];

static int setup(void)
{
    const char *meta = getenv("TF_FUZZ_METADATA");
    char link_path[64];
    if (!meta || !mkdtemp(dir))
        return fprintf(stderr, "fuzz_reader: set TF_FUZZ_METADATA to a CTF metadata file\n"), -1;
    snprintf(link_path, sizeof link_path, "%s/metadata", dir);
    snprintf(stream, sizeof stream, "%s/stream", dir);
    return symlink(meta, link_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready && setup() != 0)
        abort();
    ready = 1;
    FILE *f = fopen(stream, "w");
    FILE *null = fopen("/dev/null", "w");
    if (!f || !null)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    td_output *outs[] = {td_text_new(null), td_chrome_new(null), td_report_new(null, NULL),
                         td_flame_new(null)};
    td_read(dir, td_tee_new(outs, 4));
    fclose(null);
    return 0;
}
