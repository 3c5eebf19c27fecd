/*
 * control.h: what the control module's files share (runtime/control/README.md).
 * Hidden inside libtf like runtime/internal.h, which it extends.
 */
#ifndef TF_CONTROL_INTERNAL_H
#define TF_CONTROL_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "../internal.h"

/* ---- the one syntax (spec.c) ------------------------------------------------
 * Parsers walk a cursor; the first problem stops them with a message and the
 * column (1-based, inside the item) where it was found. */
typedef struct tf_cursor {
    const char *s;      /* the item, NUL-terminated */
    size_t i;           /* where the parser is */
    char err[1024];     /* empty until a problem */
    size_t errcol;
} tf_cursor;

void tf__cur_ws(tf_cursor *c);
int tf__cur_fail(tf_cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Consumes word (followed by a blank or the end) if it is next. */
int tf__cur_keyword(tf_cursor *c, const char *word);
/* A run of non-blank characters; stops at any of stop. Returns its length. */
size_t tf__cur_token(tf_cursor *c, char *out, size_t max, const char *stop);
/* Fails with what (the words expected), adding "did you mean ...?" when
 * the next token is near one of words. */
int tf__cur_fail_word(tf_cursor *c, const char *const *words, int n, const char *what);
/* "10ms", "2s", "500us", "100ns" -> nanoseconds; fails without a unit. */
int tf__cur_duration(tf_cursor *c, uint64_t *ns);
/* Copies s into out with control characters and non-ASCII bytes as \xHH
 * (stderr lines with what a user typed never carry escapes). */
void tf__escape(char *out, size_t max, const char *s);
/* Where c's problem is, for "(at ...)": "at 'TEXT'" (escaped, cut), or "at
 * the end" when the item ended there. Returns out. */
const char *tf__cur_where(const tf_cursor *c, char *out, size_t max);

enum { TF_C_TIME = 1, TF_C_DEPTH, TF_C_ARG };
enum { TF_OP_EQ = 1, TF_OP_NE, TF_OP_LT, TF_OP_LE, TF_OP_GT, TF_OP_GE };
typedef struct tf_cond_term {
    int what;         /* TF_C_* */
    int op;           /* TF_OP_* */
    int is_str;       /* the constant is a string (== and != only) */
    int64_t num;      /* nanoseconds for time, else the integer */
    char arg[64];     /* TF_C_ARG: the parameter's name */
    char str[TF_STR_MAX + 1];
} tf_cond_term;

#define TF_COND_MAX 8
typedef struct tf_cond {
    int n;
    tf_cond_term t[TF_COND_MAX];
} tf_cond;

/* Parses "TERM [and TERM]..." (after the word "if"). */
int tf__cond_parse(tf_cursor *c, tf_cond *out);
/* Renders a condition back as the user would write it. */
void tf__cond_format(const tf_cond *cond, char *out, size_t max);
int tf__cond_has(const tf_cond *cond, int what);
/* Checks the terms other than time against a call's depth and arguments. */
int tf__cond_enter_ok(const tf_cond *cond, int depth, const tf_args *args);
int tf__cond_time_ok(const tf_cond *cond, uint64_t ns);

/* Which argument names a condition's terms met (eval.c; docs/design.md
 * .silent.args). Parameter names are in no descriptor, so a term on an
 * argument that no function of its group has is found out from the calls:
 * hooks note, for terms not met yet, the argument names they see (no
 * allocation, no lock: a few names, for the hint only), and at exit a term
 * never met in any call is said with the names that were there. */
#define TF_COND_SEEN_NAMES 16
typedef struct tf_cond_seen {
    unsigned long calls;  /* calls noted (relaxed atomic) */
    unsigned met;         /* bit k: some call had term k's argument */
    int nnames;           /* claimed entries of names (may exceed the array) */
    int ready[TF_COND_SEEN_NAMES];
    char names[TF_COND_SEEN_NAMES][64];
} tf_cond_seen;
/* Bits of cond's argument terms (the ones to meet). */
unsigned tf__cond_arg_terms(const tf_cond *cond);
/* Notes a call's arguments; async-signal-safe. Cheap once every term met. */
void tf__cond_note(const tf_cond *cond, tf_cond_seen *seen, const tf_args *args);
/* "condition 'if x == 3' passed no call: ..." into out when a term was never
 * met in calls that were seen; 0 when there is nothing to say. */
int tf__cond_unmet(const tf_cond *cond, tf_cond_seen *seen, char *out, size_t len);

/* ---- conditions (cond.c) ----------------------------------------------------
 * A factory whose monitors pass inner's events on only for calls satisfying
 * cond; see cond.c. */
tf_factory *tf__cond_factory(tf_factory *inner, const tf_cond *cond);
/* Where the condition of f (a tf__cond_factory) was written, for what is
 * said about it at exit ("TF_MONITORS: item 2"). */
void tf__cond_written(tf_factory *f, const char *where);
uint64_t tf__now_ns(void);

/* Per-thread frames of monitored calls, shared by conditions and triggers
 * (an owner tells whose frame it is). */
typedef struct tf_cframe {
    const void *owner;
    uintptr_t sp;
    int id;
    int depth;
    uint64_t t0;
    unsigned flags;
    void *data;       /* the owner's: cond.c buffers a held enter here */
} tf_cframe;
/* depth: 1 for the outermost monitored call the thread has in progress. */
tf_cframe *tf__cframe_push(const void *owner, uintptr_t sp, int id);
/* The frame of owner's call id at sp, dropping dead frames above it
 * (longjmp); NULL if there is none. The caller pops it with tf__cframe_pop. */
tf_cframe *tf__cframe_find(const void *owner, uintptr_t sp, int id);
void tf__cframe_pop(tf_cframe *f);
/* Zeroed memory of size bytes as f->data, kept until f is popped (never
 * malloc: a hook may run in a signal handler); NULL if out of memory. */
void *tf__cframe_data(tf_cframe *f, size_t size);
/* owner's innermost live frame (for an info event at sp, inside it). */
tf_cframe *tf__cframe_top(const void *owner, uintptr_t sp);

/* ---- registration as the environment does it, for the socket and triggers -- */
/* Parses "GROUP=FACTORY[+FACTORY...] [if COND]" and registers it, replacing
 * the group's factory; who names the requester for a denial. TF_OK, or an
 * error with a message in c->err. */
int tf__control_register(tf_cursor *c, const char *who);
/* The same, parsed only: the factory to register on group; NULL and c->err.
 * where: who wrote it, for what only calls can show (tf__cond_written). */
tf_factory *tf__parse_registration(tf_cursor *c, char *group, size_t max, const char *where);

/* A request from tf-ctl is for the code loaded now: a group that no loaded
 * code declares fails c at column at, with the nearest groups and what
 * stayed unchanged ("nothing registered"); 0 when it is known. */
int tf__group_unknown(tf_cursor *c, const char *group, size_t at, const char *unchanged);

/* ---- actions shared by tf-ctl and triggers ---------------------------------- */
/* Writes the timing report to path ("-": stderr), or to out when path is
 * NULL. Returns 0, or -1 with a message in err. */
int tf__action_report(const char *path, FILE *out, char *err, size_t errlen);
int tf__action_snapshot(const char *dir, char *err, size_t errlen);

/* ---- triggers (trigger.c) --------------------------------------------------- */
/* Parses and adds one trigger; who as above. A trigger from the socket may
 * write only where tf__control_path_allowed says. item: its place in
 * TF_TRIGGERS (checked at exit against the code loaded by then), or 0 for
 * tf-ctl (checked now against the code loaded). Returns its number (> 0),
 * or -1 with c->err. */
int tf__trigger_add(tf_cursor *c, const char *who, int from_socket, int item);
int tf__trigger_remove(int number);
void tf__trigger_list(FILE *out);
void tf__trigger_fork(int phase);
int tf__trigger_count(void);
/* TF_TRIGGERS, items separated by ','. */
int tf__trigger_env(const char *value, FILE *err);

/* ---- where a request may write (paths.c) ----------------------------------- */
/* 0 if a request on the socket may have path written, else -1 with why in c
 * (docs/design.md .ctl.paths). */
int tf__control_path_allowed(tf_cursor *c, const char *path);

/* ---- the server (server.c, commands.c) ------------------------------------- */
/* This process's socket, or NULL when it serves none. */
const char *tf__control_path(void);
/* Runs one request line; writes the answer to out; 0 ok, -1 error. */
int tf__control_command(const char *line, FILE *out, unsigned peer_uid);

#endif
