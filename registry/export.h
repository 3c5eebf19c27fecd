/*
 * export.h: what the registry (registry/) offers the rest of libtf beyond the
 * public <tf/registry.h>. The registry calls nothing of the runtime's: what it
 * needs from it (making a holder's monitor) is handed in through a hook.
 */
#ifndef TF_REGISTRY_EXPORT_H
#define TF_REGISTRY_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* Requests from outside the program's code (the control socket, triggers)
 * act as environment activation does, but obey TF_SEAL_REGISTRATIONS: then
 * they are refused and recorded as a denial of who ("control socket"). */
int tf__register_external(const char *group, tf_factory *f, const char *who);
void tf__deny_external(const char *who, const char *what);
/* TF_OK, or TF_EPERM (recorded as a denial of who asking what) once
 * registrations are sealed: for requests that attach monitors otherwise. */
int tf__external_permitted(const char *who, const char *what);
/* Triggers (runtime/control) watch the functions they name: the registry adds
 * f to every holder for which wants(f, tu, group index) is nonzero, after the
 * factories registered; a later call replaces f and wants and recomputes
 * every holder. */
void tf__registry_watch(tf_factory *f, int (*wants)(tf_factory *f, const tf_tu *tu, uint32_t group));
/* The watchdog (runtime/watchdog) watches every monitored function: f (NULL:
 * none) joins every holder, last, and every holder is recomputed. */
void tf__registry_watch_every(tf_factory *f);
/* The overhead budget (runtime/budget) measures every holder that has a
 * monitor: f (NULL: none) joins such holders last, after the watchdog's, and
 * the runtime's maker makes it the layer around the others; every holder is
 * recomputed. Holders without a monitor stay NULL. */
void tf__registry_meter(tf_factory *f);
/* The budget's own switch, beside the selection (docs/design.md
 * .budget.shed): shed nonzero keeps the monitored functions ids[0..n) of tu
 * on the off path (NULL slot) whatever the selection says; 0 gives them back
 * to it. TF_OK, TF_ENOENT (tu is not registered: unloaded meanwhile),
 * TF_EINVAL (tu has no per-function slots, TF_TU_ABI < 3). Takes the lock. */
int tf__registry_shed(const tf_tu *tu, const uint32_t *ids, size_t n, int shed);
/* Every function the budget switched off follows the selection again. */
void tf__registry_unshed_all(void);
/* 1 if the budget keeps function id of tu off. */
int tf__registry_shed_get(const tf_tu *tu, int id);

/* Calls fn with each group a registered TU has declared or used (groups are
 * never forgotten, so at exit too), until fn returns nonzero, and returns
 * that. Under the registry's lock: fn calls nothing of the registry. */
int tf__group_each_declared(int (*fn)(const char *name, void *arg), void *arg);

/* fn sees each TU that registers from now on, and at once each one
 * registered already (runtime/hints.c: names that match nothing are said at
 * exit, when the TUs' destructors have unregistered them). It runs under the
 * registry's lock, so it calls nothing of the registry. */
void tf__registry_observe(void (*fn)(const tf_tu *tu));

/* Calls fn with the name of each group group directly contains, in the order
 * the TUs declared them, until fn returns nonzero, and returns that (0 for a
 * group without subgroups or unknown). Takes no lock, as above. */
int tf__group_each_subgroup(const char *group, int (*fn)(const char *name, void *arg), void *arg);

/* Function selection (select.c, README "Selecting functions"). A glob
 * matches "<tu>.<name>", or the name alone when it has no '.' (triggers and
 * tf-ctl functions match the same way). */
int tf__function_matches(const char *glob, const tf_tu *tu, const char *name);
/* A glob without '*', '?', '[' or '\' matches only what it spells. */
int tf__glob_literal(const char *glob);
/* The function name such a literal glob asks for in tu: the glob itself
 * without a '.', the part after "<tu>." with one, NULL if it names another
 * TU. */
const char *tf__literal_name_in(const char *literal, const tf_tu *tu);
/* Why the glob of len bytes at g would not match as written (fnmatch takes
 * an unclosed '[' or a trailing '\' literally), or NULL. */
const char *tf__glob_problem(const char *g, size_t len);
/* Where a selection comes from: the environment's TF_SELECT (bad items are
 * skipped and the rest applies; its items that never match are said at exit)
 * or a call (tf_select, tf-ctl: applied whole or not at all). */
enum tf__select_from { TF__SELECT_ENV, TF__SELECT_CALL };
/* Appends the items of a selection ("+GLOB,-GLOB,GLOB") and applies it; bad
 * items are reported through bad (1-based index, the item, why). TF_OK,
 * TF_EINVAL (a bad item or none at all), TF_ENOMEM. Takes the registry's lock. */
typedef void (*tf__select_bad)(int index, const char *item, size_t len, const char *why, void *arg);
int tf__select(const char *items, enum tf__select_from from, tf__select_bad bad, void *arg);
/* The selection as items ("+a.*,-*.tiny"), written to out; returns their
 * count. Takes the registry's lock. */
int tf__select_show(FILE *out);
/* Calls fn with each item of TF_SELECT still in the selection that has
 * matched no monitored function of any TU registered so far: its 1-based
 * place in TF_SELECT (bad items counted) and the item as "+GLOB"/"-GLOB".
 * Takes the lock. */
void tf__select_each_unmatched(void (*fn)(int index, const char *item, void *arg), void *arg);

/* Snapshot of the modules trusted from the start (before anything runs). */
void tf__permission_init(void);

/* fork: every lock of libtf is taken before fork and released after it, in
 * one order, from the single pthread_atfork handler in runtime/init.c. */
enum { TF_FORK_PREPARE, TF_FORK_PARENT, TF_FORK_CHILD };
void tf__registry_fork(int phase);
void tf__permission_fork(int phase);

#endif
