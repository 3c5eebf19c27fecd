/* TF_MONITOR on a type is an error. */
#include <tf/tf.h>
TF_GROUP(a);
struct TF_MONITOR(a) point { int x, y; };
// expect-error: 4:22: 'TF_MONITOR' applies only to functions
