/*
 * test_timing_report.c: the timing report formats (docs/design.md .timing):
 * JSON parses and has every field with the right values, the CSV header and
 * rows, the text table's grouping and order, the Chrome trace event log
 * (tracks, bound, nesting); and one sanity test of the real clock with generous
 * bounds.
 *
 * JSON, CSV and Chrome trace files are checked by check_report.py (python3).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "calls.h"

/* parse_file: 26 in all: 10 own, tokens of 5 and 7, a flush pair of 4 (2 own,
 * a read_chunk of 2). */
NOINLINE static void parse_file(void)
{
    GEN_ENTER(__tf_holder_parse, ID_PARSE_FILE);
    advance(10);
    tokenize(5);
    tokenize(7);
    flush_begin(mm, ID_PARSE_FILE);
    advance(2);
    read_chunk(2);
    flush_end(mm, ID_PARSE_FILE);
    GEN_EXIT(ID_PARSE_FILE);
}

static tf_timing_manager *tm;
static char dir[64];

static int setup(void **state)
{
    (void)state;
    fake_now = 0;
    tm = fake_manager();
    return tm && tf_register("app", tf_timing(tm)) == TF_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tf_clear("app");
    tf_timing_manager_destroy(tm);
    return 0;
}

/* Writes the report to dir/name and returns the path. */
static const char *report_to(const char *name, tf_timing_format format, int expect_rc)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(tf_timing_report(tm, f, format), expect_rc);
    fclose(f);
    return path;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static int check(const char *fmt, ...)
{
    char args[1024], cmd[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "python3 %s %s", CHECK_REPORT, args);
    return system(cmd);
}

static void test_json_report(void **state)
{
    parse_file();
    parse_file();
    const char *path = report_to("r.json", TF_TIMING_JSON, TF_OK);
    /* parse_file: 26 each; nested tokenize 12 and flush 4 -> self 10. */
    assert_int_equal(
        check("json %s"
              " --expect wc.parse_file:count=2,total_ns=52,self_ns=20,min_ns=26,max_ns=26,"
              "mean_ns=26,stddev_ns=0,p50_ns=26,p99_ns=26,kind=function,group=parse,tu=wc,"
              "function=parse_file,tu_file=tests/timing/wc.c,line=50,enabled=true,active=true"
              " --expect wc.tokenize:count=4,total_ns=24,self_ns=24,min_ns=5,max_ns=7,"
              "mean_ns=6,stddev_ns=1,p50_ns=5,p90_ns=7,group=tokenize"
              " --expect wc.flush:count=2,total_ns=8,self_ns=4,kind=info_pair,group=parse"
              " --expect wc.read_chunk:count=2,total_ns=4,group=io,unmatched_exits=0"
              " --group app:io,parse --group parse:tokenize --group tokenize:"
              /* self: tokenize 24, parse_file 20, flush 4, read_chunk 4 of 52 */
              " --expect wc.tokenize:self_pct=46.154,hooks_ns=0,hooks_pct=0,at_overhead_floor=false"
              " --expect wc.parse_file:self_pct=38.462 --expect wc.flush:self_pct=7.692"
              " --summary percent_of=self_ns_total,wall_ns=null,cpu_ns=null,self_ns_total=52,"
              "calls=10,hooks_ns=0,hooks_in_self_ns=0,hooks_pct=0,top_n=4,top_self_pct=100",
              path),
        0);
    /* And the checker itself rejects a wrong expectation and a broken file. */
    assert_int_not_equal(check("json %s --expect wc.tokenize:count=5 2>/dev/null", path), 0);
    FILE *f = fopen(path, "a");
    fputs("}", f);
    fclose(f);
    assert_int_not_equal(check("json %s 2>/dev/null", path), 0);
}

static void test_csv_report(void **state)
{
    parse_file();
    const char *path = report_to("r.csv", TF_TIMING_CSV, TF_OK);
    char *text = slurp(path);
    const char *header = "timer,tu,function,kind,group,count,total_ns,self_ns,min_ns,max_ns,"
                         "mean_ns,stddev_ns,p50_ns,p90_ns,p99_ns,unwinds,longjmps,"
                         "unmatched_exits,abandoned,enabled,active,self_pct,hooks_ns,hooks_pct,"
                         "at_overhead_floor\n";
    assert_memory_equal(text, header, strlen(header));
    int lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + 4); /* flush, parse_file, read_chunk, tokenize */
    /* Rows sorted by self time, largest first: tokenize 12, parse_file 10, flush 2, read_chunk 2. */
    const char *first = "wc.tokenize,wc,tokenize,function,tokenize,2,12.000,12.000,";
    assert_memory_equal(text + strlen(header), first, strlen(first));
    assert_true(strstr(text, "\nwc.parse_file,") < strstr(text, "\nwc.flush,"));
    assert_true(strstr(text, "\nwc.flush,") < strstr(text, "\nwc.read_chunk,"));
    assert_int_equal(check("csv %s --expect wc.tokenize:count=2,total_ns=12,group=tokenize"
                           " --expect wc.flush:kind=info_pair,self_ns=2,self_pct=7.692"
                           " --expect wc.parse_file:self_pct=38.462,hooks_pct=0,at_overhead_floor=0",
                           path),
                     0);
}

