#include <tf/tf.h>
TF_GROUP(parse);
TF_MONITOR(prase) int parse_line(int n) { return n; }
