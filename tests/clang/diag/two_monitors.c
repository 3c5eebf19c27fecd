/* At most one TF_MONITOR per function. */
#include <tf/tf.h>
TF_GROUP(a);
TF_GROUP(b);
TF_MONITOR(a) TF_MONITOR(b) int f(int x) { return x; }
// expect-error: 5:33: 'f' has more than one 'TF_MONITOR'
