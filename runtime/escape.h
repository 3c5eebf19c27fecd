/*
 * escape.h: text from users and from other processes, shown without letting
 * it drive a terminal (docs/design.md .msg.escape). Control characters, C1
 * controls (U+0080..U+009F, which terminals obey like ESC) and bytes that
 * are not UTF-8 become C escapes (\n, \x1b, \xc2\x9b); other UTF-8 is kept.
 * Plain C on no libc at all, async-signal-safe: libtf, tf-ctl, tf-dump and
 * the plugins (through files.c) build it.
 */
#ifndef TF_ESCAPE_H
#define TF_ESCAPE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    TF_ESC_LINES = 1, /* keep \n and \t as they are (a listing tf-ctl prints) */
    TF_ESC_FINAL = 2, /* s ends here: a UTF-8 sequence cut short is escaped */
};

/* Room for the escaped form of one character. */
#define TF_ESC_MAX 5

/* The escaped form of the character s begins with (n bytes available) into
 * out; returns its length, and in *used the bytes of s it stands for (at
 * least 1). Returns 0 with *used 0 only when s ends inside a UTF-8 sequence
 * and TF_ESC_FINAL is not given: the caller waits for more bytes. */
size_t tf__escape_char(const char *s, size_t n, char out[TF_ESC_MAX], size_t *used, unsigned flags);

/* s escaped into out (cap bytes, NUL-terminated), cut with "..." when it
 * does not fit; returns out. */
char *tf__escape_str(char *out, size_t cap, const char *s);

#ifdef __cplusplus
}
#endif

#endif
