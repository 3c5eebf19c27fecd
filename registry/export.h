/*
 * export.h: what the registry (registry/) offers the rest of libtf beyond the
 * public <tf/registry.h>. The registry calls nothing of the runtime's: what it
 * needs from it (making a holder's monitor) is handed in through a hook.
 */
#ifndef TF_REGISTRY_EXPORT_H
#define TF_REGISTRY_EXPORT_H

#include <stddef.h>

#define TF_NO_CALLER_MACROS /* libtf defines the functions themselves */
#include <tf/registry.h>

#define TF_API __attribute__((visibility("default")))
#define TF_RETURN_ADDRESS() __builtin_extract_return_addr(__builtin_return_address(0))

/* Registers without the caller check (environment activation, tests of policy). */
int tf__register_trusted(const char *group, tf_factory *f);

/* How a holder's monitor is made from the factories reaching it (in order,
 * each once): set once by the runtime before any TU registers. */
typedef tf_monitor *(*tf__monitor_maker)(tf_factory *const *fs, size_t n, const tf_tu *tu);
void tf__registry_set_maker(tf__monitor_maker make);
/* exit() has begun: monitors are then never destroyed (other threads and
 * later destructors may still run monitored code). */
void tf__registry_exiting(void);

/* Calls fn with group's name and then each group containing it (its
 * ancestors in the group graph), nearest first, each once, until fn returns
 * nonzero, and returns that. Takes no lock: callable from a factory's
 * create, which runs under the registry's. */
int tf__group_each_container(const char *group, int (*fn)(const char *name, void *arg), void *arg);

/* Snapshot of the modules trusted from the start (before anything runs). */
void tf__permission_init(void);

/* fork: every lock of libtf is taken before fork and released after it, in
 * one order, from the single pthread_atfork handler in runtime/init.c. */
enum { TF_FORK_PREPARE, TF_FORK_PARENT, TF_FORK_CHILD };
void tf__registry_fork(int phase);
void tf__permission_fork(int phase);

#endif
