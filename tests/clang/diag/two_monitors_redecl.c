/* Redeclarations merge their attributes: two different groups is an error. */
#include <tf/tf.h>
TF_GROUP(a);
TF_GROUP(b);
TF_MONITOR(a) int f(int x);
TF_MONITOR(b) int f(int x) { return x; }
// expect-error: 6:19: 'f' has more than one 'TF_MONITOR' ('a' and 'b')
