/*
 * app: the program the mistake table (table.txt) runs: groups app (parse,
 * work) and stats, an info function and an info pair, a char * output buffer.
 *
 *   app               one call of each, prints the result
 *   app crash         then dereferences NULL inside a monitored call
 *   app serve         prints "ready PID", then serves tf-ctl until stdin
 *                     closes or says "quit" (TF_CONTROL=1)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tf/tf.h>

TF_GROUP(parse);
TF_GROUP(work);
TF_GROUP(stats);
TF_GROUP(app, parse, work);

/* Under -Wextra the unused parameter of an empty info body must not warn. */
TF_INFO(TF_TP_NONE) static void note(int n) {}
/* A timing point of its own, which tf-dump's report of a recording shows. */
TF_INFO(TF_TP_ENTER) TF_TRACING_NAME("phase") static void phase_begin(void) {}
TF_INFO(TF_TP_EXIT) TF_TRACING_NAME("phase") static void phase_end(void) {}

TF_MONITOR(work) int step(int n)
{
    note(n);
    return n * 2;
}

TF_MONITOR(parse) int parse_line(const char *line, int len)
{
    phase_begin();
    int n = step(len) + (line[0] == '#');
    phase_end();
    return n;
}

TF_MONITOR(stats) void count_words(const char *text, char *out, size_t size)
{
    snprintf(out, size, "%zu", strlen(text));
}

TF_MONITOR(work) int crash(volatile int *p)
{
    return *p;
}

static void serve(void)
{
    char line[64];
    printf("ready %ld\n", (long)getpid());
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) && strcmp(line, "quit\n") != 0)
        parse_line(line, (int)strlen(line));
}

int main(int argc, char **argv)
{
    alarm(60); /* never left behind by a test that lost track of it */
    char words[16];
    int r = parse_line("abc", 3);
    count_words("a b c", words, sizeof words);
    if (argc > 1 && strcmp(argv[1], "crash") == 0)
        r = crash(NULL);
    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        serve();
    printf("%d %s\n", r, words);
    return 0;
}
