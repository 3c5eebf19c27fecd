/*
 * escape.c: user text in messages without control bytes (config.h,
 * tf__config_escaped). Its own file because tools that link nothing else of
 * libtf (tf-watch, with files.c) need it too.
 */
#include <stdint.h>
#include <string.h>

#include "config.h"

/* Length of the well-formed UTF-8 sequence at s that is not a C1 control
 * (U+0080..U+009F, which terminals obey like ESC sequences); 0 if none. */
static size_t utf8_printable(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf5)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    uint32_t cp = n == 2 ? (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f)
                : n == 3 ? (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f)
                : n == 4 ? (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
                               (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f)
                         : 0;
    int overlong = (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff));
    int bad = cp < 0xa0 || (cp >= 0xd800 && cp <= 0xdfff) || overlong;
    return n && !bad ? n : 0;
}

/* Control characters, C1 controls and bytes that are not UTF-8 as escapes,
 * so no value can drive the terminal; other text as it is. */
void tf__config_escaped(FILE *out, const char *s)
{
    while (*s) {
        unsigned char c = (unsigned char)*s;
        static const char plain[] = "\n\t\r", named[] = "ntr";
        const char *e = strchr(plain, c);
        size_t n = c >= 0x80 ? utf8_printable((const unsigned char *)s) : 1;
        if (e)
            fprintf(out, "\\%c", named[e - plain]);
        else if (c < 0x20 || c == 0x7f || !n)
            fprintf(out, "\\x%02x", c);
        else
            fwrite(s, 1, n, out);
        s += n ? n : 1;
    }
}
