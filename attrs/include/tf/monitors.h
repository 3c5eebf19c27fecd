/*
 * monitors.h: the built-in monitor factories (Java: MethodMonitorFactoryDefaults).
 *
 * Factories live as long as the process: monitors made from them may be in use
 * on any thread until exit. The same argument returns the same factory (but
 * each tf_compose call makes a new one: compose once, register many times).
 */
#ifndef TF_MONITORS_H
#define TF_MONITORS_H

#include <stdio.h>

#include <tf/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Does nothing; for measuring the cost of the hooks themselves. */
tf_factory *tf_noop(void);

/* One whole line per event on out, in dprint's format (docs/design.md
 * .use.dprint). */
tf_factory *tf_dprint(FILE *out);

/* Keeps each thread's stack of current calls with their arguments. */
tf_factory *tf_operation_tracer(void);
/* Renders the calling thread's stack, outermost first, one call a line;
 * returns the length it needed (like snprintf). */
size_t tf_operation_context(char *buf, size_t len);
/* On SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT print the crashing thread's
 * stack to stderr (async-signal-safe), then pass the signal to the handler
 * installed before (with its siginfo), or die as the signal would. */
int tf_operation_tracer_crash_handler(void);

/* ---- factories TF_MONITORS can name ----------------------------------------
 * Publishes a factory under name (letters, digits, '_' and '-'; at most 63
 * characters) for TF_MONITORS='group=name'. make is called once, when an
 * item first uses the name, and returns the factory, or NULL after printing
 * why not. A library named "libtf-NAME.so" placed beside libtf is loaded
 * when TF_MONITORS names an unknown NAME; it calls this from a constructor.
 * Returns TF_OK, TF_EINVAL (bad name, make NULL) or TF_EPERM (name taken). */
typedef tf_factory *(*tf_factory_maker)(const char *name);
int tf_env_add_factory(const char *name, tf_factory_maker make, const char *help);

/* A factory whose monitors forward every event to each of factories' monitors in
 * order; nested compositions are flattened and duplicates dropped. */
tf_factory *tf_compose(tf_factory *const *factories, size_t n);

/* The monitors m forwards to: the parts of a composition, or m itself (user
 * monitors as their factory created them). Returns the count (may exceed max). */
size_t tf_monitor_parts(tf_monitor *m, tf_monitor **out, size_t max);

/* Formats one value as dprint does ("NULL", "\"a\\n\"", "true", "RED", ...);
 * returns the length it needed (like snprintf). */
size_t tf_value_format(char *buf, size_t len, const tf_value *v);
/* The human name of an exception's type ("std::runtime_error"), or a fallback
 * ("noreturn(longjmp)", "unknown"); always NUL-terminates buf. */
const char *tf_exception_type(const tf_exception *e, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
