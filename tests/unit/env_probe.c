/* env_probe: what TF_MONITORS set up, as a program sees it. Registers the fake
 * iostream TU (as generated code would), prints for each group the factory
 * and the parts of its monitor, then makes calls so dprint has output.
 * PROBE_END says how it ends: "abort", "segv" (a store to address 16),
 * "_exit", "fork" (a child makes a call and exits, then the parent makes
 * one), "forkmany" (parent and child make 20000 calls each at the same
 * time), or by returning from main. PROBE_FACTORY=NAME publishes a factory
 * NAME (after libtf's start-up, as a library the program links would). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tf/monitors.h>

#include "fake_tu.h"

static void show(const char *group, tf_monitor *m)
{
    tf_factory *f = tf_registered_factory(group);
    printf("%s=%s", group, f ? f->name : "-");
    tf_monitor *parts[8];
    size_t n = tf_monitor_parts(m, parts, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        printf("%s%s", i ? "+" : "[", parts[i]->factory->name);
    printf("%s\n", n ? "]" : "");
}

static const tf_monitor_ops late_ops = {.flags = TF_OPS_NO_VALUES};
static tf_monitor *late_create(tf_factory *f, const tf_tu *tu)
{
    tf_monitor *m = calloc(1, sizeof *m);
    if (m)
        m->ops = &late_ops;
    return m;
}
static tf_factory late = {"late", late_create, 0};
static tf_factory *make_late(const char *name)
{
    return &late;
}

int main(void)
{
    const char *factory = getenv("PROBE_FACTORY");
    if (factory && tf_env_add_factory(factory, make_late, "published by the program") != TF_OK)
        return 3;
    tf_tu_register(&iostream_tu);
    show("io", NULL);
    show("io_read", hook_load(&holder_io_read));
    show("io_write", hook_load(&holder_io_write));
    read_int(2);
    write_long(7);
    const char *end = getenv("PROBE_END");
    if (end && strcmp(end, "abort") == 0)
        abort();
    if (end && strcmp(end, "segv") == 0)
        *(volatile int *)16 = 1;
    if (end && strcmp(end, "_exit") == 0)
        _exit(0);
    if (end && strcmp(end, "forkmany") == 0) { /* both trace at once, to one file */
        pid_t child = fork();
        for (int i = 0; i < 20000; i++)
            read_int(i);
        if (child == 0)
            exit(0);
        waitpid(child, NULL, 0);
    }
    if (end && strcmp(end, "fork") == 0) {
        pid_t child = fork();
        if (child == 0) {
            read_int(5);
            exit(0);
        }
        waitpid(child, NULL, 0);
        read_int(6);
    }
    return 0;
}
