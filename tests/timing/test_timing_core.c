/*
 * test_timing_core.c: timing points with an injected clock (docs/design.md
 * .timing): exact totals and self times through nesting, percentiles, info
 * ENTER/EXIT pairs, disabled timers and groups, subgroup containment, threads
 * merged, exceptions, longjmp through timed frames, unmatched exits, errno.
 *
 * The hooks are called the way generated code calls them (fixture.h), from
 * real nested functions, so stack positions are real.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calls.h"

/* ---- monitored functions of TU "wc" ------------------------------------------- */

typedef void (*body_fn)(tf_monitor *mm);

NOINLINE static void parse_file(body_fn body)
{
    GEN_ENTER(__tf_holder_parse, ID_PARSE_FILE);
    body(mm);
    GEN_EXIT(ID_PARSE_FILE);
}

NOINLINE static void note(tf_monitor *mm, int caller_id)
{
    GEN_INFO(ID_NOTE, TF_TP_NONE, caller_id);
}

/* ---- helpers ------------------------------------------------------------------ */

static tf_timing_manager *tm;

static int setup(void **state)
{
    (void)state;
    fake_now = 0;
    tm = fake_manager();
    if (!tm || tf_register("app", tf_timing(tm)) != TF_OK)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tf_clear("app");
    tf_clear("top");
    tf_timing_manager_destroy(tm);
    tm = NULL;
    return 0;
}

static tf_timing_stats stats(const char *timer)
{
    tf_timing_stats s;
    memset(&s, 0xff, sizeof s);
    assert_int_equal(tf_timing_stats_get(tm, timer, &s), TF_OK);
    return s;
}

#define assert_ns(actual, expected) assert_true(fabs((actual) - (double)(expected)) < 1e-6)

/* ---- nesting, totals, self ---------------------------------------------------- */

static void body_two_tokens(tf_monitor *mm)
{
    advance(10);
    tokenize(5);
    tokenize(7);
    advance(3);
}

static void test_totals_and_self(void **state)
{
    parse_file(body_two_tokens);
    tf_timing_stats p = stats("wc.parse_file"), t = stats("wc.tokenize");
    assert_int_equal(p.count, 1);
    assert_ns(p.total_ns, 25);
    assert_ns(p.self_ns, 13);
    assert_ns(p.min_ns, 25);
    assert_ns(p.max_ns, 25);
    assert_int_equal(t.count, 2);
    assert_ns(t.total_ns, 12);
    assert_ns(t.self_ns, 12);
    assert_ns(t.min_ns, 5);
    assert_ns(t.max_ns, 7);
    assert_ns(t.mean_ns, 6);
    assert_ns(t.stddev_ns, 1); /* population: values 5 and 7 */
    assert_ns(t.p50_ns, 5);    /* nearest rank 1 of 2 */
    assert_ns(t.p90_ns, 7);
    assert_ns(t.p99_ns, 7);
    assert_int_equal(t.unmatched_exits + t.abandoned + t.unwinds + t.longjmps, 0);
    /* A timer of the TU that never ran exists with zero counts. */
    assert_int_equal(stats("wc.read_chunk").count, 0);
    assert_int_equal(tf_timing_stats_get(tm, "wc.nosuch", &p), TF_ENOENT);
    assert_int_equal(tf_timing_stats_get(tm, "wc.note", &p), TF_ENOENT); /* TP_NONE info */
}

static void body_deep(tf_monitor *mm)
{
    advance(2);
    read_chunk(4);
    tokenize(6);
}

static void test_recursion_keeps_self_per_level(void **state)
{
    /* parse_file inside parse_file: the inner call is nested time of the outer. */
    parse_file(body_deep);
    GEN_ENTER(__tf_holder_parse, ID_PARSE_FILE);
    advance(1);
    parse_file(body_deep);
    advance(1);
    GEN_EXIT(ID_PARSE_FILE);
    tf_timing_stats p = stats("wc.parse_file");
    assert_int_equal(p.count, 3);
    assert_ns(p.total_ns, 12 + 12 + 14);
    assert_ns(p.self_ns, 2 + 2 + 2);
    assert_ns(p.min_ns, 12);
    assert_ns(p.max_ns, 14);
    assert_ns(stats("wc.read_chunk").total_ns, 8);
}

