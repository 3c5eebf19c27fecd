/*
 * foobar.c: the program of SmartMonitor's Figure 4.1 (Liao, 1992) in C, and
 * its question: which calls of a function that directly calls both FOO and
 * BAR, with a first parameter other than 0, and how long did they take?
 *
 *   (defun BOTH (C) (when (> C 0) (FOO C)) (BAR C))
 *   (defun IR (D) (BAR D))
 *
 * EITHER calls both unconditionally, so that the parameter test matters.
 * By hand: BOTH(3), BOTH(5) and EITHER(7) answer; BOTH(0) and BOTH(-2) call
 * no FOO, EITHER(0) has a first parameter of 0, IR calls no FOO.
 */
#include <tf/tf.h>

TF_GROUP(seed);

static volatile int sink;

TF_MONITOR(seed) int FOO(int c)
{
    return sink += c * 2;
}

TF_MONITOR(seed) int BAR(int c)
{
    return sink += c + 1;
}

TF_MONITOR(seed) void BOTH(int c)
{
    if (c > 0)
        FOO(c);
    BAR(c);
}

TF_MONITOR(seed) void EITHER(int c)
{
    FOO(c);
    BAR(c);
}

TF_MONITOR(seed) void IR(int d)
{
    BAR(d);
}

int main(void)
{
    static const int cs[] = {3, 0, -2, 5};
    for (int i = 0; i < 4; i++)
        BOTH(cs[i]);
    EITHER(0);
    EITHER(7);
    IR(4);
    return sink == 0;
}
