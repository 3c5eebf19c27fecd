/* libtf-forkdl.so: a factory library whose constructor forks, as
 * liblttng-ust's does on a machine without its files in /dev/shm. Loaded
 * by libtf for TF_MONITORS=io=forkdl or "tf-ctl register io=forkdl", or by
 * the program itself; foreign_probe (built with its symbols exported) is
 * told of the fork and of each call the factory's monitor sees. */
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include <tf/monitors.h>

void forkdl_forked(pid_t pid);
void forkdl_called(void);

static void enter(tf_monitor *self, int id, const tf_args *args)
{
    forkdl_called();
}

static const tf_monitor_ops ops = {.enter = enter, .flags = TF_OPS_NO_VALUES};

static tf_monitor *create(tf_factory *f, const tf_tu *tu)
{
    tf_monitor *m = calloc(1, sizeof *m);
    if (m)
        *m = (tf_monitor){&ops, tu, f};
    return m;
}

static tf_factory factory = {"forkdl", create, 0};

__attribute__((visibility("default"))) tf_factory *forkdl_factory(void)
{
    return &factory;
}

static tf_factory *make(const char *name)
{
    return &factory;
}

__attribute__((constructor)) static void load(void)
{
    forkdl_forked(fork());
    tf_env_add_factory("forkdl", make, "a factory whose library forks as it loads");
}
