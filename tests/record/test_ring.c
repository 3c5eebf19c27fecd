/*
 * test_ring.c: the recorder's rings through the monitor API (fake_tu.h), read
 * back by a minimal decoder of the packets (docs/trace-format.md, "Layout"):
 * a thread's first event, wrap-around in a 4 KiB ring with packets across its
 * end, many threads, and threads that exited before the dump.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        if (e->cls >= 8) {
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
        if (prev != UINT64_MAX)
            assert_int_equal(seq, prev + 1); /* oldest to newest, none missing */
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
        assert_int_equal(t->n, 200);
        int who = t->evs[0].value / 1000;
        assert_true(who >= 1 && who <= N && !seen[who]);
        seen[who] = 1;
        assert_calls_end(t, who * 1000, who * 1000 + 100);
    }
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
    if (system("rm -rf first wrap threads ring-trace") != 0)
        return 1;
    tf_tu_register(&iostream_tu);
    assert_int_equal(tf_register("io", tf_record()), TF_OK);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_event),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_one_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