static void test_percentiles_exact_below_16(void **state)
{
    for (uint64_t d = 1; d <= 10; d++)
        tokenize(d);
    tf_timing_stats t = stats("wc.tokenize");
    assert_int_equal(t.count, 10);
    assert_ns(t.total_ns, 55);
    assert_ns(t.p50_ns, 5);
    assert_ns(t.p90_ns, 9);
    assert_ns(t.p99_ns, 10);
    assert_true(fabs(t.stddev_ns - sqrt(8.25)) < 1e-9);
}

static void test_percentiles_bounded_error(void **state)
{
    /* 1..1000 in a shuffled order; the histogram promises 1/32 relative error. */
    for (uint64_t i = 0; i < 1000; i++)
        tokenize(1 + (i * 389) % 1000);
    tf_timing_stats t = stats("wc.tokenize");
    assert_int_equal(t.count, 1000);
    assert_ns(t.total_ns, 500500);
    assert_ns(t.min_ns, 1);
    assert_ns(t.max_ns, 1000);
    assert_true(fabs(t.p50_ns - 500) <= 500.0 / 32);
    assert_true(fabs(t.p90_ns - 900) <= 900.0 / 32);
    assert_true(fabs(t.p99_ns - 990) <= 990.0 / 32);
    assert_true(fabs(t.stddev_ns - sqrt((1000.0 * 1000 - 1) / 12)) < 1e-6);
}

static void test_huge_durations(void **state)
{
    tokenize(1ull << 50); /* past the last histogram bucket */
    tokenize(3);
    tf_timing_stats t = stats("wc.tokenize");
    assert_ns(t.max_ns, (double)(1ull << 50));
    assert_ns(t.p99_ns, (double)(1ull << 50));
    assert_ns(t.p50_ns, 3);
}

/* ---- info ENTER/EXIT pairs ---------------------------------------------------- */

static void body_flush(tf_monitor *mm)
{
    advance(1);
    note(mm, ID_PARSE_FILE); /* TP_NONE: not a timing point */
    flush_begin(mm, ID_PARSE_FILE);
    advance(4);
    tokenize(2);
    flush_end(mm, ID_PARSE_FILE);
    advance(1);
}

static void test_info_pair(void **state)
{
    parse_file(body_flush);
    parse_file(body_flush);
    tf_timing_stats f = stats("wc.flush"), p = stats("wc.parse_file");
    assert_int_equal(f.count, 2);
    assert_ns(f.total_ns, 12);
    assert_ns(f.self_ns, 8); /* tokenize nested inside the pair */
    assert_int_equal(p.count, 2);
    assert_ns(p.total_ns, 16);
    assert_ns(p.self_ns, 4);
    assert_ns(stats("wc.tokenize").self_ns, 4);
    /* The pair adopts its caller's group: disabling parse stops it. */
    assert_int_equal(tf_timing_timer_active(tm, "wc.flush"), 1);
    assert_int_equal(tf_timing_group_enable(tm, "parse", 0), TF_OK);
    assert_int_equal(tf_timing_timer_active(tm, "wc.flush"), 0);
}

static void body_unclosed_flush(tf_monitor *mm)
{
    flush_begin(mm, ID_PARSE_FILE);
    advance(3);
}

static void body_flush_end_only(tf_monitor *mm)
{
    advance(3);
    flush_end(mm, ID_PARSE_FILE);
}

static void test_info_pair_unbalanced(void **state)
{
    parse_file(body_unclosed_flush); /* the ENTER is dropped at the caller's exit */
    parse_file(body_flush_end_only); /* an EXIT with no ENTER */
    tf_timing_stats f = stats("wc.flush"), p = stats("wc.parse_file");
    assert_int_equal(f.count, 0);
    assert_int_equal(f.abandoned, 1);
    assert_int_equal(f.unmatched_exits, 1);
    assert_int_equal(p.count, 2);
    assert_ns(p.total_ns, 6);
    assert_ns(p.self_ns, 6);
}

