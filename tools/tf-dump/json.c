/* json.c: escaping (json.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tf/monitors.h>

#include "json.h"

void td_json_string(FILE *out, const char *s)
{
    putc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else
            putc(*p, out);
    }
    putc('"', out);
}

void td_xml_text(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default:
            if (*p >= 0x20 || *p == '\t' || *p == '\n') /* XML 1.0 forbids the rest */
                putc(*p, out);
        }
    }
}

/* s is a JSON number as written (-?digits[.digits][e[+-]digits]), and not
 * one a double would round: at most 15 significant digits, or an integer
 * up to 2^53. Perfetto reads every JSON number as a double. */
int td_json_number(const char *s)
{
    const char *p = s + (*s == '-');
    size_t digits = strspn(p, "0123456789"), sig = 0;
    if (!digits || (p[0] == '0' && digits > 1))
        return 0;
    sig = digits;
    p += digits;
    int integer = !*p;
    if (*p == '.') {
        size_t frac = strspn(++p, "0123456789");
        if (!frac)
            return 0;
        sig += frac;
        p += frac;
    }
    if (*p == 'e' || *p == 'E') {
        p += p[1] == '+' || p[1] == '-';
        size_t exp = strspn(++p, "0123456789");
        if (!exp)
            return 0;
        p += exp;
    }
    if (*p)
        return 0;
    if (integer && sig > 15)
        return fabs(strtod(s, NULL)) <= 9007199254740992.0; /* 2^53 */
    return sig <= 15;
}

/* Integers and finite floating values as JSON numbers, bool as true or
 * false: Perfetto then shows, sorts and sums them as numbers. Anything else
 * (pointers, strings, enumerators, structs) is dprint's text as a string. */
void td_json_value(FILE *out, const tf_value *v)
{
    char small[256];
    size_t n = tf_value_format(small, sizeof small, v);
    char *big = n < sizeof small ? NULL : malloc(n + 1);
    if (big)
        tf_value_format(big, n + 1, v);
    const char *text = big ? big : small;
    int numeric = v->kind == TF_K_INT || v->kind == TF_K_UINT || v->kind == TF_K_FLOAT ||
                  v->kind == TF_K_INT128 || v->kind == TF_K_UINT128;
    if ((numeric && td_json_number(text)) || v->kind == TF_K_BOOL)
        fputs(text, out);
    else
        td_json_string(out, text);
    free(big);
}

void td_json_text_value(FILE *out, const char *text)
{
    if (text && td_json_number(text))
        fputs(text, out);
    else
        td_json_string(out, text);
}
