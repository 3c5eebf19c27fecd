/* json.c: escaping (json.h). */
#include <stdlib.h>

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

void td_json_value(FILE *out, const tf_value *v)
{
    char small[256];
    size_t n = tf_value_format(small, sizeof small, v);
    char *big = n < sizeof small ? NULL : malloc(n + 1);
    if (big)
        tf_value_format(big, n + 1, v);
    td_json_string(out, big ? big : small);
    free(big);
}