/* ---- enabling and disabling ----------------------------------------------------- */

static void body_token(tf_monitor *mm)
{
    advance(1);
    tokenize(10);
    read_chunk(100);
}

static void test_disabled_timer(void **state)
{
    assert_int_equal(tf_timing_timer_enable(tm, "wc.tokenize", 0), TF_OK);
    assert_int_equal(tf_timing_timer_active(tm, "wc.tokenize"), 0);
    parse_file(body_token);
    tf_timing_stats t = stats("wc.tokenize"), p = stats("wc.parse_file");
    assert_int_equal(t.count, 0);
    assert_ns(p.self_ns, 11); /* a disabled timer's time is its caller's own */
    assert_int_equal(tf_timing_timer_enable(tm, "wc.tokenize", 1), TF_OK);
    parse_file(body_token);
    assert_int_equal(stats("wc.tokenize").count, 1);
    assert_ns(stats("wc.parse_file").self_ns, 11 + 1);
    assert_int_equal(tf_timing_timer_enable(tm, "wc.nosuch", 0), TF_ENOENT);
}

static void test_disabled_group_and_subgroups(void **state)
{
    /* parse contains tokenize: both stop; io goes on. */
    assert_int_equal(tf_timing_group_enable(tm, "parse", 0), TF_OK);
    assert_int_equal(tf_timing_timer_active(tm, "wc.parse_file"), 0);
    assert_int_equal(tf_timing_timer_active(tm, "wc.tokenize"), 0);
    assert_int_equal(tf_timing_timer_active(tm, "wc.read_chunk"), 1);
    parse_file(body_token);
    assert_int_equal(stats("wc.parse_file").count, 0);
    assert_int_equal(stats("wc.tokenize").count, 0);
    assert_int_equal(stats("wc.read_chunk").count, 1);
    /* A group enabled inside a disabled one stays off. */
    assert_int_equal(tf_timing_group_enable(tm, "tokenize", 1), TF_OK);
    assert_int_equal(tf_timing_timer_active(tm, "wc.tokenize"), 0);
    /* Disabling only the subgroup. */
    assert_int_equal(tf_timing_group_enable(tm, "parse", 1), TF_OK);
    assert_int_equal(tf_timing_group_enable(tm, "tokenize", 0), TF_OK);
    assert_int_equal(tf_timing_timer_active(tm, "wc.parse_file"), 1);
    assert_int_equal(tf_timing_timer_active(tm, "wc.tokenize"), 0);
    parse_file(body_token);
    assert_int_equal(stats("wc.parse_file").count, 1);
    assert_int_equal(stats("wc.tokenize").count, 0);
    /* app contains everything. */
    assert_int_equal(tf_timing_group_enable(tm, "tokenize", 1), TF_OK);
    assert_int_equal(tf_timing_group_enable(tm, "app", 0), TF_OK);
    assert_int_equal(tf_timing_timer_active(tm, "wc.read_chunk"), 0);
    assert_int_equal(tf_timing_timer_active(tm, "wc.tokenize"), 0);
    read_chunk(5);
    assert_int_equal(stats("wc.read_chunk").count, 2);
    assert_int_equal(tf_timing_group_enable(tm, "app", 1), TF_OK);
    read_chunk(5);
    assert_int_equal(stats("wc.read_chunk").count, 3);
    assert_int_equal(tf_timing_group_enable(tm, "", 0), TF_EINVAL);
}