static void test_text_report(void **state)
{
    parse_file();
    /* One long read, to see human units and group order by self time. */
    read_chunk(1500000);
    const char *path = report_to("r.txt", TF_TIMING_TEXT, TF_OK);
    char *text = slurp(path);
    assert_non_null(strstr(text, "TF timing report: 4 of 4 timing points entered, 1 thread\n"));
    /* An injected clock is never read here: no cost per read to show. */
    assert_non_null(strstr(text, "\nclock: injected, 1e+09 ticks/s\n"));
    assert_non_null(strstr(text, "self times exclude 0 ns of measured hook overhead"));
    assert_non_null(strstr(text, "\nhooks: no overhead measured (the clock is injected: times given, "
                                 "not read), so no estimate of their share\n"));
    assert_null(strstr(text, "\nrun: wall")); /* no run to measure with an injected clock */
    /* The answer first: 1500002 of 1500026 ns in read_chunk. */
    char *top = strstr(text, "\ntop 4 by self time: 100.0% of the measured self time "
                             "(1.5 ms of 1.5 ms)\n  wc.read_chunk                    100.0%\n"
                             "  wc.tokenize                        0.0%\n"
                             "  wc.parse_file                      0.0%\n"
                             "  wc.flush                           0.0%\nself%: ");
    assert_non_null(top);
    /* One unit per column, from its largest value: self and total 1.5 ms, mean 750 us,
     * min 26 ns (parse_file's); every row in it, to the nanosecond. */
    char *head = strstr(text, "\n  timing point                         calls  self%    self ms   "
                              "total ms    mean us     min ns     max ms  stddev us");
    assert_non_null(head);
    assert_true(top < head);
    assert_non_null(strstr(text, "\n  wc.read_chunk                            2  100.0   "
                                 "1.500002   1.500002    750.001          2   1.500000    749.999"));
    assert_non_null(strstr(text, "\n  wc.tokenize                              2    0.0   "
                                 "0.000012   0.000012      0.006          5   0.000007      0.001"));
    char *io = strstr(text, "\ngroup io: self 1.5 ms\n");
    char *parse = strstr(text, "\ngroup parse: self 12 ns; contains tokenize\n");
    char *tok = strstr(text, "\ngroup tokenize: self 12 ns\n");
    assert_non_null(io);
    assert_non_null(parse);
    assert_non_null(tok);
    assert_true(io < parse && io < tok); /* groups by self time */
    char *pf = strstr(parse, "wc.parse_file"), *fl = strstr(parse, "wc.flush");
    char *next = strstr(parse + 1, "\ngroup ");
    assert_non_null(pf);
    assert_non_null(fl);
    assert_true(pf < fl && fl < next); /* the pair is in its caller's group, after by total */
    assert_non_null(strstr(text, "timing point"));
    assert_non_null(strstr(text, "p99"));
    assert_non_null(strstr(io, "wc.read_chunk"));
    assert_non_null(strstr(io, "1.5 ms"));
    char *tree = strstr(text, "\ngroup tree (self time including subgroups, share of all timed time)\n");
    assert_non_null(tree);
    assert_non_null(strstr(tree, "\n  app "));
    assert_non_null(strstr(tree, " 100.0%\n")); /* app holds every timed moment */
    assert_non_null(strstr(tree, "\n    parse "));
    assert_non_null(strstr(tree, "\n      tokenize "));
}

/* The tree is the registry's graph: TU "loop" declares TF_GROUP(tokenize, app),
 * a cycle the registry refused, so app stays a root and tokenize contains
 * nothing. */
static void test_group_tree_is_the_registrys(void **state)
{
    tf_tu_register(&loop_tu);
    parse_file();
    char *text = slurp(report_to("loop.txt", TF_TIMING_TEXT, TF_OK));
    tf_tu_unregister(&loop_tu);
    assert_non_null(strstr(text, "\ngroup tokenize: self 12 ns\n"));
    char *tree = strstr(text, "\ngroup tree (");
    assert_non_null(tree);
    assert_non_null(strstr(tree, "\n  app "));
    assert_non_null(strstr(tree, "\n      tokenize "));
    assert_null(strstr(tree, "\n        ")); /* nothing below tokenize */
    assert_int_equal(check("json %s --group app:io,parse --group parse:tokenize --group tokenize:",
                           report_to("loop.json", TF_TIMING_JSON, TF_OK)), 0);
}

