/*
 * internal.h: what the runtime's modules (runtime/ and runtime/timing/)
 * share and users never see. Everything here is hidden (libtf is built with
 * -fvisibility=hidden); public entry points are marked TF_API. The registry
 * is below the runtime: its offer is registry/export.h.
 */
#ifndef TF_RUNTIME_INTERNAL_H
#define TF_RUNTIME_INTERNAL_H

#include <errno.h>
#include <fenv.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <tf/monitors.h>

#include "../registry/export.h"
#include "escape.h"
#include "files.h"

#define TF_COLD __attribute__((cold, noinline))
/* Thread variables read on every hook: initial-exec avoids a __tls_get_addr
 * call per access (libtf's few bytes fit glibc's static TLS surplus even when
 * libtf is dlopen'ed). */
#define TF_TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- reentrancy guard (.req: a monitor calling monitored code must not recurse)
 * Nonzero while any monitor callback of this thread runs, or libtf holds a
 * lock a hook may take (tf__lock); hooks that find it set do nothing. So a
 * signal handler's monitored calls are skipped, not waited on, when they
 * interrupt libtf on their own thread. Built-in monitors guard themselves
 * (TF_FACTORY_NO_GUARD); user monitors are wrapped by tf__monitor_create.
 * A skipped enter or info is a call not traced: counted (tf__untraced),
 * said at exit and by tf-ctl status. Its exit and exceptions are skipped as
 * well (the flag is still set then) and not counted again.
 * call: 1 in enter and info hooks, 0 in exit and exception hooks. */
extern TF_TLS int tf__in_monitor;
extern uint64_t tf__untraced;
#define TF_SKIP_IF_IN_MONITOR(call)                                            \
    if (__builtin_expect(tf__in_monitor != 0, 0)) {                           \
        if (call)                                                              \
            __atomic_fetch_add(&tf__untraced, 1, __ATOMIC_RELAXED);            \
        return;                                                                \
    }
#define TF_GUARD_BEGIN(call)                                                   \
    TF_SKIP_IF_IN_MONITOR(call)                                                \
    tf__in_monitor = 1;                                                        \
    int tf__saved_errno = errno
#define TF_GUARD_END()                                                         \
    errno = tf__saved_errno;                                                   \
    tf__in_monitor = 0
/* The same for a built-in monitor whose common path calls nothing that can
 * change errno (TLS, rdtsc, its own memory): saving errno costs a libc call
 * per hook, so instead its paths that allocate, lock or call out keep errno
 * themselves, between TF_KEEP_ERRNO and TF_RESTORE_ERRNO. */
#define TF_GUARD_BEGIN_NOERRNO(call)                                           \
    TF_SKIP_IF_IN_MONITOR(call)                                                \
    tf__in_monitor = 1
#define TF_GUARD_END_NOERRNO() tf__in_monitor = 0
#define TF_KEEP_ERRNO() int tf__kept_errno = errno
#define TF_RESTORE_ERRNO() errno = tf__kept_errno
/* A lock that hooks take too, taken outside a hook (or nested inside one):
 * this thread's hooks are skipped until it is released, as a signal
 * handler's hook waiting for it would wait for its own thread forever. */
static inline void tf__lock(pthread_mutex_t *l)
{
    tf__in_monitor++;
    pthread_mutex_lock(l);
}
static inline void tf__unlock(pthread_mutex_t *l)
{
    pthread_mutex_unlock(l);
    tf__in_monitor--;
}
/* At exit, on stderr: how many calls were not traced, and why (once). */
void tf__untraced_init(void);

/* ---- the program's floating-point environment (docs/design.md .fid.fenv)
 * libtf's own floating-point work on a program's thread (the clock's
 * calibration at start, reports, dprint's values, a recording's metadata in
 * a signal handler) runs between tf__fp_enter and tf__fp_leave: in the
 * default environment, and the program's exception flags and rounding mode
 * are as they were afterwards. fegetenv/fesetenv are a few instructions
 * (fnstenv/fldenv, stmxcsr/ldmxcsr), touch no memory but the fenv_t, and
 * are safe in a signal handler. */
