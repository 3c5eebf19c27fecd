/*
 * commands.c: tf-ctl PID budget [PERCENT|off] (runtime/control/commands.c
 * reads the request line): without an argument, the budget and what it
 * switched off; with one, the budget is started, changed or stopped, and
 * the same is shown.
 */
#include "budget.h"

/* Putting the meter around every holder is a registration: refused once
 * registrations are sealed, as tf-ctl register and watchdog are. */
int tf__budget_control(const char *text, const char *who, FILE *out, char *err, size_t len)
{
    double b;
    char why[256];
    if (text && bg_parse(text, &b, why, sizeof why)) {
        snprintf(err, len, "'%s' %s", text, why);
        return -1;
    }
    if (text && b > 0 && tf__external_permitted(who, "budget") != TF_OK) {
        snprintf(err, len, "permission denied: registrations are sealed (tf_seal)");
        return -1;
    }
    if (text && bg_set(b, why, sizeof why) != 0) {
        snprintf(err, len, "%s", why);
        return -1;
    }
    bg_show(out);
    return 0;
}
