/*
 * env_app.c: a program with the hand-built TU of fixture.h, run by run_env.sh
 * under TF_MONITORS='app=timing' to test environment activation and the
 * report written at exit. Real clock; two threads; 3 parse_file calls, each
 * with 2 tokenize and 1 read_chunk.
 */
#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include "fixture.h"

#define NOINLINE __attribute__((noinline))

static void spin(long ns)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
}

NOINLINE static void tokenize(void)
{
    GEN_ENTER(__tf_holder_tokenize, ID_TOKENIZE);
    spin(20000);
    GEN_EXIT(ID_TOKENIZE);
}

NOINLINE static void read_chunk(void)
{
    GEN_ENTER(__tf_holder_io, ID_READ_CHUNK);
    spin(50000);
    GEN_EXIT(ID_READ_CHUNK);
}

NOINLINE static void parse_file(void)
{
    GEN_ENTER(__tf_holder_parse, ID_PARSE_FILE);
    read_chunk();
    tokenize();
    tokenize();
    GEN_EXIT(ID_PARSE_FILE);
}

static void *worker(void *arg)
{
    (void)arg;
    parse_file();
    return NULL;
}

int main(void)
{
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0)
        return 1;
    pthread_join(th, NULL);
    parse_file();
    parse_file();
    return 0;
}