static void test_group_disabled_before_its_timers_exist(void **state)
{
    tf_clear("app");
    tf_timing_manager *fresh = fake_manager();
    assert_non_null(fresh);
    assert_int_equal(tf_timing_group_enable(fresh, "parse", 0), TF_OK);
    assert_int_equal(tf_timing_timer_active(fresh, "wc.tokenize"), TF_ENOENT);
    assert_int_equal(tf_register("app", tf_timing(fresh)), TF_OK);
    assert_int_equal(tf_timing_timer_active(fresh, "wc.tokenize"), 0);
    assert_int_equal(tf_timing_timer_active(fresh, "wc.read_chunk"), 1);
    tf_clear("app");
    tf_timing_manager_destroy(fresh);
}

static void test_containment_from_registry(void **state)
{
    /* top ⊃ tokenize is declared only in TU "extra": the registry's graph. */
    assert_int_equal(tf_group_known("top"), 1);
    assert_int_equal(tf_timing_group_enable(tm, "top", 0), TF_OK);
    assert_int_equal(tf_timing_timer_active(tm, "wc.tokenize"), 0);
    assert_int_equal(tf_timing_timer_active(tm, "wc.parse_file"), 1);
    tokenize(3);
    assert_int_equal(stats("wc.tokenize").count, 0);
    assert_int_equal(tf_timing_group_enable(tm, "top", 1), TF_OK);
    tokenize(3);
    assert_int_equal(stats("wc.tokenize").count, 1);
}

static void test_refused_cycle_edge_not_followed(void **state)
{
    tf_tu_register(&loop_tu);
    assert_non_null(loop_holder); /* timing made its monitor: it saw the TU */
    assert_int_equal(tf_timing_group_enable(tm, "tokenize", 0), TF_OK);
    assert_int_equal(tf_timing_timer_active(tm, "loop.spin"), 0);
    assert_int_equal(tf_timing_timer_active(tm, "wc.tokenize"), 0);
    /* the registry's graph has no tokenize -> app: app and io go on */
    assert_int_equal(tf_timing_timer_active(tm, "wc.read_chunk"), 1);
    assert_int_equal(tf_timing_timer_active(tm, "wc.parse_file"), 1);
    read_chunk(5);
    assert_int_equal(stats("wc.read_chunk").count, 1);
    tf_tu_unregister(&loop_tu);
}

/* ---- threads -------------------------------------------------------------------- */

struct worker {
    int n;
    pthread_barrier_t *hold; /* non-NULL: stay alive until released */
};

static void body_worker(tf_monitor *mm)
{
    advance(2);
    tokenize(3);
}

static void *worker(void *arg)
{
    struct worker *w = arg;
    fake_now = 1000; /* each thread has its own clock */
    for (int i = 0; i < w->n; i++)
        parse_file(body_worker);
    if (w->hold) {
        pthread_barrier_wait(w->hold);
        pthread_barrier_wait(w->hold);
    }
    return NULL;
}

static void test_threads_merged(void **state)
{
    enum { N = 4 };
    pthread_t th[N + 1];
    pthread_barrier_t hold;
    pthread_barrier_init(&hold, NULL, 2);
    struct worker done = {100 * 1, NULL}, alive = {7, &hold};
    for (int i = 0; i < N; i++)
        assert_int_equal(pthread_create(&th[i], NULL, worker, &done), 0);
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL); /* exited: their statistics must stay */
    assert_int_equal(pthread_create(&th[N], NULL, worker, &alive), 0);
    pthread_barrier_wait(&hold); /* the last one is still running */
    parse_file(body_worker);      /* and the main thread */
    tf_timing_stats p = stats("wc.parse_file"), t = stats("wc.tokenize");
    uint64_t calls = N * 100 + 7 + 1;
    assert_int_equal(p.count, calls);
    assert_ns(p.total_ns, 5 * calls);
    assert_ns(p.self_ns, 2 * calls);
    assert_int_equal(t.count, calls);
    assert_ns(t.total_ns, 3 * calls);
    assert_ns(t.p50_ns, 3);
    pthread_barrier_wait(&hold);
    pthread_join(th[N], NULL);
    assert_int_equal(stats("wc.parse_file").count, calls);
    pthread_barrier_destroy(&hold);
}

