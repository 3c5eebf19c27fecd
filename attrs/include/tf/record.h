/*
 * record.h: the flight recorder (docs/design.md .rec; README "Recording").
 * Events are kept per thread in memory and written as a CTF 1.8 trace
 * (docs/trace-format.md) at exit, on a fatal signal, or when asked here.
 */
#ifndef TF_RECORD_H
#define TF_RECORD_H

#include <tf/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The factory TF_MONITORS calls `record`, configured from TF_RECORD,
 * TF_RECORD_MODE, TF_RECORD_SIZE and TF_RECORD_VALUES. */
tf_factory *tf_record(void);

/* Writes what the recorder holds now into dir (NULL: the configured
 * directory, TF_RECORD or tf-record-<pid>), made 0700 if absent and refused
 * if it is a symbolic link, not ours, or open to group or others. Recording
 * goes on. TF_OK, TF_EINVAL (nothing recorded yet) or TF_EPERM (the directory
 * or a file in it could not be written; said on stderr). */
int tf_record_snapshot(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
