/*
 * test_ring.c: the recorder's rings through the monitor API (fake_tu.h), read
 * back by a minimal decoder of the packets (docs/trace-format.md, "Layout"):
 * a thread's first event, wrap-around in a 4 KiB ring with packets across its
 * end, many threads, threads that exited before the dump, hundreds of
 * short-lived threads within TF_RECORD_TOTAL (64K here: 64 packets of 1 KiB),
 * and snapshots taken while threads record and end (the seqlock; under
 * ThreadSanitizer in the sanitized build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>

#include <tf/monitors.h>
#include <tf/record.h>
#include <tf/timing.h>

#include "fake_tu.h"

typedef struct ev {
    uint32_t cls;
    uint64_t ts;
    int32_t value; /* x of read_int's enter, or its result */
} ev;

typedef struct trace {
    ev evs[4096];
    size_t n;
    uint64_t first_seq, last_seq;
    size_t bytes;
    int gaps; /* packets missing between two kept ones */
} trace;

static uint32_t u32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static void decode_packet(trace *t, const unsigned char *p, size_t len)
{
    assert_int_equal(u32(p), 0xC1FC1FC1u);
    size_t content = u32(p + 20) / 8;
    assert_true(content >= 64 && content <= len);
    uint64_t now = u64(p + 4);
    for (size_t at = 64; at < content; t->n++) {
        ev *e = &t->evs[t->n];
        uint32_t w = u32(p + at);
        if ((w & 31) == 31) {
            e->cls = u32(p + at + 1);
            now = u64(p + at + 5);
            at += 13;
        } else {
            e->cls = w & 31;
            uint64_t low = w >> 5;
            now = ((now & ~((1ull << 27) - 1)) | low) + (low < (now & ((1ull << 27) - 1)) ? 1ull << 27 : 0);
            at += 4;
        }
        e->ts = now;
        at += 2; /* func */
        if (e->cls >= 16) { /* a class with values: read_int's x or result (RC_FIRST_VALUES) */
            e->value = (int32_t)u32(p + at);
            at += 4;
        }
        assert_true(at <= content);
    }
}

static void load(trace *t, const char *dir, int thread)
{
    char path[256];
    snprintf(path, sizeof path, "%s/thread-%d", dir, thread);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char buf[1 << 16];
    memset(t, 0, sizeof *t);
    t->first_seq = UINT64_MAX;
    uint64_t prev = UINT64_MAX;
    for (;;) {
        unsigned char head[64];
        if (fread(head, 1, 64, f) != 64)
            break;
        size_t size = u32(head + 24) / 8;
        memcpy(buf, head, 64);
        assert_int_equal(fread(buf + 64, 1, size - 64, f), size - 64);
        uint64_t seq = u64(head + 28);
        if (prev != UINT64_MAX) {
            assert_true(seq > prev); /* oldest to newest */
            t->gaps += seq != prev + 1;
        }
        if (t->first_seq == UINT64_MAX)
            t->first_seq = seq;
        prev = t->last_seq = seq;
        t->bytes += size;
        decode_packet(t, buf, size);
    }
    fclose(f);
}

/* enter x, exit 2x, for x in [from, to): checks that t ends with them. */
static void assert_calls_end(const trace *t, int from, int to)
{
    assert_true(t->n >= 2);
    size_t calls = t->n / 2;
    int x = to - (int)calls;
    assert_true(x >= from);
    for (size_t i = t->n % 2; i < t->n; i += 2, x++) {
        assert_int_equal(t->evs[i].value, x);
        assert_int_equal(t->evs[i + 1].value, 2 * x);
        assert_true(t->evs[i].ts <= t->evs[i + 1].ts);
    }
    assert_int_equal(x, to);
}

static void test_first_event(void **state)
{
    assert_int_equal(tf_record_snapshot("first"), TF_EINVAL); /* nothing yet */
    read_int(7);
    assert_int_equal(tf_record_snapshot("first"), TF_OK);
    trace *t = malloc(sizeof *t);
    load(t, "first", 1);
    assert_int_equal(t->gaps, 0);
    assert_int_equal(t->n, 2);
    assert_int_equal(t->first_seq, 0);
    assert_calls_end(t, 7, 8);
    free(t);
}

static void test_wrap(void **state)
{
    for (int i = 0; i < 5000; i++)
        read_int(i);
    assert_int_equal(tf_record_snapshot("wrap"), TF_OK);
    trace *t = malloc(sizeof *t);
    load(t, "wrap", 1);
    assert_int_equal(t->gaps, 0);
    assert_true(t->bytes <= 4096);
    assert_true(t->first_seq > 4); /* wrapped: packets crossed the ring's end many times */
    assert_true(t->last_seq - t->first_seq >= 2);
    assert_calls_end(t, 0, 5000);
    free(t);
}

static void *calls(void *arg)
{
    int base = (int)(intptr_t)arg * 1000;
    for (int i = 0; i < 100; i++)
        read_int(base + i);
    return NULL;
}

