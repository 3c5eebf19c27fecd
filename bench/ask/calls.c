/*
 * calls.c: the recorded program of bench/ask: N requests, each a call of
 * handle() making 5 more: lookup() three times (the third repeats the
 * first's key: the cache question has answers), parse(), and a lookup()
 * inside parse(). So 6 calls a request; `calls N` makes 6 N calls.
 */
#include <stdio.h>
#include <stdlib.h>

#include <tf/tf.h>

TF_GROUP(b);

static volatile int sink;

TF_MONITOR(b) int lookup(int key)
{
    return sink += key;
}

TF_MONITOR(b) int parse(const char *s, int len)
{
    return lookup(s[0] + len);
}

TF_MONITOR(b) int handle(int req)
{
    static const char *const words[] = {"get", "put", "delete", "head"};
    int r = lookup(req % 1000) + lookup(req % 7);
    r += lookup(req % 1000);
    return r + parse(words[req % 4], req % 16);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    for (long i = 0; i < n; i++)
        handle((int)i);
    printf("%ld calls\n", 6 * n);
    return 0;
}