/* Reports read other threads' statistics while they are written: no crash,
 * no data race (run under TSan), counts never go down, exact once joined. */
static void *hammer(void *arg)
{
    fake_now = 0;
    for (int i = 0; i < 20000; i++)
        parse_file(body_worker);
    return NULL;
}

static void test_report_while_threads_run(void **state)
{
    enum { N = 3 };
    pthread_t th[N];
    for (int i = 0; i < N; i++)
        assert_int_equal(pthread_create(&th[i], NULL, hammer, NULL), 0);
    uint64_t last = 0;
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    for (int k = 0; k < 50; k++) {
        tf_timing_stats p = stats("wc.parse_file");
        assert_true(p.count >= last);
        last = p.count;
        assert_int_equal(tf_timing_report(tm, sink, (tf_timing_format)(k % 3)), TF_OK);
    }
    fclose(sink);
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    tf_timing_stats p = stats("wc.parse_file");
    assert_int_equal(p.count, N * 20000);
    assert_ns(p.total_ns, 5.0 * N * 20000);
    assert_ns(p.p99_ns, 5);
}

/* ---- exceptions ----------------------------------------------------------------- */

static const tf_exception unwind_exc = {TF_EXC_UNWIND, 0, NULL, NULL};
static const tf_exception throw_exc = {TF_EXC_THROW, 0, NULL, NULL};

/* What a C++ throw out of tokenize and parse_file reports: THROW before the
 * throw, then each frame's cleanup: exception(UNWIND) and exit(NULL). */
NOINLINE static void throwing_tokenize(void)
{
    GEN_ENTER(__tf_holder_tokenize, ID_TOKENIZE);
    advance(4);
    if (mm)
        mm->ops->exception(mm, ID_TOKENIZE, &throw_exc);
    if (mm) {
        mm->ops->exception(mm, ID_TOKENIZE, &unwind_exc);
        mm->ops->exit(mm, ID_TOKENIZE, NULL);
    }
}

NOINLINE static void throwing_parse(void)
{
    GEN_ENTER(__tf_holder_parse, ID_PARSE_FILE);
    advance(1);
    throwing_tokenize();
    if (mm) {
        mm->ops->exception(mm, ID_PARSE_FILE, &unwind_exc);
        mm->ops->exit(mm, ID_PARSE_FILE, NULL);
    }
}

/* After one parse_file call that ended abruptly with 1 ns of self time, the
 * stack is empty again: a new top-level call (2 ns, all self) adds to it,
 * and nothing was left unmatched or abandoned. */
static void assert_stack_empty_again(void)
{
    parse_file(body_worker);
    tf_timing_stats p = stats("wc.parse_file");
    assert_int_equal(p.count, 2);
    assert_ns(p.self_ns, 1 + 2);
    assert_int_equal(p.unmatched_exits + p.abandoned, 0);
}

static void test_exception_unwind(void **state)
{
    throwing_parse();
    tf_timing_stats p = stats("wc.parse_file"), t = stats("wc.tokenize");
    assert_int_equal(t.count, 1);
    assert_int_equal(t.unwinds, 1);
    assert_ns(t.total_ns, 4);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.unwinds, 1);
    assert_ns(p.total_ns, 5);
    assert_ns(p.self_ns, 1);
    assert_stack_empty_again();
}

/* ---- longjmp ---------------------------------------------------------------------- */

static jmp_buf jump_target;

NOINLINE static void jumping_read(void)
{
    GEN_ENTER(__tf_holder_io, ID_READ_CHUNK);
    advance(7);
    if (mm) { /* a noreturn call is reported first */
        tf_exception e = {TF_EXC_NORETURN, 0, "longjmp", NULL};
        mm->ops->exception(mm, ID_READ_CHUNK, &e);
    }
    longjmp(jump_target, 1);
}

NOINLINE static void jumping_tokenize(void)
{
    GEN_ENTER(__tf_holder_tokenize, ID_TOKENIZE);
    advance(3);
    jumping_read();
    GEN_EXIT(ID_TOKENIZE);
}