static inline void tf__fp_enter(fenv_t *saved)
{
    fegetenv(saved);
    fesetenv(FE_DFL_ENV);
}
static inline void tf__fp_leave(const fenv_t *saved)
{
    fesetenv(saved);
}
/* The same for hooks (dprint's values), where fegetenv/fesetenv cost more
 * than the formatting (fnstenv/fldenv: about 700 ns, measured in the
 * hardening report): a program running to nearest with no trap enabled,
 * the common case, gets only its flags read before and after (fnstsw,
 * stmxcsr: tens of ns) and any flag libtf raised cleared; any other
 * program the full save. */
typedef struct {
    fenv_t env;
    int full, flags;
} tf_fp_hook;
int fegetexcept(void); /* glibc's (<fenv.h> declares it under _GNU_SOURCE): the traps enabled */
static inline void tf__fp_hook_enter(tf_fp_hook *s)
{
    s->flags = fetestexcept(FE_ALL_EXCEPT);
    s->full = fegetround() != FE_TONEAREST || fegetexcept() != 0;
    if (s->full)
        tf__fp_enter(&s->env);
}
static inline void tf__fp_hook_leave(const tf_fp_hook *s)
{
    if (s->full)
        tf__fp_leave(&s->env);
    else if (fetestexcept(FE_ALL_EXCEPT) != s->flags)
        feclearexcept(FE_ALL_EXCEPT & ~s->flags);
}

/* Thread keys hooks set are made by constructors of priority 101: before
 * libtf's constructor, whose TF_MONITORS may already trace calls. */

/* ---- memory hooks use (pages.c) ---------------------------------------------
 * A hook may run in a signal handler that interrupted malloc on its own
 * thread, whose lock would then never be released: hooks never call malloc
 * and friends. What they need (a thread's first event, a stack that grows)
 * comes from mmap, a system call: zeroed pages; the size given to free and
 * grow is the one asked for. Each keeps errno. */
void *tf__pages_alloc(size_t size);
/* How many of these allocations failed (said at exit by guard.c). */
extern uint64_t tf__pages_failed;
void tf__pages_free(void *p, size_t size);
/* p NULL: allocates, as realloc. Fails with NULL and p unchanged. */
void *tf__pages_grow(void *p, size_t size, size_t new_size);
/* Small zeroed objects of one owner, freed together; the owner serialises. */
typedef struct tf_arena {
    void *blocks;
    char *next;
    size_t left;
} tf_arena;
void *tf__arena_alloc(tf_arena *a, size_t size);
void tf__arena_free(tf_arena *a);

/* Creates f's monitor for tu, wrapped in the guard unless f opts out. */
tf_monitor *tf__monitor_create(tf_factory *f, const tf_tu *tu);
tf_monitor *tf__unguard(tf_monitor *m);
/* A plain tf_monitor with ops (for monitors that keep no state of their own). */
tf_monitor *tf__monitor_new(const tf_monitor_ops *ops, const tf_tu *tu, tf_factory *f);
/* A composition of the monitors of fs for tu (fs flattened, duplicates dropped). */
tf_monitor *tf__compose_create(tf_factory *const *fs, size_t n, const tf_tu *tu);

/* ---- stack positions, for per-thread stacks that must survive longjmp -------
 * TF_CALLER_SP() (used directly inside a monitor callback) is the stack pointer
 * of the monitored function when it called the hook: deeper frames have smaller
 * values, so a frame recorded with sp < the sp of a later event on the same
 * thread is dead. Wrappers between the hook and a monitor (compose, guard) set
 * tf__hook_sp to their own caller's sp so that the value stays that of the
 * monitored function. */
