/*
 * cache.c: SmartMonitor's cache question (Liao, 1992): how much time is
 * spent in calls of G from F that repeat the parameters of an earlier call
 * of G in the same invocation of F?
 *
 * Each call of F calls G directly with (1,2) (3,4) (1,2) (1,2) (5,6) (3,4),
 * and G(7,7) through H. By hand, per call of F: 6 direct calls of G, of which
 * (1,2) twice and (3,4) once repeat an earlier one; H's G(7,7) is no direct
 * call and main's G(1,2) no call from F. Two calls of F: 12 calls, 6
 * repeats (4 of (1,2), 2 of (3,4)); F's second call does not count F's
 * first call's arguments as earlier.
 */
#include <tf/tf.h>

TF_GROUP(cache);

static volatile long sink;

TF_MONITOR(cache) long G(int x, int y)
{
    for (int i = 0; i < 200 * (x + y); i++) /* work to save: something to time */
        sink += i ^ x;
    return (long)x * y;
}

TF_MONITOR(cache) long H(int x)
{
    return G(x, x);
}

TF_MONITOR(cache) long F(int round)
{
    static const int args[][2] = {{1, 2}, {3, 4}, {1, 2}, {1, 2}, {5, 6}, {3, 4}};
    long s = round;
    for (int i = 0; i < 6; i++)
        s += G(args[i][0], args[i][1]);
    return s + H(7);
}

int main(void)
{
    long s = G(1, 2);
    s += F(0);
    s += F(1);
    return s == 0;
}
