/*
 * sample.c: the process's resource counters, sampled into the recording
 * (JVMMon's periodic state: a leak shows as a line that rises next to the
 * calls that made it). Every TF_SAMPLE (1 s while a watchdog runs, unless
 * set) the watchdog thread reads /proc/self and, if the process records,
 * writes one tf:counters event into its own ring (runtime/record/record.c):
 *   rss              resident memory, bytes (statm's resident pages)
 *   threads          status "Threads:"
 *   fds              open file descriptors (entries of /proc/self/fd, less
 *                    the one reading it)
 *   ctx_voluntary    status "voluntary_ctxt_switches:", the process's threads
 *   ctx_involuntary  status "nonvoluntary_ctxt_switches:"
 * Not recording: nothing is read. At a normal exit the thread takes one
 * last sample before the recorder's dump (scan.c's at_exit, .wd.sample).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watchdog.h"
#include "../record/record.h"

static int read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = 0;
    return n > 0 ? 0 : -1;
}

static uint64_t status_field(const char *status, const char *key)
{
    const char *p = strstr(status, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static uint64_t open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    uint64_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n ? n - 1 : 0; /* the directory being read is one of them */
}

void wd_sample(void)
{
    if (!rt_pool_now()) /* not recording */
        return;
    char statm[256], status[8192];
    uint64_t v[RC_NCOUNTERS] = {0};
    if (read_file("/proc/self/statm", statm, sizeof statm) == 0) {
        char *resident = strchr(statm, ' ');
        v[0] = resident ? strtoull(resident + 1, NULL, 10) * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
    }
    if (read_file("/proc/self/status", status, sizeof status) == 0) {
        v[1] = status_field(status, "\nThreads:");
        v[3] = status_field(status, "\nvoluntary_ctxt_switches:");
        v[4] = status_field(status, "\nnonvoluntary_ctxt_switches:");
    }
    v[2] = open_fds();
    rt_record_counters(v);
}
