/* TF_MONITOR on a variable is an error. */
#include <tf/tf.h>
TF_GROUP(a);
TF_MONITOR(a) int (*fp)(int);
// expect-error: 4:21: 'TF_MONITOR' applies only to functions