extern TF_TLS uintptr_t tf__hook_sp;
#define TF_FRAME_CALLER_SP() ((uintptr_t)__builtin_frame_address(0) + 2 * sizeof(void *))
#define TF_CALLER_SP() (tf__hook_sp ? tf__hook_sp : TF_FRAME_CALLER_SP())
/* Runs `call` (the wrapped monitors' hooks) with tf__hook_sp set as above,
 * then puts it back: the one way a wrapper passes the position on. */
#define TF_PASS_HOOK_SP(call)                                                  \
    do {                                                                       \
        uintptr_t tf__outer_sp = tf__hook_sp;                                  \
        tf__hook_sp = TF_CALLER_SP();                                          \
        call;                                                                  \
        tf__hook_sp = tf__outer_sp;                                            \
    } while (0)

/* libtf interposes longjmp/siglongjmp/_longjmp/__longjmp_chk: before jumping it
 * calls every registered function with the target stack pointer, on the jumping
 * thread; frames with sp < target_sp are being skipped. Any number, each once. */
typedef void (*tf__longjmp_fn)(uintptr_t target_sp);
void tf__on_longjmp(tf__longjmp_fn fn);

/* ---- text buffers: never overflow; len keeps counting what did not fit ------
 * Everything but floating-point values is async-signal-safe (crash handler). */
typedef struct tf_buf {
    char *p;
    size_t cap;
    size_t len;
} tf_buf;
void tf__buf_put_long(tf_buf *b, const char *s, size_t n);

/* The pieces of a dprint line are a few bytes each: copied in line, not by a
 * libc call per piece (that was 40% of a line's instructions). */