NOINLINE static void catching_parse(void)
{
    GEN_ENTER(__tf_holder_parse, ID_PARSE_FILE);
    advance(10);
    if (setjmp(jump_target) == 0)
        jumping_tokenize();
    advance(5);
    GEN_EXIT(ID_PARSE_FILE);
}

static void test_longjmp_through_timed_frames(void **state)
{
    catching_parse();
    tf_timing_stats p = stats("wc.parse_file"), t = stats("wc.tokenize"),
                    r = stats("wc.read_chunk");
    assert_int_equal(r.count, 1);
    assert_int_equal(r.longjmps, 1);
    assert_ns(r.total_ns, 7);
    assert_int_equal(t.count, 1);
    assert_int_equal(t.longjmps, 1);
    assert_ns(t.total_ns, 10);
    assert_ns(t.self_ns, 3);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.longjmps, 0);
    assert_ns(p.total_ns, 25);
    assert_ns(p.self_ns, 15);
    assert_int_equal(p.unmatched_exits + p.abandoned + t.abandoned + r.abandoned, 0);
    /* Nothing left open: a later call is at top level. */
    tokenize(2);
    assert_ns(stats("wc.tokenize").self_ns, 3 + 2);
    assert_ns(stats("wc.parse_file").self_ns, 15);
}

NOINLINE static void jump_all_the_way(void)
{
    GEN_ENTER(__tf_holder_parse, ID_PARSE_FILE);
    advance(1);
    jumping_tokenize();
    GEN_EXIT(ID_PARSE_FILE);
}

static void test_longjmp_out_of_every_frame(void **state)
{
    if (setjmp(jump_target) == 0)
        jump_all_the_way();
    tf_timing_stats p = stats("wc.parse_file");
    assert_int_equal(p.count, 1);
    assert_int_equal(p.longjmps, 1);
    assert_ns(p.total_ns, 11);
    assert_ns(p.self_ns, 1);
    assert_stack_empty_again();
}

/* ---- unmatched exits and odd input ------------------------------------------------ */

static void test_unmatched_exit(void **state)
{
    tf_monitor *mm = __atomic_load_n(&__tf_holder_tokenize, __ATOMIC_ACQUIRE);
    assert_non_null(mm);
    mm->ops->exit(mm, ID_TOKENIZE, NULL);
    mm->ops->exit(mm, ID_TOKENIZE, NULL);
    mm->ops->exit(mm, 99, NULL);  /* out of range: ignored */
    mm->ops->exit(mm, -1, NULL);
    mm->ops->enter(mm, ID_NOTE, NULL); /* not a timing point: ignored */
    mm->ops->info(mm, NULL, 42, 17, TF_TP_ENTER);
    tf_timing_stats t = stats("wc.tokenize");
    assert_int_equal(t.unmatched_exits, 2);
    assert_int_equal(t.count, 0);
    /* An exit of an outer frame drops an inner one left open. */
    tf_monitor *pm = __atomic_load_n(&__tf_holder_parse, __ATOMIC_ACQUIRE);
    pm->ops->enter(pm, ID_PARSE_FILE, NULL);
    advance(2);
    mm->ops->enter(mm, ID_TOKENIZE, NULL);
    advance(3);
    pm->ops->exit(pm, ID_PARSE_FILE, NULL);
    t = stats("wc.tokenize");
    tf_timing_stats p = stats("wc.parse_file");
    assert_int_equal(t.abandoned, 1);
    assert_int_equal(t.count, 0);
    assert_int_equal(p.count, 1);
    assert_ns(p.total_ns, 5);
    assert_ns(p.self_ns, 5);
}

/* dlclose then dlopen of a TU: its monitor is destroyed and made again; the
 * timers, keyed by file and name, keep counting. */
