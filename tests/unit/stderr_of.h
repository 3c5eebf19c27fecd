/*
 * stderr_of.h: what a call writes on stderr, for unit tests of messages.
 */
#ifndef TF_TESTS_STDERR_OF_H
#define TF_TESTS_STDERR_OF_H

#include <stdio.h>
#include <unistd.h>

/* Runs fn(arg) with stderr going to a temporary file; returns what it wrote
 * (at most 1023 bytes; valid until the next call). */
__attribute__((unused)) static const char *stderr_of_call(void (*fn)(void *), void *arg)
{
    static char text[1024];
    FILE *f = tmpfile();
    if (!f)
        return "(tmpfile failed)";
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(f), 2);
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    return text;
}

static void stderr_of_plain(void *fn)
{
    ((void (*)(void))fn)();
}

/* The same for a function without arguments. */
__attribute__((unused)) static const char *stderr_of(void (*fn)(void))
{
    return stderr_of_call(stderr_of_plain, (void *)fn);
}

#endif
