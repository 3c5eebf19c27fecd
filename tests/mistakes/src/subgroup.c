#include <tf/tf.h>
TF_GROUP(parse);
TF_GROUP(work);
TF_GROUP(app, parse, wrok);
TF_MONITOR(work) int step(int n) { return n; }
