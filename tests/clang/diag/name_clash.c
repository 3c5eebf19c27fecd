/* Two entries of a TU share a tracing name only as an ENTER/EXIT info pair. */
#include <tf/tf.h>
TF_GROUP(g);
TF_MONITOR(g) int f(int x) { return x; }
TF_MONITOR(g) TF_TRACING_NAME("f") int g2(int x) { return x; }
// expect-error: 5:40: tracing name 'f' of 'g2' is already used by 'f'
// expect-note: 4:19: 'f' is here; give one of them a distinct 'TF_TRACING_NAME'
