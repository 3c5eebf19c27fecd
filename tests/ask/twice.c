/*
 * twice.c: two runs to compare. `twice` calls work() 20 times, `twice 2`
 * 40 times; setup() runs once in both; only_a() runs only in the first,
 * only_b() only in the second. work() does the same amount of work per call,
 * far more than the rest, so the diff puts it first.
 */
#include <tf/tf.h>

TF_GROUP(tw);

static volatile unsigned long sink;

TF_MONITOR(tw) void work(int i)
{
    for (unsigned long k = 0; k < 20000; k++)
        sink += k ^ (unsigned long)i;
}

TF_MONITOR(tw) void setup(void)
{
    sink = 1;
}

TF_MONITOR(tw) void only_a(void)
{
    sink++;
}

TF_MONITOR(tw) void only_b(void)
{
    sink--;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? 40 : 20;
    setup();
    for (int i = 0; i < n; i++)
        work(i);
    if (argc > 1)
        only_b();
    else
        only_a();
    return 0;
}
