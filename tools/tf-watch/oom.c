/*
 * oom.c: whether a SIGKILL came from the kernel's OOM killer. The kernel
 * counts its kills per memory cgroup (v2: memory.events "oom_kill"; v1:
 * memory.oom_control "oom_kill") and in the whole kernel (/proc/vmstat
 * "oom_kill"). A count that rose while the process ran there, and a death
 * by SIGKILL, is the OOM killer's work. The process's cgroup is read while
 * it lives (a dead process shows the root cgroup), at start and each tick;
 * the kernel-wide count covers a move into a cgroup between two ticks.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "watch.h"

/* Every memory cgroup the process was seen in, with its count then. */
static struct seen {
    char *file;
    long long first;
} *seen;
static int nseen, cap;
static long long kernel_first = -1;

/* The value after "key " in a "key value" file; -1 if absent. */
static long long counter(const char *file, const char *key)
{
    FILE *f = fopen(file, "re");
    if (!f)
        return -1;
    char line[256];
    long long v = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ' ')
            v = atoll(line + n + 1);
    fclose(f);
    return v;
}

/* Mount point and root of the hierarchy: cgroup2, or the v1 one with memory. */
static int mount_of(int v2, char *point, size_t plen, char *root, size_t rlen)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -1;
    char line[4096];
    int found = -1;
    while (found && fgets(line, sizeof line, f)) {
        char r[PATH_MAX], p[PATH_MAX], type[64], opts[1024];
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", r, p) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2)
            continue;
        int want = v2 ? strcmp(type, "cgroup2") == 0
                      : strcmp(type, "cgroup") == 0 && (strstr(opts, ",memory") || strncmp(opts, "memory", 6) == 0);
        if (want) {
            snprintf(point, plen, "%s", p);
            snprintf(root, rlen, "%s", r);
            found = 0;
        }
    }
    fclose(f);
    return found;
}

static void note(const char *file)
{
    for (int i = 0; i < nseen; i++)
        if (strcmp(seen[i].file, file) == 0)
            return;
    long long v = counter(file, "oom_kill");
    if (v < 0)
        return;
    if (nseen == cap) {
        struct seen *bigger = realloc(seen, (size_t)(cap = cap ? 2 * cap : 4) * sizeof *seen);
        if (!bigger)
            return;
        seen = bigger;
    }
    if ((seen[nseen].file = strdup(file)))
        seen[nseen++].first = v;
}

/* "N:controllers:/path" lines of /proc/PID/cgroup to counter files. */
static void cgroups_of(pid_t pid)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        line[strcspn(line, "\n")] = 0;
        int v2 = c2 == c1 + 1;
        int memory = v2 || strstr(c1, ":memory:") || strstr(c1, ",memory:") || strstr(c1, ":memory,");
        char point[PATH_MAX], root[PATH_MAX], file[2 * PATH_MAX + 32];
        if (!memory || mount_of(v2, point, sizeof point, root, sizeof root) != 0)
            continue;
        const char *in = c2 + 1;
        if (strcmp(root, "/") != 0 && strncmp(in, root, strlen(root)) == 0)
            in += strlen(root);
        snprintf(file, sizeof file, "%s%s/%s", point, strcmp(in, "/") == 0 ? "" : in,
                 v2 ? "memory.events" : "memory.oom_control");
        note(file);
    }
    fclose(f);
}

void oom_watch(pid_t pid)
{
    if (kernel_first < 0)
        kernel_first = counter("/proc/vmstat", "oom_kill");
    cgroups_of(pid);
}

int oom_killed(char *why, size_t len)
{
    for (int i = 0; i < nseen; i++) {
        long long v = counter(seen[i].file, "oom_kill");
        if (v > seen[i].first) {
            snprintf(why, len, "oom_kill %lld -> %lld in %s", seen[i].first, v, seen[i].file);
            return 1;
        }
    }
    long long k = counter("/proc/vmstat", "oom_kill");
    if (kernel_first >= 0 && k > kernel_first) {
        snprintf(why, len, "the kernel's oom_kill count went from %lld to %lld while it ran", kernel_first, k);
        return 1;
    }
    return 0;
}
