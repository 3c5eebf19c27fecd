/*
 * config.c: the spelling of TF_BUDGET (a line of runtime/config.c's table,
 * which reports a bad value with this parser's reason) and of tf-ctl PID
 * budget.
 *
 *   PERCENT   a number and '%': 5%, 0.5%, 12.25%; from 0.1% to 1000%
 *   off       (tf-ctl only) stop the budget; every function it switched
 *             off follows the selection again
 *
 * Read without strtod: a locale with a decimal comma must not change what
 * "0.5%" means.
 */
#include <ctype.h>
#include <string.h>

#include "budget.h"
#include "../config.h"

#define MIN_PCT 0.1
#define MAX_PCT 1000.0

const char *bg_parse(const char *text, double *out, char *why, size_t len)
{
    if (strcmp(text, "off") == 0) {
        *out = 0;
        return NULL;
    }
    double v = 0, scale = 1;
    size_t i = 0, ints = 0, decimals = 0;
    for (; isdigit((unsigned char)text[i]); i++, ints++)
        v = v < 1e6 ? v * 10 + (text[i] - '0') : v; /* past the range anyway */
    int dot = ints && text[i] == '.';
    if (dot)
        for (i++; isdigit((unsigned char)text[i]); i++, decimals++)
            v += (text[i] - '0') * (scale /= 10);
    if (!ints || (dot && !decimals) || text[i] != '%' || text[i + 1]) {
        snprintf(why, len, "is not a percentage: a number and '%%', e.g. 5%%");
        return why;
    }
    if (v < MIN_PCT || v > MAX_PCT) {
        snprintf(why, len, "is not a budget from 0.1%% to 1000%%");
        return why;
    }
    *out = v / 100;
    return NULL;
}

void bg_format(double budget, char *out, size_t len)
{
    snprintf(out, len, "%.4g%%", budget * 100);
}

/* The table's parser (runtime/config.c). */
const char *tf__parse_budget(const char *value, const char *arg, char *why, size_t len)
{
    double b;
    if (strcmp(value, "off") == 0) {
        snprintf(why, len, "is not a percentage ('off' is for tf-ctl; leave TF_BUDGET unset)");
        return why;
    }
    return bg_parse(value, &b, why, len);
}
