/* An info function may be called only from monitored functions. */
#include <tf/tf.h>
TF_GROUP(g);
TF_INFO(TF_TP_NONE) static void note(int v) {}
TF_MONITOR(g) void traced(int x) { note(x); }
void plain(int x) { note(x); }
// expect-error: 6:21: info function 'note' is called from 'plain', which is not a monitored function
