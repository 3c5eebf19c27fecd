/*
 * hang.c: the heartbeat (JVMMon's communication layer). Each beat asks the
 * process's control socket for `heartbeat`: the answer says whether a
 * watchdog runs and how many monitored calls were entered and left so far.
 * A hang is an answer missing for --hang DURATION, or the same count for
 * DURATION while calls are open (the process answers, its calls do not
 * move). A process without a socket is not judged: nothing can be asked.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client.h"
#include "watch.h"

static void parse(heartbeat *h, const char *answer, uint64_t now)
{
    const char *calls = strstr(answer, "\ncalls\t"), *open = strstr(answer, "\nopen\t");
    h->ever = 1;
    h->answered = now;
    h->watched = calls && open;
    unsigned long long c = calls ? strtoull(calls + 7, NULL, 10) : 0;
    unsigned long long o = open ? strtoull(open + 6, NULL, 10) : 0;
    if (!h->watched || c != h->calls || o == 0)
        h->moved = now;
    h->calls = c;
    h->open = o;
}

static int serves(const char *pid)
{
    char dir[256], path[512];
    struct stat st;
    tf_ctl_socket_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s.sock", dir, pid);
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

int hang_check(watch *w, heartbeat *h, uint64_t now, char *what, size_t len)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)w->pid);
    uint64_t wait = w->hang_ns / 2 < 1000000000u ? w->hang_ns / 2 : 1000000000u;
    char *answer = tf_ctl_ask(pid, "heartbeat\n", (int)(wait / 1000000u), h->why, sizeof h->why);
    if (answer && strncmp(answer, "ok\n", 3) == 0)
        parse(h, answer, now);
    free(answer);
    h->ever |= serves(pid); /* a socket that does not answer: a stopped or stuck process */
    if (!h->ever)
        return 0;
    if (h->hung) {
        if (h->answered == now && h->moved == now) {
            h->hung = h->silent = 0;
            return 2;
        }
        return 0;
    }
    char took[32];
    if (now - h->answered >= w->hang_ns) {
        format_duration(took, sizeof took, now - h->answered);
        snprintf(what, len, "its control socket did not answer for %s", took);
        h->silent = 1;
    } else if (h->watched && h->open && now - h->moved >= w->hang_ns) {
        format_duration(took, sizeof took, now - h->moved);
        snprintf(what, len, "no monitored call entered or left for %s while %llu call%s open",
                 took, h->open, h->open == 1 ? " is" : "s are");
    } else {
        return 0;
    }
    h->hung = 1;
    return 1;
}

/* 1 and the directory in dir if it wrote one; where: what to say. */
int hang_snapshot(watch *w, const heartbeat *h, char *dir, size_t dlen, char *where, size_t len)
{
    static int n;
    char pid[32], line[sizeof w->record_dir + 64], why[256];
    snprintf(pid, sizeof pid, "%d", (int)w->pid);
    if (h->silent) {
        snprintf(where, len, "no snapshot: it does not answer");
        return 0;
    }
    snprintf(dir, dlen, "%s.hang-%d", w->record_dir, ++n);
    snprintf(line, sizeof line, "snapshot %s\n", dir);
    char *answer = tf_ctl_ask(pid, line, 5000, why, sizeof why);
    int ok = answer && strncmp(answer, "ok\n", 3) == 0;
    if (ok)
        snprintf(where, len, "snapshot in %s", dir);
    else if (answer && strstr(answer, "nothing recorded"))
        snprintf(where, len, "no snapshot: it records nothing");
    else if (answer && strncmp(answer, "error: ", 7) == 0)
        snprintf(where, len, "no snapshot: %s", answer + 7);
    else
        snprintf(where, len, "no snapshot: %s", answer ? answer : why);
    where[strcspn(where, "\n")] = 0;
    free(answer);
    return ok;
}
