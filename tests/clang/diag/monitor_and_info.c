/* A function is either monitored or an info function. */
#include <tf/tf.h>
TF_GROUP(g);
TF_MONITOR(g) TF_INFO(TF_TP_NONE) static void both(void) {}
// expect-error: 4:47: 'both' is both 'TF_MONITOR' and 'TF_INFO'
