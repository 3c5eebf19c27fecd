/*
 * foreign_probe SITE WAY: foreign code that forks while libtf runs it
 * (docs/design.md .lock.foreign), as liblttng-ust's constructor does.
 *
 * SITE, where the fork happens:
 *   create  a factory's create forks (factory "fork_create", the probe's own)
 *   hook    a monitor's enter hook forks (factory "fork_hook")
 *   dlopen  the constructor of libtf-forkdl.so forks, as libtf (or the
 *           program, for WAY register) loads it (factory "forkdl")
 * WAY, how the factory is asked for:
 *   env       TF_MONITORS=io=<factory>, set by the caller
 *   register  tf_register("io", factory) from main
 *   ctl       "register io=<factory>" over the probe's own control socket
 *             (TF_CONTROL=1 and XDG_RUNTIME_DIR set by the caller)
 *
 * The child of the fork, at the fork site, checks that every lock of libtf is
 * free for it: it registers dprint and the recorder, traces calls, writes a
 * recording snapshot and (with TF_CONTROL) asks its own control socket for
 * its status; it exits 0 if all of that worked. The parent must finish the
 * operation, see its factory's monitor trace a call, and reap the child.
 * Prints "ok" and exits 0, or says what failed and exits 1. FOREIGN_DIR: a
 * directory for the child's files.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tf/monitors.h>
#include <tf/record.h>

#include "fake_tu.h"

static pid_t child;  /* in the parent: the child foreign code forked */
static int hook_calls;

static int fail(const char *what)
{
    fprintf(stderr, "foreign_probe %ld: %s\n", (long)getpid(), what);
    return 1;
}

/* The child's control socket, as libtf names it (XDG_RUNTIME_DIR is set). */
static int ask_own_socket(const char *request, char *reply, size_t len)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s/tf/%ld.sock", getenv("XDG_RUNTIME_DIR"),
             (long)getpid());
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    size_t n = 0;
    for (int tries = 0; fd >= 0 && tries < 100; tries++) { /* the server thread is starting */
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
            break;
        usleep(20000);
    }
    if (fd < 0 || write(fd, request, strlen(request)) != (ssize_t)strlen(request)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    for (ssize_t got; n + 1 < len && (got = read(fd, reply + n, len - 1 - n)) > 0;)
        n += (size_t)got;
    reply[n] = 0;
    close(fd);
    return 0;
}

static int file_has(const char *path, const char *text)
{
    char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return strstr(buf, text) != NULL;
}

/* What the child does: every lock it needs must be free. */
static int child_checks(void)
{
    char path[4096], snap[4096], reply[4096];
    const char *dir = getenv("FOREIGN_DIR");
    snprintf(path, sizeof path, "%s/child-%ld.txt", dir, (long)getpid());
    snprintf(snap, sizeof snap, "%s/snapshot-%ld", dir, (long)getpid());
    tf_tu_register(&iostream_tu); /* forked in libtf's constructor (TF_MONITORS): not yet */
    FILE *out = fopen(path, "w");
    if (!out)
        return fail("child: cannot open its dprint file");
    if (tf_register("io_write", tf_dprint(out)) != TF_OK)
        return fail("child: tf_register io_write=dprint failed");
    write_long(3);
    fflush(out);
    if (!file_has(path, "iostream.write_long->(value=3)"))
        return fail("child: write_long(3) was not traced by dprint");
    if (tf_register("io_read", tf_record()) != TF_OK)
        return fail("child: tf_register io_read=record failed");
    read_int(5);
    if (tf_record_snapshot(snap) != TF_OK)
        return fail("child: tf_record_snapshot failed");
    snprintf(path, sizeof path, "%s/metadata", snap);
    if (access(path, R_OK) != 0)
        return fail("child: the snapshot has no metadata");
    const char *control = getenv("TF_CONTROL");
    if (control && strcmp(control, "1") == 0 &&
        (ask_own_socket("status\n", reply, sizeof reply) != 0 || strncmp(reply, "ok", 2) != 0))
        return fail("child: its own control socket did not answer status");
    return 0;
}

static void *child_thread(void *arg)
{
    *(int *)arg = child_checks();
    return NULL;
}

/* In the child, at the fork site. The checks run on a thread of their own:
 * this thread may be in a hook or serving the control socket, whose own
 * calls libtf does not trace (its guard). */
static void child_main(void)
{
    alarm(20); /* a child that deadlocks dies instead of hanging the test */
    int rc = 1;
    pthread_t t;
    if (pthread_create(&t, NULL, child_thread, &rc) != 0 || pthread_join(t, NULL) != 0)
        rc = fail("child: no thread");
    _exit(rc);
}

