/* rec_lib.c: an instrumented library that rec.c dlopens and dlcloses. */
#include <tf/tf.h>

TF_GROUP(rec);

TF_MONITOR(rec) int twice(int x) { return 2 * x; }
