/* weak_lib.c: the monitored function weak.c calls, linked into it or built
 * as a shared library with -Wl,--no-undefined and without libtf. */
#include <tf/tf.h>

TF_GROUP(calc);
TF_MONITOR(calc) int square(int x);
int square(int x) { return x * x; }
