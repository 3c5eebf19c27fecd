/* dl_probe: a program linked without libtf (as --as-needed leaves one whose
 * own code monitors nothing) that dlopens and dlcloses an instrumented
 * library (DL_MODULE) 50 times, calling into it each time. Prints how many
 * file descriptors it had before and after the cycles. With an argument N,
 * it first appends N items "gI=noop" to TF_MONITORS: more than exec can
 * pass (128 KiB a variable), but libtf reads it only when loaded. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static int add_groups(int n)
{
    const char *given = getenv("TF_MONITORS");
    size_t len = (given ? strlen(given) : 0) + (size_t)n * 16 + 1;
    char *monitors = malloc(len), *p = monitors;
    if (!monitors)
        return 0;
    p += sprintf(p, "%s", given ? given : "");
    for (int i = 0; i < n; i++)
        p += sprintf(p, ",g%d=noop", i);
    setenv("TF_MONITORS", monitors, 1);
    free(monitors);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !add_groups(atoi(argv[1])))
        return 1;
    int before = open_fds();
    for (int i = 0; i < 50; i++) {
        void *h = dlopen(DL_MODULE, RTLD_NOW | RTLD_LOCAL);
        int (*call)(int) = h ? (int (*)(int))dlsym(h, "module_call") : NULL;
        if (!call) {
            printf("dlopen: %s\n", dlerror());
            return 1;
        }
        call(i);
        dlclose(h);
    }
    printf("fds %d %d\n", before, open_fds());
    return 0;
}
