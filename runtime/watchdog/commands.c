/*
 * commands.c: what the control socket's watchdog commands do
 * (runtime/control/commands.c reads the request line):
 *   stacks          every thread's open monitored calls now, with the locks
 *                   it waits for and holds
 *   watchdog SPEC   start, change (DURATION[,ACTION...]) or stop (off)
 *   heartbeat       the watchdog, and the calls entered and left so far: a
 *                   process that answers with the same count while calls
 *                   are open made no progress (tf-watch --hang)
 */
#include <string.h>

#include "watchdog.h"

int tf__watchdog_stacks(FILE *out, char *err, size_t len)
{
    if (!wd_running(NULL)) {
        snprintf(err, len, "no watchdog runs, and open calls are kept only while one does: "
                           "start one with 'watchdog DURATION' (or TF_WATCHDOG)");
        return -1;
    }
    wd_stacks(out);
    return 0;
}

void tf__watchdog_heartbeat(FILE *out)
{
    wd_heartbeat(out);
}

/* Attaching the watchdog's monitor to every group is a registration: refused
 * once registrations are sealed, as tf-ctl register is. */
int tf__watchdog_control(const char *text, const char *who, FILE *out, char *err, size_t len)
{
    wd_spec spec;
    char why[256];
    if (wd_parse(text, &spec, why, sizeof why)) {
        snprintf(err, len, "'%s' %s", text, why);
        return -1;
    }
    if (spec.ns && tf__external_permitted(who, "watchdog") != TF_OK) {
        snprintf(err, len, "permission denied: registrations are sealed (tf_seal)");
        return -1;
    }
    if (wd_set(&spec, why, sizeof why) != 0) {
        snprintf(err, len, "%s", why);
        return -1;
    }
    wd_heartbeat(out);
    return 0;
}
