/*
 * config.h: the TF_* environment variables (docs/design.md .use.env), and the
 * one other that TF reads (XDG_RUNTIME_DIR, for the control socket). Every
 * one is a line of the table in config.c (name, parser, default, help), read once
 * at start-up with secure_getenv (nothing in set-uid/set-gid processes); a
 * bad value is reported there, once, naming the variable and the value.
 */
#ifndef TF_CONFIG_H
#define TF_CONFIG_H

#include <stddef.h>
#include <stdio.h>

/* The value of a table variable: as set if it parsed, else its default
 * (NULL if none). An empty value counts as unset. */
const char *tf__config_get(const char *name);

/* Reads and checks every variable, once (libtf's constructor; later calls
 * and tf__config_get wait for the first). */
void tf__config_init(void);
/* Lists the variables, their defaults and help on out (TF_HELP=1). */
void tf__config_help(FILE *out);

/* Writes s to out with control characters, C1 controls and bytes that are
 * not UTF-8 as C escapes (\n, \x1b, \xc2\x9b), so a hostile value cannot
 * forge lines or drive the terminal. */
void tf__config_escaped(FILE *out, const char *s);

/* A table entry's parser: NULL if value is good, else why not (written to
 * why, which holds len bytes). arg is the entry's argument. */
typedef const char *tf__config_parser(const char *value, const char *arg, char *why, size_t len);
tf__config_parser tf__parse_any;    /* any text */
tf__config_parser tf__parse_one_of; /* arg lists the choices: "line|full" */
tf__config_parser tf__parse_size;   /* bytes, suffixes K, M, G; arg: "MIN|MAX" in that form */
tf__config_parser tf__parse_ms;     /* milliseconds, digits only; arg: "MIN|MAX" */
tf__config_parser tf__parse_watchdog; /* TF_WATCHDOG's DURATION[,ACTION...] (runtime/watchdog/config.c) */
tf__config_parser tf__parse_sample;   /* TF_SAMPLE's DURATION (runtime/watchdog/config.c) */
tf__config_parser tf__parse_budget;   /* TF_BUDGET's PERCENT (runtime/budget/config.c) */

/* A size as tf__parse_size reads it ("64K", "4096"), 0 if malformed. */
unsigned long long tf__config_size(const char *s);
/* Milliseconds as tf__parse_ms reads them, ULLONG_MAX if malformed. */
unsigned long long tf__config_ms(const char *s);

#endif