static void test_text_report_anomalies(void **state)
{
    tf_monitor *mm = __atomic_load_n(&__tf_holder_tokenize, __ATOMIC_ACQUIRE);
    mm->ops->exit(mm, ID_TOKENIZE, NULL);
    char *text = slurp(report_to("a.txt", TF_TIMING_TEXT, TF_OK));
    assert_non_null(strstr(text, "anomalies: 1 unmatched exits, 0 abandoned entries, 0 entries lost (out of memory)"));
    assert_non_null(strstr(text, "unmatched exits 1"));
}

/* With 3 ns of hook overhead per call: parse_file's self is 26 - (5 + 3) - (7 + 3)
 * - (4 + 3) = 1 per call, flush's 4 - (2 + 3) -> 0; tokenize's 6 per call stays above
 * the floor. Self times: tokenize 24, read_chunk 4, parse_file 2, flush 0 of 30. */
static void test_overhead_floor(void **state)
{
    assert_int_equal(tf_timing_set_overhead(tm, 3), TF_OK);
    parse_file();
    parse_file();
    const char *path = report_to("floor.json", TF_TIMING_JSON, TF_OK);
    assert_int_equal(
        check("json %s"
              " --expect wc.tokenize:self_ns=24,self_pct=80,hooks_ns=12,hooks_pct=50,"
              "at_overhead_floor=false"
              " --expect wc.read_chunk:self_ns=4,self_pct=13.333,hooks_ns=6,hooks_pct=100,"
              "at_overhead_floor=true"
              " --expect wc.parse_file:self_ns=2,self_pct=6.667,hooks_ns=6,hooks_pct=100,"
              "at_overhead_floor=true"
              " --expect wc.flush:self_ns=0,self_pct=0,hooks_ns=6,hooks_pct=100,"
              "at_overhead_floor=true"
              /* the hooks inside self times: 12 + 4 + 2 + 0 of 30 */
              " --summary self_ns_total=30,calls=10,hooks_ns=30,hooks_in_self_ns=18,"
              "hooks_pct=60,top_n=4,top_self_pct=100",
              path),
        0);
    char *text = slurp(report_to("floor.txt", TF_TIMING_TEXT, TF_OK));
    assert_non_null(strstr(text, "\nhooks: est. 30 ns in 10 timed calls at 3 ns each; 18 ns of "
                                 "it, 60.0% of the measured self time, is inside the self times "
                                 "below\n"));
    assert_non_null(strstr(text, "\n  wc.tokenize                       80.0%\n"
                                 "  wc.read_chunk                     13.3% *\n"
                                 "  wc.parse_file                      6.7% *\n"
                                 "  wc.flush                           0.0% *\n"));
    assert_non_null(strstr(text, "\n*: self time per call at or below the hook overhead (3 ns)"));
    char *tok = strstr(text, "\n  wc.tokenize                              4   80.0 ");
    char *pf = strstr(text, "\n  wc.parse_file                            2    6.7 ");
    assert_non_null(tok);
    assert_non_null(pf);
    assert_memory_equal(strchr(tok + 1, '\n') - 7, "   50.0\n", 8);
    assert_memory_equal(strchr(pf + 1, '\n') - 9, "  100.0 *\n", 10);
}

/* ---- the event log --------------------------------------------------------------- */

static void *logging_thread(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "tf-worker");
    fake_now = 100;
    for (int i = 0; i < 3; i++)
        parse_file(); /* 5 events each: tokenize x2, read_chunk, flush, parse_file */
    return NULL;
}

static void test_chrome_trace(void **state)
{
    report_to("none.json", TF_TIMING_CHROME_TRACE, TF_ENOENT);
    assert_int_equal(tf_timing_event_log(tm, 4), TF_OK);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, logging_thread, NULL), 0);
    pthread_join(th, NULL); /* exited: its log stays */
    for (int i = 0; i < 10; i++)
        tokenize(3);
    const char *path = report_to("trace.json", TF_TIMING_CHROME_TRACE, TF_OK);
    /* 10 - 4 dropped on this thread, 15 - 4 on the worker. */
    assert_int_equal(check("chrome %s --tracks 2 --max-per-track 4 --dropped 17"
                           " --names wc.tokenize,wc.parse_file,wc.flush",
                           path),
                     0);
    assert_non_null(strstr(slurp(path), "\"name\":\"tf-worker\""));
}

