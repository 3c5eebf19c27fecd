/*
 * native.h: tf-dump's own reader of TF recordings (native.c): the CTF trace
 * a recording writes (metadata + thread-<n> files), and the ring file of a
 * process that did not get to write it (rings.c), or its rings in a core
 * dump (core.c). Linear in events whatever the number of functions and
 * threads; damage is skipped packet by packet, each skip said with its
 * bytes and why. babeltrace2 (read.c) stays the reader of LTTng traces and
 * the oracle the tests compare with.
 */
#ifndef TF_DUMP_NATIVE_H
#define TF_DUMP_NATIVE_H

#include "dump.h"
#include "meta.h"

typedef struct td_trace td_trace;

/* A TF trace directory; NULL with the reason when the native reader cannot
 * read it (not TF's metadata, unreadable): babeltrace2 may. */
td_trace *td_trace_open_dir(const char *dir, char *why, size_t len);
/* An empty trace of metadata text (rings.c, core.c), its streams added with
 * td_trace_add. NULL, the reason said on stderr, if the text is refused. */
td_trace *td_trace_new(const char *name, const char *metadata, size_t len);
/* A stream of packets back to back; data is the trace's from now on (freed
 * with free() if owned, else unmapped with munmap(data, size) if mapped). */
int td_trace_add(td_trace *t, const char *name, unsigned char *data, size_t size, int mapped);
/* Something wrong in t that is no packet's: said at the end, exit status 1. */
void td_trace_damaged(td_trace *t);
void td_trace_free(td_trace *t);
const td_meta *td_trace_meta(const td_trace *t);

/* Every event of the traces in time order into out; losses and damage said
 * on stderr. 0, or 1 if anything was damaged or an output failed. */
int td_native_read(td_trace **traces, int n, td_output *out);

#endif
