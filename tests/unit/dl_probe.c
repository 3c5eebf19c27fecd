/* dl_probe: a program linked without libtf (as --as-needed leaves one whose
 * own code monitors nothing) that dlopens and dlcloses an instrumented
 * library (DL_MODULE) 50 times, calling into it each time. Prints how many
 * file descriptors it had before and after the cycles. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>

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

int main(void)
{
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
