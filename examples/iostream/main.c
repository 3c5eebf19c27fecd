/*
 * main.c: drives the IOStream example. Run it with a monitor on IO (or only
 * IORead or IOWrite) to see every call:
 *
 *   TF_MONITORS='IO=dprint' ./tf_iostream
 */
#include <stdio.h>
#include "iostream.h"

int main(void)
{
    struct iostream s = {{0}, 0, 0, 0};
    write_int(&s, 42);
    write_long(&s, 1234567890123L);
    write_long(&s, -7);
    flush(&s);
    int i = read_int(&s);
    long a = read_long(&s);
    long b = read_long(&s);
    printf("read back %d %ld %ld\n", i, a, b);
    return 0;
}