static void test_threads(void **state)
{
    enum { N = 8 };
    pthread_t th[N];
    for (int i = 0; i < N; i++)
        assert_int_equal(pthread_create(&th[i], NULL, calls, (void *)(intptr_t)(i + 1)), 0);
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    /* All exited before the dump; each keeps its ring, thread-2 .. thread-9. */
    assert_int_equal(tf_record_snapshot("threads"), TF_OK);
    trace *t = malloc(sizeof *t);
    int seen[N + 1] = {0};
    for (int f = 2; f <= N + 1; f++) {
        load(t, "threads", f);
        assert_int_equal(t->gaps, 0);
        assert_int_equal(t->n, 200);
        int who = t->evs[0].value / 1000;
        assert_true(who >= 1 && who <= N && !seen[who]);
        seen[who] = 1;
        assert_calls_end(t, who * 1000, who * 1000 + 100);
    }
    free(t);
}

/* thread-<n> files in dir, and their bytes. */
static int thread_files(const char *dir, long *bytes)
{
    DIR *d = opendir(dir);
    int n = 0;
    *bytes = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[512];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (strncmp(e->d_name, "thread-", 7) == 0 && stat(path, &st) == 0) {
            n++;
            *bytes += st.st_size;
        }
    }
    if (d)
        closedir(d);
    return n;
}

/* 400 threads, 4 at a time, each writing 3 of its 4 KiB: the trace keeps at
 * most the budget (64 packets of 1 KiB), the newest threads whole. */
static void test_budget(void **state)
{
    enum { N = 400, PAR = 4 };
    for (int done = 0; done < N; done += PAR) {
        pthread_t th[PAR];
        for (int i = 0; i < PAR; i++)
            assert_int_equal(pthread_create(&th[i], NULL, calls, (void *)(intptr_t)(100 + done + i)), 0);
        for (int i = 0; i < PAR; i++)
            pthread_join(th[i], NULL);
    }
    assert_int_equal(tf_record_snapshot("budget"), TF_OK);
    long bytes;
    int files = thread_files("budget", &bytes);
    assert_true(files > 0 && files <= 64);
    assert_true(bytes <= 64 * 1024);
    trace *t = malloc(sizeof *t);
    int newest = 0;
    for (int f = 2; f < 2 + N + 16; f++) {
        char path[64];
        snprintf(path, sizeof path, "budget/thread-%d", f);
        if (access(path, F_OK) != 0)
            continue;
        load(t, "budget", f);
        assert_int_equal(t->gaps, 0);
        int who = t->evs[t->n - 1].value / 2000; /* the last exit's result is 2x */
        assert_calls_end(t, who * 1000, who * 1000 + 100);
        newest += who >= 100 + N - PAR;
    }
    assert_int_equal(newest, PAR); /* the last threads are all there */
    free(t);
}

static int stop_recording;

static void *record_until_stopped(void *arg)
{
    while (!__atomic_load_n(&stop_recording, __ATOMIC_ACQUIRE)) {
        pthread_t th;
        if (pthread_create(&th, NULL, calls, arg) == 0) /* threads begin and end meanwhile */
            pthread_join(th, NULL);
        read_int(1);
    }
    return NULL;
}

/* Snapshots while threads record, switch packets, begin and end: each one
 * decodes whole (load() checks packet order, sizes and every event; a
 * packet reused while it was copied is left out, a gap in the sequence). */
static void test_snapshot_while_recording(void **state)
{
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&th[i], NULL, record_until_stopped, (void *)(intptr_t)(900 + i)), 0);
    trace *t = malloc(sizeof *t);
    for (int k = 0; k < 20; k++) {
        assert_int_equal(system("rm -rf busy"), 0);
        assert_int_equal(tf_record_snapshot("busy"), TF_OK);
        long bytes;
        int files = thread_files("busy", &bytes);
        assert_true(files > 0 && files <= 64);
        for (int f = 1; f < 4000; f++) {
            char path[64];
            snprintf(path, sizeof path, "busy/thread-%d", f);
            if (access(path, F_OK) == 0)
                load(t, "busy", f);
        }
    }
    __atomic_store_n(&stop_recording, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    free(t);
}

/* /proc/cpuinfo's flags of the first CPU include both (a VM's CPUID often
 * hides the invariant bit while the kernel knows). */
static int cpuinfo_invariant(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    int yes = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            yes = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    if (f)
        fclose(f);
    return yes;
}

/* The timing monitor reads the one clock: the TSC wherever it is invariant,
 * whatever the kernel's clocksource (kvm-clock included). */
static void test_one_clock(void **state)
{
    tf_timing_manager *tm = tf_timing_manager_create();
    tf_timing_clock_info c;
    assert_non_null(tm);
    assert_int_equal(tf_timing_clock(tm, &c), TF_OK);
    if (cpuinfo_invariant())
        assert_string_equal(c.source, "tsc");
    if (strcmp(c.source, "tsc") == 0)
        assert_true(c.ticks_per_second > 1e8 && c.ticks_per_second < 1e11);
    tf_timing_manager_destroy(tm);
}

int main(void)
{
    if (system("rm -rf first wrap threads budget busy ring-trace") != 0)
        return 1;
    tf_tu_register(&iostream_tu);
    assert_int_equal(tf_register("io", tf_record()), TF_OK);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_event),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_snapshot_while_recording),
        cmocka_unit_test(test_one_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
