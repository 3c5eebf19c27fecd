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
 * | row        | file(s)                         | guards                                               | held when taken    |
 * |------------|---------------------------------|------------------------------------------------------|--------------------|
 * | control    | control/trigger.c               | adding triggers (readers are lock-free)              | none               |
 * | env        | env.c                           | TF_MONITORS' queue of items, the applier, TF_OUTPUT  | none               |
 * | factories  | factories.c                     | the factories by name, their making, libraries tried | none               |
 * | registry   | ../registry/registry.c          | groups, TUs, holders, the selection, settles running | env                |
 * | permission | ../registry/permission.c        | the trusted modules, seals, denials                  | none               |
 * | files      | files.c                         | the files TF has open (one variable per file)        | env                |
 * | dprint     | dprint.c                        | the list of streams; each stream's lines (its lock)  | env (list), none   |
 * | timing     | timing/timing_stack.c, timing.c | the threads of timing; the env manager's timers      | threads before mgr |
 * | record     | record/classes.c                | the recorder's TUs, event classes, metadata pieces   | none               |
 * | interpose  | interpose.c                     | the longjmp callbacks                                | none               |
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
    X(control, "control/trigger.c", tf__control_fork)                         \
    X(env, "env.c", tf__env_fork)                                              \
    X(factories, "factories.c", tf__factories_fork)                           \
    X(registry, "../registry/registry.c", tf__registry_fork)                  \
    X(permission, "../registry/permission.c", tf__permission_fork)            \
    X(files, "files.c", tf__files_fork)                                        \
    X(dprint, "dprint.c", tf__dprint_fork)                                     \
    X(timing, "timing/timing_stack.c timing/timing.c", tf__timing_fork)        \
    X(record, "record/classes.c", tf__record_fork)                            \
    X(interpose, "interpose.c", tf__interpose_fork)

typedef struct tf__lock_row {
    const char *name, *files;
    void (*fork)(int phase);
} tf__lock_row;

/* The table as data (runtime/init.c), for the fork handler and its test. */
extern const tf__lock_row tf__lock_rows[];
extern const int tf__nlock_rows;

void tf__files_fork(int phase);
void tf__interpose_fork(int phase);

#endif
