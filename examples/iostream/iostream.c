/*
 * iostream.c: the monitored methods of the IOStream example. Integers are
 * stored big-endian; writeLong reports odd values through an info method,
 * and flush brackets its work with a TF_TP_ENTER/TF_TP_EXIT info pair that
 * shares the tracing name "flushing" (one timing point).
 */
#include <string.h>
#include "iostream.h"

TF_INFO(TF_TP_NONE) static void odd_value(const char *what, long value) {}
TF_INFO(TF_TP_ENTER) TF_TRACING_NAME("flushing") static void flush_begin(size_t bytes) {}
TF_INFO(TF_TP_EXIT) TF_TRACING_NAME("flushing") static void flush_end(size_t bytes) {}

static void put(struct iostream *s, unsigned long v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--)
        s->buf[s->len++] = (unsigned char)(v >> (8 * i));
}

static unsigned long get(struct iostream *s, int bytes)
{
    unsigned long v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | s->buf[s->pos++];
    return v;
}

int read_int(struct iostream *s)
{
    return (int)(unsigned)get(s, 4);
}

long read_long(struct iostream *s)
{
    return (long)get(s, 8);
}

void write_int(struct iostream *s, int v)
{
    put(s, (unsigned)v, 4);
}

void write_long(struct iostream *s, long v)
{
    if (v % 2)
        odd_value("writeLong", v);
    put(s, (unsigned long)v, 8);
}

void flush(struct iostream *s)
{
    flush_begin(s->len - s->sink);
    s->sink = s->len;
    flush_end(s->len);
}
