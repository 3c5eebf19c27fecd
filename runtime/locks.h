/*
 * locks.h: every mutex of libtf, in one table (docs/design.md .lock).
 *
 * The rules, for every lock here:
 * - No foreign code runs under it (.lock.foreign): not dlopen, not a
 *   factory's maker or create, not a monitor's hook or destroy, not a
 *   user's clock or callback. Any of those may fork, whose prepare handler
 *   takes every lock below, or call back into libtf: the thread would wait
 *   for itself. What needs foreign code is done in two steps around it (the
 *   registry's settle_locked, env.c's apply_waiting, factories.c's made).
 * - A lock is taken only while holding locks above it in the table, so the
 *   fork handler, which takes them all from top to bottom, cannot deadlock
 *   with a thread taking two of them.
 * - A lock that hooks also take is taken with tf__lock outside hooks, so a
 *   signal handler's hooks on the same thread skip instead of waiting.
 * - fork (.lock.fork): runtime/init.c's one pthread_atfork handler runs each
 *   row's function with TF_FORK_PREPARE from top to bottom (taking its
 *   locks), then TF_FORK_PARENT or TF_FORK_CHILD from bottom to top
 *   (releasing them; the child also forgets what threads it lacks were in
 *   the middle of). tests/unit/test_locks.c forks while each row is held,
 *   and checks that every file defining a mutex has a row.
 *
 * Per row: the file defining it; what it guards; the locks that may be held
 * when it is taken; foreign code under it (none anywhere, by the rule above);
 * what fork does with it (prepare takes it; the parent releases it; the child
 * releases it, or makes it anew, and drops what the threads it lacks did).
 *
 * term        term.c. Stopping and starting libtf's exit thread around
 *             fork (fork_lock: two threads may fork at once); it is stopped
 *             before fork in sanitizer builds, which cannot run a thread
 *             started in such a child. Held: none. Child: released, a
 *             thread of its own.
 * control     control/server.c, control/trigger.c. The server's table of
 *             connections, then adding triggers (hooks read the list without it).
 *             Held: none. Child: released, the parent's connections closed; a
 *             server thread of its own starts once every lock is free (this
 *             row is released last).
 * watchdog    watchdog/scan.c, watchdog/locks.c. Starting and stopping the
 *             watchdog (set_lock; the registry's part runs without it), its
 *             thread's wake-ups (wake_lock), the lock wrappers put in the GOT
 *             (locks.c). Held: set_lock before wake_lock. Child: its own
 *             watchdog thread, if one ran.
 * env         env.c. TF_MONITORS' queue of items, which thread applies them,
 *             TF_OUTPUT's stream. Held: none. Child: another thread's
 *             applying ends (its items are lost to the child).
 * factories   factories.c. Factories by name, which one is being made and
 *             by whom, the libraries tried. Held: none. Child: a factory
 *             another thread was making is made again when asked.
 * budget      budget/funcs.c, budget/budget.h. The functions the meter
 *             counts (their ranges of indices), the budget's decisions, its
 *             thread's wake-ups and state. Held: env (a monitor made while
 *             TF_MONITORS is applied gets its meter's range). The budget
 *             thread takes registry and record under it. Child: its own budget thread, if one ran.
 * registry    ../registry/registry.c. Groups, TUs, holders, the selection,
 *             the settles running. Held: env, budget. Child: other threads'
 *             settles are dropped and the condition made anew.
 * hints       hints.c. The names TF_SELECT and TF_TRIGGERS wait for, checked
 *             as each TU registers (the registry's observer). Held: registry.
 *             Child: released.
 * permission  ../registry/permission.c. Trusted modules, seals, denials.
 *             Held: none. Child: released.
 * dprint      dprint.c. The list of streams; each stream's lock, its lines.
 *             Held: env (the list), none (a stream). Child: released, libtf's
 *             buffered lines flushed first so neither process writes them twice.
 * timing      timing/timing_stack.c, timing/timing_internal.h. Timing's
 *             threads, then the TF_MONITORS manager's timers. Held: the
 *             threads lock before a manager's. Child: statistics of the
 *             threads it lacks forgotten.
 * record      record/pool.c (a spinlock: the packet pool, a hook's slow path),
 *             then record/classes.c (the recorder's TUs, event classes and
 *             metadata pieces). Held: the pool's before the classes'; budget
 *             (a decision recorded). Child: rings of its own, in a directory
 *             of its own.
 * files       files.c. The files TF has open, for the one-variable-per-file
 *             check. Held: env, or any row above (a leaf). Child: drops the
 *             files its parent's threads had open for a report.
 * cond        control/cond.c. The conditions on arguments whose calls are
 *             checked at exit. Held: none (a leaf). Child: released.
 * interpose   interpose.c. The longjmp callbacks. Held: none. Child: released.
 *
 * Exceptions, said where they are: a stream given to tf_dprint(FILE *) is
 * written under its stream's lock, so a FILE made by fopencookie whose write
 * function forks would deadlock that fork; a timing manager a program made
 * with tf_timing_manager_new is the program's to keep quiet across fork (only
 * the manager of TF_MONITORS is in the timing row).
 */
#ifndef TF_RUNTIME_LOCKS_H
#define TF_RUNTIME_LOCKS_H

/* X(row, file, fork function), top to bottom. */
#define TF_LOCKS(X)                                                            \
    X(term, "term.c", tf__term_fork)                                           \
    X(control, "control/trigger.c control/server.c", tf__control_fork)       \
    X(watchdog, "watchdog/scan.c watchdog/locks.c", tf__watchdog_fork)        \
    X(env, "env.c", tf__env_fork)                                              \
    X(factories, "factories.c", tf__factories_fork)                           \
    X(budget, "budget/funcs.c budget/budget.h", tf__budget_fork)              \
    X(registry, "../registry/registry.c", tf__registry_fork)                  \
    X(hints, "hints.c", tf__hints_fork)                                        \
    X(permission, "../registry/permission.c", tf__permission_fork)            \
    X(dprint, "dprint.c", tf__dprint_fork)                                     \
    X(timing, "timing/timing_stack.c timing/timing_internal.h", tf__timing_fork) \
    X(record, "record/pool.c record/classes.c", tf__record_fork)              \
    X(files, "files.c", tf__files_fork)                                        \
    X(cond, "control/cond.c", tf__cond_fork)                                   \
    X(interpose, "interpose.c", tf__interpose_fork)

typedef struct tf__lock_row {
    const char *name, *files;
    void (*fork)(int phase);
} tf__lock_row;

/* The table as data (runtime/init.c), for the fork handler and its test. */
extern const tf__lock_row tf__lock_rows[];
extern const int tf__nlock_rows;

void tf__files_fork(int phase);
void tf__cond_fork(int phase);
void tf__interpose_fork(int phase);

#endif
