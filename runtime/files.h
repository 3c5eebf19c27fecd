/*
 * files.h: the one creator of every file and directory TF writes
 * (docs/design.md .files; the rules are in runtime/README.md, "Files TF
 * writes"). libtf's reports, dprint output, timing trace and recordings,
 * tf-dump's outputs and the plugins' manifests all come from here.
 *
 * Plain C on libc alone, so tf-dump and plugin-core build this file too.
 * Everything but tf__create_file and tf__close_file is async-signal-safe
 * (a fatal signal writes the flight recorder through it) and keeps errno.
 *
 * Each function that can refuse writes why into a buffer of TF_FILES_WHY
 * bytes: raw text that may quote parts of the path, so whoever prints it
 * escapes it (tf__file_say does).
 */
#ifndef TF_FILES_H
#define TF_FILES_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a file holds: TF replaces an existing file only if its first bytes
 * show that TF wrote it, as this kind (docs/design.md .files.replace). */
typedef enum tf_file_kind {
    TF_FILE_DPRINT,       /* dprint lines, "(<thread>): ..." (TF_OUTPUT) */
    TF_FILE_REPORT,       /* a timing report: text, JSON or CSV */
    TF_FILE_CHROME,       /* libtf's Chrome trace JSON (TF_TIMING_TRACE) */
    TF_FILE_CTF_METADATA, /* a recording's metadata (tracer_name "tf") */
    TF_FILE_CTF_STREAM,   /* a recording's stream file (CTF packet magic) */
    TF_FILE_CTF_RINGS,    /* a recording's ring file (runtime/record/layout.h's magic) */
    TF_FILE_DUMP,         /* anything tf-dump writes, in any of its formats */
    TF_FILE_MANIFEST,     /* a plugin's or tf-scan's manifest */
    TF_FILE_WATCH_LOG,    /* tf-watch --log: one JSON verdict a line */
} tf_file_kind;

enum {
    TF_FILES_OVERWRITE = 1, /* replace a file of ours that TF did not write */
    TF_FILES_APPEND = 2,    /* O_APPEND: a parent and its forked child share it */
    TF_FILES_SHARED = 4,    /* tf__create_file: a forked child writes it too */
    TF_FILES_EXISTING = 8,  /* tf__file_dir: only a directory that exists */
    TF_FILES_KEEP = 16,     /* an existing file TF wrote is kept and appended to (a log) */
};

#define TF_FILES_WHY 384

/* Said after "is not ... TF wrote": how to replace such a file anyway in
 * this program (libtf: "set TF_OVERWRITE=1"; tf-dump: "use --force"). */
extern const char *tf__files_overwrite_hint;

/* Opens path for writing, mode 0600, read-write:
 * - no symbolic link is followed, in any component;
 * - every directory on the way (and the working directory for a relative
 *   path) is owned by this process's user or root, and is writable by
 *   others only if it is sticky (/tmp), by its group only if it is sticky or
 *   the process is in that group;
 * - a new file is created with O_EXCL; an existing one is replaced
 *   (truncated, made 0600) only if it is a regular file of this user with
 *   one name that neither group nor others may write, and it is empty or
 *   holds a file of kind (or flags has TF_FILES_OVERWRITE);
 * - character devices (/dev/null, a terminal) are written as they are, and
 *   "/dev/stdout" and "/dev/stderr" mean the process's own streams;
 * - nothing blocks: a FIFO or socket is refused.
 * Returns the descriptor (close-on-exec), or -1 with why. */
int tf__file_open(const char *path, tf_file_kind kind, unsigned flags, char *why);

/* A directory for TF's files (a recording, a snapshot): path checked as
 * above; made 0700 if missing, else used if it is this user's, has no group
 * or other access, and is empty or holds a recording TF wrote (a metadata
 * file of TF_FILE_CTF_METADATA), or flags has TF_FILES_OVERWRITE. Returns an
 * O_DIRECTORY descriptor for tf__file_at, or -1 with why. */
int tf__file_dir(const char *path, unsigned flags, char *why);

/* name (one component) inside dir, from tf__file_dir: created, or replacing
 * a file there as tf__file_open replaces one. -1 with why. */
int tf__file_at(int dir, const char *name, tf_file_kind kind, unsigned flags, char *why);

/* Removes the files of dir whose names begin with prefix and that TF wrote
 * as kind (an earlier recording's streams): never a file TF did not write. */
void tf__file_clean(int dir, const char *prefix, tf_file_kind kind);

/* "<who>: cannot write '<path>': <why>" on stderr in one write, escaped. */
void tf__file_say(const char *who, const char *path, const char *why);

/* libtf's files written with stdio: tf__file_open under a lock, also
 * refusing a file another variable writes now ("it is the file TF_OUTPUT
 * already writes to"); var (a literal) names the variable, "TF_REPORT".
 * NULL on failure, with the reason in why, or said on stderr naming var
 * and path when why is NULL. Not async-signal-safe. */
FILE *tf__create_file(const char *var, const char *path, tf_file_kind kind, unsigned flags, char *why);
/* fclose, and the file is no longer in use (a report written to the same
 * path again is not refused). */
int tf__close_file(FILE *f);
/* fork (phase as registry/export.h's TF_FORK_*): the in-use list's lock,
 * a leaf taken last (runtime/init.c); a child closes the files its parent's
 * threads had open for a report. */
void tf__files_fork(int phase);

#ifdef __cplusplus
}
#endif

#endif