static void test_chrome_trace_nesting(void **state)
{
    parse_file(); /* before the log: not in it */
    assert_int_equal(tf_timing_event_log(tm, 100), TF_OK);
    for (int i = 0; i < 2; i++)
        parse_file();
    const char *path = report_to("nest.json", TF_TIMING_CHROME_TRACE, TF_OK);
    assert_int_equal(check("chrome %s --tracks 1 --max-per-track 10 --dropped 0", path), 0);
    char *text = slurp(path);
    /* The first logged parse_file starts at 26 ns: 0.026 us, lasting 0.026 us. */
    assert_non_null(strstr(text, "\"name\":\"wc.parse_file\",\"cat\":\"parse\""));
    assert_non_null(strstr(text, "\"ts\":0.026,\"dur\":0.026"));
    assert_null(strstr(text, "\"ts\":0.000,\"dur\":0.026"));
    /* Turning the log off keeps what was logged. */
    assert_int_equal(tf_timing_event_log(tm, 0), TF_OK);
    parse_file();
    path = report_to("nest2.json", TF_TIMING_CHROME_TRACE, TF_OK);
    assert_int_equal(check("chrome %s --tracks 1 --max-per-track 10 --dropped 0", path), 0);
    assert_null(strstr(slurp(path), "\"ts\":0.078"));
}

/* ---- the real clock --------------------------------------------------------------- */

static void sleep_us(long us)
{
    struct timespec t = {0, us * 1000};
    while (nanosleep(&t, &t) != 0)
        ;
}

NOINLINE static void sleepy_tokenize(long us)
{
    GEN_ENTER(__tf_holder_tokenize, ID_TOKENIZE);
    sleep_us(us);
    GEN_EXIT(ID_TOKENIZE);
}

NOINLINE static void sleepy_parse(void)
{
    GEN_ENTER(__tf_holder_parse, ID_PARSE_FILE);
    sleep_us(1000);
    sleepy_tokenize(2000);
    GEN_EXIT(ID_PARSE_FILE);
}

static void test_real_clock_sanity(void **state)
{
    tf_clear("app");
    tf_timing_manager *real = tf_timing_manager_create();
    assert_non_null(real);
    assert_int_equal(tf_register("app", tf_timing(real)), TF_OK);
    sleepy_parse();
    tf_timing_stats p, t;
    assert_int_equal(tf_timing_stats_get(real, "wc.parse_file", &p), TF_OK);
    assert_int_equal(tf_timing_stats_get(real, "wc.tokenize", &t), TF_OK);
    assert_int_equal(p.count, 1);
    assert_int_equal(t.count, 1);
    assert_true(t.total_ns >= 1.5e6 && t.total_ns < 2e9);
    assert_true(p.total_ns >= 2.5e6 && p.total_ns < 3e9);
    assert_true(p.total_ns > t.total_ns);
    assert_true(p.self_ns >= 0.5e6 && p.self_ns < p.total_ns);
    tf_timing_clock_info c;
    assert_int_equal(tf_timing_clock(real, &c), TF_OK);
    assert_true(strcmp(c.source, "tsc") == 0 ||
                strcmp(c.source, "clock_gettime(CLOCK_MONOTONIC)") == 0);
    assert_true(c.read_ns > 0 && c.read_ns < 10000);
    assert_true(c.monotonic_read_ns > 0 && c.monotonic_read_ns < 10000);
    assert_true(c.ticks_per_second > 1e6);
    assert_true(c.overhead_ns >= 0 && c.overhead_ns < 100000);
    print_message("clock %s: %.1f ns/read (rdtsc %.1f, clock_gettime %.1f), %.6g ticks/s, "
                  "invariant TSC %d, hook overhead %.1f ns per nested call\n",
                  c.source, c.read_ns, c.tsc_read_ns, c.monotonic_read_ns, c.ticks_per_second,
                  c.tsc_invariant, c.overhead_ns);
    const char *path;
    tf_timing_manager *keep = tm;
    tm = real;
    path = report_to("real.json", TF_TIMING_JSON, TF_OK);
    tm = keep;
    assert_int_equal(check("json %s --expect wc.parse_file:count=1", path), 0);
    char *json = slurp(path);
    assert_null(strstr(json, "\"wall_ns\": null"));
    assert_null(strstr(json, "\"cpu_ns\": null"));
    tm = real;
    char *text = slurp(report_to("real.txt", TF_TIMING_TEXT, TF_OK));
    tm = keep;
    assert_non_null(strstr(text, "\nrun: wall "));
    assert_non_null(strstr(text, ", process CPU "));
    tf_clear("app");
    tf_timing_manager_destroy(real);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tf-timing-test-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T(test_json_report),
        T(test_csv_report),
        T(test_text_report),
        T(test_group_tree_is_the_registrys),
        T(test_text_report_anomalies),
        T(test_overhead_floor),
        T(test_chrome_trace),
        T(test_chrome_trace_nesting),
        T(test_real_clock_sanity),
    };
    int rc = cmocka_run_group_tests_name("timing reports", tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