static void fork_here(void)
{
    static int forked; /* once a process: the child's own registrations make monitors too */
    if (forked++)
        return;
    pid_t pid = fork();
    if (pid == 0)
        child_main();
    child = pid;
}

static void counting_enter(tf_monitor *self, int id, const tf_args *args)
{
    __atomic_fetch_add(&hook_calls, 1, __ATOMIC_RELAXED);
}

static void forking_enter(tf_monitor *self, int id, const tf_args *args)
{
    counting_enter(self, id, args);
    fork_here();
}

static const tf_monitor_ops counting_ops = {.enter = counting_enter, .flags = TF_OPS_NO_VALUES};
static const tf_monitor_ops forking_ops = {.enter = forking_enter, .flags = TF_OPS_NO_VALUES};

static tf_monitor *new_monitor(const tf_monitor_ops *ops, tf_factory *f, const tf_tu *tu)
{
    tf_monitor *m = calloc(1, sizeof *m);
    if (m)
        *m = (tf_monitor){ops, tu, f};
    return m;
}

static tf_monitor *create_forking(tf_factory *f, const tf_tu *tu)
{
    fork_here();
    return new_monitor(&counting_ops, f, tu);
}

static tf_monitor *create_hook(tf_factory *f, const tf_tu *tu)
{
    return new_monitor(&forking_ops, f, tu);
}

static tf_factory fork_create = {"fork_create", create_forking, 0};
static tf_factory fork_hook = {"fork_hook", create_hook, 0};

static tf_factory *make(const char *name)
{
    return strcmp(name, "fork_create") == 0 ? &fork_create : &fork_hook;
}

/* libtf-forkdl.so reports its fork and its monitor's calls here (the probe
 * exports its symbols). */
__attribute__((visibility("default"))) void forkdl_forked(pid_t pid)
{
    if (pid == 0)
        child_main();
    child = pid;
}

__attribute__((visibility("default"))) void forkdl_called(void)
{
    __atomic_fetch_add(&hook_calls, 1, __ATOMIC_RELAXED);
}

/* After libtf's constructor: TF_MONITORS items naming these wait for them. */
__attribute__((constructor)) static void probe_init(void)
{
    tf_env_add_factory("fork_create", make, "a factory whose create forks");
    tf_env_add_factory("fork_hook", make, "a factory whose enter hook forks");
    tf_tu_register(&iostream_tu);
}

static tf_factory *dl_factory(void)
{
    void *h = dlopen(FORKDL_MODULE, RTLD_NOW | RTLD_LOCAL);
    tf_factory *(*get)(void) = h ? (tf_factory * (*)(void)) dlsym(h, "forkdl_factory") : NULL;
    return get ? get() : NULL;
}

static int register_by_socket(const char *factory)
{
    char request[128], reply[4096];
    snprintf(request, sizeof request, "register io=%s\n", factory);
    if (ask_own_socket(request, reply, sizeof reply) != 0)
        return fail("cannot reach the probe's own control socket");
    if (strncmp(reply, "ok", 2) != 0)
        return fail(reply);
    return 0;
}

static int ask(const char *site, const char *way)
{
    const char *factory = strcmp(site, "create") == 0 ? "fork_create"
                          : strcmp(site, "hook") == 0 ? "fork_hook" : "forkdl";
    if (strcmp(way, "env") == 0)
        return 0; /* done before main */
    if (strcmp(way, "ctl") == 0)
        return register_by_socket(factory);
    tf_factory *f = strcmp(factory, "forkdl") == 0 ? dl_factory() : make(factory);
    if (!f)
        return fail("cannot load libtf-forkdl.so");
    return tf_register("io", f) == TF_OK ? 0 : fail("tf_register failed");
}

/* The child's exit status within 20 s; -1 if it did not end. */
static int reap(void)
{
    int status;
    for (int i = 0; i < 400; i++) {
        pid_t r = waitpid(child, &status, WNOHANG);
        if (r == child)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        usleep(50000);
    }
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fail("usage: foreign_probe create|hook|dlopen env|register|ctl");
    alarm(40);
    if (ask(argv[1], argv[2]) != 0)
        return 1;
    read_int(1); /* traced by the factory's monitor; its hook forks (hook) */
    if (__atomic_load_n(&hook_calls, __ATOMIC_RELAXED) == 0)
        return fail("the factory's monitor did not see read_int");
    if (child <= 0)
        return fail("nothing forked");
    int rc = reap();
    if (rc != 0) {
        fprintf(stderr, "foreign_probe: the child exited with %d\n", rc);
        return 1;
    }
    printf("ok\n");
    return 0;
}
