/*
 * escape.c: the one escaper of text TF shows (escape.h). Used by every
 * message that quotes a value (config.c's tf__config_escaped, files.c),
 * and by tf-ctl for what a server answers.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "config.h"

/* Length of the well-formed UTF-8 sequence at s that is not a C1 control
 * (U+0080..U+009F); 0 if there is none. n: bytes available (at least 1). */
static size_t utf8_printable(const unsigned char *s, size_t n)
{
    size_t k = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
             : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    if (!k || k > n)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    uint32_t cp = k == 2 ? (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f)
                : k == 3 ? (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f)
                         : (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
                               (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
    int overlong = (k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff));
    int bad = cp < 0xa0 || (cp >= 0xd800 && cp <= 0xdfff) || overlong;
    return bad ? 0 : k;
}

/* s ends inside what may still become a well-formed sequence. */
static int cut_short(const unsigned char *s, size_t n)
{
    size_t k = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
             : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    if (!k || n >= k)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return 1;
}

size_t tf__escape_char(const char *s, size_t n, char out[TF_ESC_MAX], size_t *used, unsigned flags)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    unsigned char c = u[0];
    *used = 1;
    if ((flags & TF_ESC_LINES) && (c == '\n' || c == '\t')) {
        out[0] = (char)c;
        return 1;
    }
    if (c == '\n' || c == '\t' || c == '\r') {
        out[0] = '\\';
        out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
        return 2;
    }
    if (c >= 0x20 && c < 0x7f) {
        out[0] = (char)c;
        return 1;
    }
    size_t k = c >= 0x80 ? utf8_printable(u, n) : 0;
    if (k) {
        for (size_t i = 0; i < k; i++)
            out[i] = s[i];
        *used = k;
        return k;
    }
    if (c >= 0x80 && !(flags & TF_ESC_FINAL) && cut_short(u, n)) {
        *used = 0;
        return 0;
    }
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    return 4;
}

char *tf__escape_str(char *out, size_t cap, const char *s)
{
    size_t at = 0, cut = 0, left = 0; /* cut: where "..." would still fit */
    while (s[left])
        left++;
    if (!cap)
        return out;
    while (left) {
        char one[TF_ESC_MAX];
        size_t used, k = tf__escape_char(s, left, one, &used, TF_ESC_FINAL);
        if (at + k + 1 > cap) {
            at = cap >= 4 ? cut : 0;
            for (int i = 0; i < 3 && at + 1 < cap; i++)
                out[at++] = '.';
            break;
        }
        for (size_t i = 0; i < k; i++)
            out[at++] = one[i];
        if (at + 4 <= cap)
            cut = at;
        s += used;
        left -= used;
    }
    out[at] = 0;
    return out;
}

/* The escaper every message shares, onto a stream (config.h). Here, not in
 * config.c: tools that link nothing else of libtf (tf-watch) need it. The
 * text goes out in pieces of up to 256 bytes, not a character at a time:
 * stderr is unbuffered, and a write per character made the budget's line
 * at exit 15,000 system calls on speedtest1. */
void tf__config_escaped(FILE *out, const char *s)
{
    char piece[256];
    size_t at = 0;
    for (size_t left = strlen(s); left;) {
        if (at + TF_ESC_MAX > sizeof piece) {
            fwrite(piece, 1, at, out);
            at = 0;
        }
        size_t used;
        at += tf__escape_char(s, left, piece + at, &used, TF_ESC_FINAL);
        s += used;
        left -= used;
    }
    if (at)
        fwrite(piece, 1, at, out);
}
