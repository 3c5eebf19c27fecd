/* text.c: a text into lines, a line into words (groups parse and tokenize). */
#include <ctype.h>
#include <string.h>

#include "wc.h"

/* One line into lower-case words; returns the number of words. */
TF_MONITOR(tokenize) static size_t tokenize_line(const char *line, size_t len, struct index *ix)
{
    char word[64];
    size_t n = 0, words = 0;
    for (size_t i = 0; i <= len; i++) {
        int c = i < len ? (unsigned char)line[i] : ' ';
        if (isalnum(c) || (c == '\'' && n > 0)) {
            if (n < sizeof word - 1)
                word[n++] = (char)tolower(c);
        } else if (n > 0) {
            index_add(ix, word, n);
            words++;
            n = 0;
        }
    }
    return words;
}

TF_MONITOR(parse) size_t parse_text(const char *text, size_t len, struct index *ix)
{
    size_t words = 0;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        words += tokenize_line(p, n, ix);
        p += n + 1;
    }
    return words;
}
