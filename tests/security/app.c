/* app: a few monitored calls, for tests/security (files TF writes). */
#include <tf/tf.h>

TF_GROUP(g);

TF_MONITOR(g) int f(int x)
{
    return x + 1;
}

int main(void)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += f(i);
    return s == 6 ? 0 : 1;
}
