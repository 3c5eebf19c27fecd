/* A subgroup cycle is a compile error. */
#include <tf/tf.h>
TF_GROUP(a, b);
TF_GROUP(b, c);
TF_GROUP(c, a);
// expect-error: 5:1: subgroup cycle: group 'c' would contain itself through 'a'
