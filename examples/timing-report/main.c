/*
 * main.c: wc-timing, a word-frequency counter that answers "where does the
 * time go?" with a TF timing report.
 *
 *   wc-timing [--hash=prefix|fnv] [--timing[=text|json|csv]] [--trace=FILE] [FILE...]
 *
 * Without files it writes a 4 MB demo corpus to a temporary file and counts
 * that. --timing registers the `timing` factory on group wc (and so on every
 * group below it) from code and prints the report after the results;
 * --trace also writes the last events of the run as a Chrome trace. The same
 * report needs no code at all: TF_MONITORS='wc=timing' TF_REPORT=- wc-timing
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tf/registry.h>
#include <tf/timing.h>

#include "wc.h"

TF_MONITOR(wc) static size_t process_file(const char *path, struct index *ix)
{
    size_t len, words = 0;
    char *text = read_file(path, &len);
    if (!text) {
        perror(path);
        return 0;
    }
    words = parse_text(text, len, ix);
    free(text);
    return words;
}

static int usage(void)
{
    fputs("usage: wc-timing [--hash=prefix|fnv] [--timing[=text|json|csv]] [--trace=FILE] [FILE...]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    enum hash_kind hash = HASH_PREFIX;
    int timing = 0, first_file = argc;
    tf_timing_format format = TF_TIMING_TEXT;
    const char *trace = NULL;
    for (int i = 1; i < argc && first_file == argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--hash=prefix") == 0)
            hash = HASH_PREFIX;
        else if (strcmp(a, "--hash=fnv") == 0)
            hash = HASH_FNV;
        else if (strcmp(a, "--timing") == 0 || strcmp(a, "--timing=text") == 0)
            timing = 1, format = TF_TIMING_TEXT;
        else if (strcmp(a, "--timing=json") == 0)
            timing = 1, format = TF_TIMING_JSON;
        else if (strcmp(a, "--timing=csv") == 0)
            timing = 1, format = TF_TIMING_CSV;
        else if (strncmp(a, "--trace=", 8) == 0)
            trace = a + 8;
        else if (a[0] == '-')
            return usage();
        else
            first_file = i;
    }

    tf_timing_manager *tm = NULL;
    if (timing || trace) {
        tm = tf_timing_manager_create();
        if (trace)
            tf_timing_event_log(tm, 1 << 16);
        if (!tm || tf_register("wc", tf_timing(tm)) != TF_OK) {
            fputs("wc-timing: cannot attach the timing monitor\n", stderr);
            return 1;
        }
    }

    char demo[] = "/tmp/wc-timing-XXXXXX";
    int made_demo = first_file == argc;
    if (made_demo) {
        int fd = mkstemp(demo);
        if (fd < 0 || close(fd) != 0 || write_corpus(demo, 4u << 20, 42) != 0) {
            perror("wc-timing: demo corpus");
            return 1;
        }
    }

    struct index ix;
    index_init(&ix, hash);
    size_t words = 0;
    if (made_demo)
        words = process_file(demo, &ix);
    for (int i = first_file; i < argc; i++)
        words += process_file(argv[i], &ix);
    printf("%zu words (%s hash)\n", words, hash == HASH_FNV ? "fnv" : "prefix");
    print_top(&ix, 10);
    index_free(&ix);
    if (made_demo)
        unlink(demo);

    if (tm) {
        tf_clear("wc");
        if (timing) {
            fputc('\n', stdout);
            tf_timing_report(tm, stdout, format);
        }
        FILE *f = trace ? fopen(trace, "w") : NULL;
        if (f) {
            tf_timing_report(tm, f, TF_TIMING_CHROME_TRACE);
            fclose(f);
        }
    }
    return 0;
}
