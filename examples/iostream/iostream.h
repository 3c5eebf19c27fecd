/*
 * iostream.h: the IOStream example of the Tracing Facility paper, in C.
 * A byte stream with typed reads and writes; reads are in group IORead,
 * writes in IOWrite, and IO contains both.
 */
#ifndef TF_EXAMPLE_IOSTREAM_H
#define TF_EXAMPLE_IOSTREAM_H
#include <stddef.h>
#include <tf/tf.h>

TF_GROUP(IORead);
TF_GROUP(IOWrite);
TF_GROUP(IO, IORead, IOWrite);

struct iostream {
    unsigned char buf[256];
    size_t len;  /* bytes written */
    size_t pos;  /* next byte to read */
    size_t sink; /* bytes "flushed" so far */
};

TF_MONITOR(IORead) TF_TRACING_NAME("readInt") int read_int(struct iostream *s);
TF_MONITOR(IORead) TF_TRACING_NAME("readLong") long read_long(struct iostream *s);
TF_MONITOR(IOWrite) TF_TRACING_NAME("writeInt") void write_int(struct iostream *s, int v);
TF_MONITOR(IOWrite) TF_TRACING_NAME("writeLong") void write_long(struct iostream *s, long v);
TF_MONITOR(IOWrite) TF_TRACING_NAME("flush") void flush(struct iostream *s);
#endif
