/*
 * env_app.c: a program with the hand-built TU of fixture.h, run by run_env.sh
 * under TF_MONITORS='app=timing' to test environment activation and the
 * report written at exit. Real clock; two threads; 3 parse_file calls, each
 * with 2 tokenize and 1 read_chunk.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* With "fork": after its own work the program forks a child that calls
 * parse_file once; the child's report must hold that call only. */
static int fork_child_once(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        parse_file();
        exit(0);
    }
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0)
        return 1;
    pthread_join(th, NULL);
    parse_file();
    parse_file();
    if (argc > 1 && strcmp(argv[1], "fork") == 0)
        return fork_child_once();
    /* "many": more timed calls than TF_TIMING_TRACE's ring keeps */
    for (int i = 0; argc > 1 && strcmp(argv[1], "many") == 0 && i < 20000; i++)
        parse_file();
    return 0;
}
