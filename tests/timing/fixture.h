/*
 * fixture.h: a TU descriptor built by hand exactly as the plugins emit it
 * (docs/code-shape.md), and monitored functions written in the generated
 * shape, for the timing tests. Include from one .c file per executable.
 *
 * The TU "wc" (file tests/timing/wc.c) declares
 *   TF_GROUP(io); TF_GROUP(tokenize); TF_GROUP(parse, tokenize); TF_GROUP(app, io, parse);
 * and has, sorted by name (id = index):
 *   0 flush       TF_INFO(TF_TP_ENTER)/TF_INFO(TF_TP_EXIT) pair, TF_TRACING_NAME("flush")
 *   1 note        TF_INFO(TF_TP_NONE)
 *   2 parse_file  TF_MONITOR(parse)
 *   3 read_chunk  TF_MONITOR(io)
 *   4 tokenize    TF_MONITOR(tokenize)
 * A second TU "extra" only declares TF_GROUP(top, tokenize) and uses group
 * `top` for one function, so that containment known only to the registry
 * can be tested; a third, "loop", is registered only by the tests using it.
 */
#ifndef TF_TEST_TIMING_FIXTURE_H
#define TF_TEST_TIMING_FIXTURE_H

#include <errno.h>
#include <stdint.h>

#include <tf/registry.h>
#include <tf/timing.h>
#include <tf/types.h>

enum { ID_FLUSH = 0, ID_NOTE = 1, ID_PARSE_FILE = 2, ID_READ_CHUNK = 3, ID_TOKENIZE = 4 };

static tf_monitor *__tf_holder_io, *__tf_holder_parse, *__tf_holder_tokenize;

static const tf_name __tf_names[5] = {
    {"flush", TF_NAME_INFO | TF_NAME_TP_ENTER | TF_NAME_TP_EXIT, -1, "tests/timing/wc.c", 40, 0},
    {"note", TF_NAME_INFO, -1, "tests/timing/wc.c", 41, 0},
    {"parse_file", TF_NAME_MONITOR, 1, "tests/timing/wc.c", 50, 0},
    {"read_chunk", TF_NAME_MONITOR, 0, "tests/timing/wc.c", 60, 0},
    {"tokenize", TF_NAME_MONITOR, 2, "tests/timing/wc.c", 70, 0},
};
static const tf_tu_group __tf_groups[3] = {
    {"io", &__tf_holder_io},
    {"parse", &__tf_holder_parse},
    {"tokenize", &__tf_holder_tokenize},
};
static const char *const __tf_sub_app[2] = {"io", "parse"};
static const char *const __tf_sub_parse[1] = {"tokenize"};
static const tf_group_decl __tf_decls[4] = {
    {"app", __tf_sub_app, 2, 0},
    {"io", 0, 0, 0},
    {"parse", __tf_sub_parse, 1, 0},
    {"tokenize", 0, 0, 0},
};
static tf_tu __tf_tu = {TF_TU_ABI, 64, "tests/timing/wc.c", "wc", 5, 3, 4, 0,
                        __tf_names, __tf_groups, __tf_decls, NULL, NULL};
__attribute__((constructor)) static void __tf_ctor(void) { tf_tu_register(&__tf_tu); }
__attribute__((destructor)) static void __tf_dtor(void) { tf_tu_unregister(&__tf_tu); }

/* The second TU. */
static tf_monitor *extra_holder_top;
static const tf_name extra_names[1] = {{"setup", TF_NAME_MONITOR, 0, "tests/timing/extra.c", 5, 0}};
static const tf_tu_group extra_groups[1] = {{"top", &extra_holder_top}};
static const char *const extra_sub_top[1] = {"tokenize"};
static const tf_group_decl extra_decls[2] = {
    {"tokenize", 0, 0, 0},
    {"top", extra_sub_top, 1, 0},
};
static tf_tu extra_tu = {TF_TU_ABI, 64, "tests/timing/extra.c", "extra", 1, 1, 2, 0,
                         extra_names, extra_groups, extra_decls, NULL, NULL};
__attribute__((constructor)) static void extra_ctor(void) { tf_tu_register(&extra_tu); }
__attribute__((destructor)) static void extra_dtor(void) { tf_tu_unregister(&extra_tu); }

/* A third TU, registered by the tests that want it: "loop" declares
 * TF_GROUP(tokenize, app), a cycle the registry refuses (the edge is ignored),
 * and has one function in tokenize, so timing (on app) sees the TU. */
static tf_monitor *loop_holder;
static const tf_name loop_names[1] = {{"spin", TF_NAME_MONITOR, 0, "tests/timing/loop.c", 3, 0}};
static const tf_tu_group loop_groups[1] = {{"tokenize", &loop_holder}};
static const char *const loop_sub[1] = {"app"};
static const tf_group_decl loop_decls[1] = {{"tokenize", loop_sub, 1, 0}};
__attribute__((unused)) static tf_tu loop_tu = {TF_TU_ABI, 64, "tests/timing/loop.c", "loop", 1,
                                                1, 1, 0, loop_names, loop_groups, loop_decls, NULL, NULL};

/* The generated prologue and epilogue of a monitored function (no args). */
#define GEN_ENTER(holder, ID)                                                  \
    tf_monitor *mm = __atomic_load_n(&(holder), __ATOMIC_ACQUIRE);             \
    if (__builtin_expect(mm != 0, 0)) {                                        \
        tf_args a_ = {0, 0, 0};                                                \
        mm->ops->enter(mm, (ID), &a_);                                         \
    }
#define GEN_EXIT(ID)                                                           \
    do {                                                                       \
        if (mm)                                                                \
            mm->ops->exit(mm, (ID), 0);                                        \
    } while (0)
/* A rewritten info call: the info function's body, called with the caller's
 * mm and id. */
#define GEN_INFO(SELF, TP, CALLER)                                             \
    do {                                                                       \
        if (mm) {                                                              \
            tf_args a_ = {0, 0, 0};                                            \
            mm->ops->info(mm, &a_, (CALLER), (SELF), (TP));                    \
        }                                                                      \
    } while (0)

/* The fake clock: each thread has its own time, advanced by the test. */
static __thread uint64_t fake_now;
static __thread int fake_clock_errno; /* nonzero: every read sets errno to it */
static uint64_t fake_clock(void *arg)
{
    (void)arg;
    if (fake_clock_errno)
        errno = fake_clock_errno;
    return fake_now;
}
static inline void advance(uint64_t ns)
{
    fake_now += ns;
}

static inline tf_timing_manager *fake_manager(void)
{
    tf_timing_manager *tm = tf_timing_manager_create();
    if (tm)
        tf_timing_set_clock(tm, fake_clock, 0, 1e9); /* 1 tick = 1 ns */
    return tm;
}

#endif
