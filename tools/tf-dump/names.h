/* names.h: user text in messages, and the names nearest a misspelt one
 * (names.c). */
#ifndef TF_DUMP_NAMES_H
#define TF_DUMP_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dump.h"

/* s with its control bytes and backslashes escaped (\n, \t, \\, \xNN). */
void td_put_text(FILE *out, const char *s);
/* "tf-dump: OPTION: 'VALUE' is no WHAT" on stderr, VALUE escaped. */
void td_say_bad_value(const char *option, const char *value, const char *what);
/* " (nearest: a, b, c)": the names of names[0..n) close to want by edit
 * distance (a name "<tu>.<name>" also by its part after the dot): up to 3
 * within a third of want's length (2 at least), else the closest one;
 * " (there are none)" when n is 0. */
void td_put_nearest(FILE *out, const char *want, const char *const *names, size_t n);

/* e's arguments as dprint shows them ("n=3, s=\"x\""), or its LTTng text,
 * into buf as snprintf would: the length the whole text needs. */
size_t td_args_text(char *buf, size_t len, const td_event *e);
/* "12.000001500": ns as seconds with 9 decimals ('-' first if negative). */
void td_format_time(char *buf, size_t len, int64_t ns);
/* "0.877 us", "2.200 ms", "1.500 s": a duration as uftrace shows one
 * (truncated to 3 decimals of its unit). */
void td_format_duration(char *buf, size_t len, int64_t ns);

#endif