static void test_tu_reloaded(void **state)
{
    tokenize(5);
    tf_tu_unregister(&__tf_tu);
    assert_null(__atomic_load_n(&__tf_holder_tokenize, __ATOMIC_ACQUIRE));
    tokenize(100); /* not monitored meanwhile */
    tf_tu_register(&__tf_tu);
    assert_non_null(__atomic_load_n(&__tf_holder_tokenize, __ATOMIC_ACQUIRE));
    tokenize(7);
    tf_timing_stats t = stats("wc.tokenize");
    assert_int_equal(t.count, 2);
    assert_ns(t.total_ns, 12);
}

static void test_errno_kept(void **state)
{
    errno = 1234;
    parse_file(body_flush);
    assert_int_equal(errno, 1234);
    /* A user clock that changes errno (the hooks' common path calls nothing
     * else that could), and a new thread's first hook, which allocates. */
    fake_clock_errno = EIO;
    parse_file(body_flush);
    fake_clock_errno = 0;
    assert_int_equal(errno, 1234);
    tf_timing_stats p = stats("wc.parse_file");
    assert_int_equal(p.count, 2);
}

static void test_overhead_subtracted(void **state)
{
    assert_int_equal(tf_timing_set_overhead(tm, 1), TF_OK);
    parse_file(body_two_tokens); /* two nested timed calls */
    tf_timing_stats p = stats("wc.parse_file");
    assert_ns(p.total_ns, 25);
    assert_ns(p.self_ns, 13 - 2);
    tf_timing_clock_info c;
    assert_int_equal(tf_timing_clock(tm, &c), TF_OK);
    assert_string_equal(c.source, "injected");
    assert_ns(c.overhead_ns, 1);
    assert_ns(c.ticks_per_second, 1e9);
}

static void test_api_arguments(void **state)
{
    tf_timing_stats s;
    assert_null(tf_timing(NULL));
    assert_ptr_equal(tf_timing(tm), tf_timing(tm));
    assert_string_equal(tf_timing(tm)->name, "timing");
    assert_true(tf_timing(tm)->flags & TF_FACTORY_NO_GUARD);
    assert_int_equal(tf_timing_stats_get(NULL, "wc.tokenize", &s), TF_EINVAL);
    assert_int_equal(tf_timing_timer_enable(tm, NULL, 1), TF_EINVAL);
    assert_int_equal(tf_timing_set_clock(tm, fake_clock, NULL, 0), TF_EINVAL);
    assert_int_equal(tf_timing_set_overhead(tm, -1), TF_EINVAL);
    assert_int_equal(tf_timing_report(tm, NULL, TF_TIMING_TEXT), TF_EINVAL);
    assert_int_equal(tf_timing_report(tm, stderr, (tf_timing_format)9), TF_EINVAL);
    assert_int_equal(tf_timing_format_for_path("t.json"), TF_TIMING_JSON);
    assert_int_equal(tf_timing_format_for_path("dir/t.csv"), TF_TIMING_CSV);
    assert_int_equal(tf_timing_format_for_path("t.txt"), TF_TIMING_TEXT);
    assert_int_equal(tf_timing_format_for_path("json"), TF_TIMING_TEXT);
    assert_int_equal(tf_timing_format_for_path("-"), TF_TIMING_TEXT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T(test_totals_and_self),
        T(test_recursion_keeps_self_per_level),
        T(test_percentiles_exact_below_16),
        T(test_percentiles_bounded_error),
        T(test_huge_durations),
        T(test_info_pair),
        T(test_info_pair_unbalanced),
        T(test_disabled_timer),
        T(test_disabled_group_and_subgroups),
        T(test_group_disabled_before_its_timers_exist),
        T(test_containment_from_registry),
        T(test_refused_cycle_edge_not_followed),
        T(test_threads_merged),
        T(test_report_while_threads_run),
        T(test_exception_unwind),
        T(test_longjmp_through_timed_frames),
        T(test_longjmp_out_of_every_frame),
        T(test_unmatched_exit),
        T(test_tu_reloaded),
        T(test_errno_kept),
        T(test_overhead_subtracted),
        T(test_api_arguments),
    };
    return cmocka_run_group_tests_name("timing", tests, NULL, NULL);
}
