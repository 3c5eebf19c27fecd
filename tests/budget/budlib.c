/*
 * budlib: the library budapp's dl mode loads and unloads twice: its own hot
 * tiny function (lib_tiny, called SPIN times per call of lib_spin), of
 * budapp's group app. Each load gets the range of function indices the
 * unloaded copy had (runtime/budget/funcs.c).
 */
#include <tf/tf.h>

TF_GROUP(app);

TF_MONITOR(app) int lib_tiny(int x)
{
    return x ^ 5;
}

TF_MONITOR(app) long lib_spin(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += lib_tiny((int)i);
    return s;
}