static inline void tf__buf_put(tf_buf *b, const char *s, size_t n)
{
    if (n > 16 || b->len + n > b->cap) {
        tf__buf_put_long(b, s, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        b->p[b->len + i] = s[i];
    b->len += n;
}

/* A NUL-terminated string, scanned and copied in one pass while it fits. */
static inline void tf__buf_puts(tf_buf *b, const char *s)
{
    size_t i = 0;
    while (s[i] && b->len < b->cap)
        b->p[b->len++] = s[i++];
    if (s[i])
        tf__buf_put_long(b, s + i, __builtin_strlen(s + i));
}

void tf__buf_int(tf_buf *b, int64_t v);
void tf__buf_uint(tf_buf *b, uint64_t v);
void tf__buf_value(tf_buf *b, const tf_value *v);
void tf__buf_args(tf_buf *b, const tf_args *a); /* "p1=v1, p2=v2" */
/* One byte of a string as dprint quotes it: C escapes, octal for the rest. */
void tf__buf_quoted_byte(tf_buf *b, unsigned char c);
/* s escaped as every message escapes user text (escape.h). */
void tf__buf_escaped(tf_buf *b, const char *s);
/* NUL-terminates, replacing the tail by "..." if it was cut; returns b->p. */
char *tf__buf_end(tf_buf *b);
/* tf__buf_end, returning the length the whole text needed (snprintf-style). */
size_t tf__buf_finish(tf_buf *b);
/* The elements of a COMPLEX or VECTOR value (abi.def's element code). */
typedef struct {
    char cls; /* i, u, f, x */
    unsigned bytes, count;
} tf_elems;
/* 0 when v is a COMPLEX or VECTOR value this libtf can show (a known code,
 * fitting in v->size; a complex one of two floating elements); v->v.p is
 * not looked at. */
int tf__value_elems(const tf_value *v, tf_elems *e);
/* Element at p (of class f or x) as a double. */
double tf__elem_double(const tf_elems *e, const void *p);
/* Longest string shown for a const char * value (docs/design.md
 * .use.dprint). */
#define TF_STR_MAX 64
/* Copies the string at src, which may be no string at all (a `char *` holding
 * an integer, a freed buffer), into dst without ever faulting: up to max
 * bytes, stopping before a NUL. Returns the bytes copied; *end says why it
 * stopped. Async-signal-safe; keeps errno. (safe_read.c) */
enum { TF_STR_NUL, TF_STR_CUT, TF_STR_FAULT };
size_t tf__copy_str(char *dst, const char *src, size_t max, int *end);
/* The same for n bytes of anything (a captured field, docs/code-shape.md
 * section 8): 1 when all of them were readable and copied, else 0. */
int tf__copy_bytes(void *dst, const void *src, size_t n);
/* A captured value: a pointer whose type is the tf_capture of what it points
 * to (runtime/capture.c). */
static inline int tf__captured(const tf_value *v)
{
    return v->kind == TF_K_PTR && v->type != NULL;
}
/* "{fd=3, peer={name="db1", port=5432}}", read through tf__copy_bytes;
 * args (NULL for a result) holds the lengths of `buf[len]` arrays. */
void tf__buf_capture(tf_buf *b, const tf_value *v, const tf_args *args);
/* The field at path ("peer.port") of captured value v, read now into *out
 * (a string field's bytes into str, at most len); 0, or -1 when v has no
 * such captured field or it is unreadable. */
int tf__capture_field(const tf_value *v, const tf_args *args, const char *path, size_t pathlen, tf_value *out,
                      char *str, size_t len);
/* Called first by every libtf fatal-signal handler: if this thread faulted
 * inside tf__copy_str, resumes there instead of returning. */
void tf__probe_recover(int sig);
/* libc's sigaction, past libtf's own (which notes who takes SIGSEGV/SIGBUS). */
int tf__real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old);
/* A handler for sig was installed by someone after libtf's probe handler. */
void tf__probe_handler_changed(int sig);
/* Strings are read under libtf's fault handler (fast) except in sanitizer
 * builds, whose runtimes would not follow the jump out of it (safe_read.c). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TF_PROBE_BY_FAULT 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TF_PROBE_BY_FAULT 0
#endif
#endif
#ifndef TF_PROBE_BY_FAULT
#define TF_PROBE_BY_FAULT 1
#endif
/* The calling thread's name (pthread_getname_np); async-signal-safe. */
void tf__thread_name(char name[16]);
/* A record kept per thread (the watchdog's, the budget's), first member of
 * theirs: claimed at a thread's first event from a list that never shrinks
 * (pages.c: never malloc, never unmapped), released at its exit for the
 * next thread. */
typedef struct tf_threadrec {
    struct tf_threadrec *next; /* every record, newest first; never freed */
    int used;                  /* 1 while a thread owns it */
} tf_threadrec;
/* A record of *all no thread owns, or a new one of size bytes pushed on it;
 * owned by the caller (used 1). NULL without a page. Async-signal-safe. */
tf_threadrec *tf__threadrec_claim(tf_threadrec **all, size_t size);
/* Starts fn as libtf's thread name (NULL: unnamed), every signal blocked in
 * it (thread.c);
 * pthread_create's result. */
int tf__thread_start(pthread_t *t, void *(*fn)(void *), const char *name);

/* ---- fork ------------------------------------------------------------------
 * Each module's locks around fork, run by runtime/init.c's one pthread_atfork
 * handler in the order of the table in locks.h (which lists every mutex). */
void tf__dprint_fork(int phase);
void tf__timing_fork(int phase);
void tf__control_fork(int phase);
void tf__record_fork(int phase);

/* ---- environment (runtime/env.c, factories.c) ------------------------------ */
/* The stream TF_OUTPUT names (stderr by default). */
FILE *tf__env_output(void);
/* Applies TF_MONITORS (once, from libtf's constructor). */
void tf__env_init(void);
void tf__env_fork(int phase);
/* Built-in factories register under a name TF_MONITORS can use, from their
 * own file (before libtf's constructor applies TF_MONITORS):
 *   TF_ENV_FACTORY(dprint, "dprint", "one line per event to TF_OUTPUT", make);
 * make is a tf_factory_maker, called once, on first use. */
#define TF_ENV_FACTORY(id, name, help, make)                                   \
    __attribute__((constructor(101))) static void tf__env_factory_##id(void)   \
    {                                                                          \
        if (tf_env_add_factory(name, make, help) == TF_ENOMEM)                 \
            fprintf(stderr, "tf: out of memory: factory '%s' not registered\n", name); \
    }
int tf__factory_name_valid(const char *name);
/* The factory registered (or loadable) as name, made on first use; NULL if
 * *unknown, or if it could not be made. why: what went wrong loading it. */
tf_factory *tf__factory_named(const char *name, int *unknown, char *why, size_t len);
char *tf__factories_known(void); /* "a, b, c", sorted, whole; malloc'd (NULL: out of memory) */
void tf__factories_help(FILE *out);
/* fn runs after each tf_env_add_factory (TF_MONITORS items may wait for it). */
void tf__factories_on_add(void (*fn)(void));
void tf__factories_fork(int phase);
/* tf__factory_named for live control (tf-ctl register, triggers), from any
 * thread: under env.c's lock, as TF_MONITORS items look factories up. */
tf_factory *tf__env_factory(const char *name, int *unknown, char *why, size_t len);
/* "if COND" of a TF_MONITORS item (text, at column col of item index) around
 * the composition of fs; NULL after reporting a bad condition on stderr. */
tf_factory *tf__cond_wrap(const char *text, size_t col, tf_factory **fs, size_t n, int index);
/* TF_CONTROL and TF_TRIGGERS (runtime/control), after environment activation. */
void tf__control_init(void);
/* TF_WATCHDOG and TF_SAMPLE (runtime/watchdog), after live control; in a
 * forked child the watchdog starts again. */
void tf__watchdog_init(void);
void tf__watchdog_fork(int phase);
/* tf-ctl PID stacks, heartbeat and watchdog SPEC (runtime/watchdog/commands.c);
 * 0, or -1 with the reason in err. who: the requester, for a denial. */
int tf__watchdog_stacks(FILE *out, char *err, size_t len);
void tf__watchdog_heartbeat(FILE *out);
int tf__watchdog_control(const char *spec, const char *who, FILE *out, char *err, size_t len);
/* TF_BUDGET (runtime/budget), before environment activation; its fork
 * function (locks.h row budget); tf-ctl PID budget [SPEC] (NULL: show). The
 * registry's maker: the meter around the composition while a budget runs. */
void tf__budget_init(void);
void tf__budget_fork(int phase);
int tf__budget_control(const char *spec, const char *who, FILE *out, char *err, size_t len);
tf_monitor *tf__budget_make(tf_factory *const *fs, size_t n, const tf_tu *tu);
tf_monitor *tf__budget_inner(tf_monitor *m);
/* The manager of the `timing` factory if TF_MONITORS or tf-ctl ever asked
 * for it, else NULL (tf-ctl report). */
struct tf_timing_manager *tf__timing_env_existing(void);
/* ---- TF_OUT: output buffers shown at exit (out.c; docs/design.md .silent.out)
 * tf__out_params: per id of tu, the TF_OUT item naming it, or NULL; NULL as a
 * whole when none does (malloc'ed: monitor creation). tf__out_enter (a hook)
 * keeps the named char * argument's pointer for the exit and returns that
 * argument (NULL: the call has none); tf__out_exit takes it back as a
 * string value of the parameter's name, 1 if it was kept. */
typedef struct tf_out_item tf_out_item;
void tf__out_init(void); /* reads TF_OUT, from tf__env_init */
const tf_out_item **tf__out_params(const tf_tu *tu);
const tf_value *tf__out_enter(const void *owner, const tf_out_item *item, int id, const tf_args *args,
                              uintptr_t sp);
int tf__out_exit(const void *owner, const tf_out_item *item, int id, uintptr_t sp, tf_value *out);

/* ---- names that may match nothing (hints.c; docs/design.md .silent.nearest)
 * A pending function glob watches every TU that registers, from now on and
 * those registered already: whether one has a monitored function it matches
 * (or only info functions), and the nearest names ("did you mean 'x'?" in
 * hint, or "": none near, or a glob with a wildcard). Made where the glob is
 * given, asked when the answer is due (at exit, or at once for tf-ctl).
 * Never from a hook. */
typedef struct tf_pending tf_pending;
tf_pending *tf__pending_function(const char *glob); /* NULL: out of memory */
void tf__pending_free(tf_pending *p);
int tf__pending_matched(tf_pending *p);
int tf__pending_info_only(tf_pending *p);
void tf__pending_hint(tf_pending *p, char *hint, size_t len);
void tf__hints_fork(int phase);
/* "did you mean 'x'?" among the groups loaded code declared or used (also
 * at exit), and among the factories published now (factories.c). For many
 * names at once, take the groups once: tf__names_hint keeps a budget of
 * comparisons, past which it suggests nothing. */
void tf__hint_group(const char *want, char *hint, size_t len);
typedef struct tf_names {
    char **v;
    size_t n;
    unsigned long spent; /* comparisons made by tf__names_hint */
} tf_names;
tf_names tf__declared_groups(void);
void tf__names_hint(tf_names *names, const char *want, char *hint, size_t len);
void tf__names_free(tf_names *names);
void tf__hint_factory(const char *want, char *hint, size_t len);
/* Fatal signals (fatal.c): SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT. A libtf
 * handler catches them all with tf__catch_fatal (nonzero if sigaction
 * failed) and, when done, hands the signal on with tf__fatal_pass_on. */
#define TF_NFATAL 5
extern const int tf__fatal_signals[TF_NFATAL];
int tf__catch_fatal(void (*fn)(int, siginfo_t *, void *), struct sigaction previous[TF_NFATAL]);
void tf__fatal_pass_on(int sig, siginfo_t *info, void *uctx, const struct sigaction previous[TF_NFATAL]);
void tf__pass_on(int sig, siginfo_t *info, void *uctx, const struct sigaction *previous);
/* Termination signals (term.c): SIGTERM, SIGINT, SIGHUP, SIGQUIT with their
 * default action write what exit writes, then take that action.
 * tf__at_exit: atexit, and run on such a signal too (on libtf's exit thread).
 * tf__term_arm: a module that has something to write asks for it (once).
 * tf__term_busy: +1/-1 around a tf-ctl report or snapshot, finished first.
 * tf__term_sigaction: interpose.c's sigaction for the four, 1 if not armed.
 * tf__term_fork: init.c's fork handler (the exit thread around fork).
 * tf__record_terminate: the recorder's async-signal-safe part (dump.c). */
#define TF_NTERM 4
void tf__at_exit(void (*fn)(void));
void tf__term_arm(void);
void tf__term_busy(int delta);
int tf__term_sigaction(int sig, const struct sigaction *sa, struct sigaction *old);
void tf__term_fork(int phase);
void tf__record_terminate(int sig, const siginfo_t *info);

/* out is TF_OUTPUT, fully buffered by libtf in size bytes (0: line by line):
 * dprint flushes it every 100 ms of tracing, on a fatal signal, and before a
 * line that would not fit, so every write(2) ends at a line's end. */
void tf__dprint_buffered(FILE *out, size_t size);
/* At exit, dprint says how many lines a write error lost (once per stream). */
void tf__dprint_init(void);
/* Every file libtf writes comes from files.h's creator; libtf's files are
 * O_APPEND (a forked child shares them) and may replace a file TF did not
 * write when TF_OVERWRITE=1 says so: these flags (env.c). */
unsigned tf__env_file_flags(void);

#endif
