/* salvage.h: the readable part of a damaged trace (salvage.c). */
#ifndef TF_DUMP_SALVAGE_H
#define TF_DUMP_SALVAGE_H

#include <stddef.h>
#include <stdint.h>

/* 1 if babeltrace2's ctf.fs source accepts the trace directory dir. */
int td_ctf_readable(const char *dir);
/* A temporary directory holding, under 0/, 1/, ..., what can be read of
 * each trace; every damage is reported on stderr. NULL on failure. */
char *td_salvage(const char *const *traces, size_t n);
void td_salvage_remove(const char *root);
/* Offset of the k-th packet (from 1) of a stream file, -1 if unknown. */
long long td_packet_offset(const char *file, uint64_t k);

#endif
