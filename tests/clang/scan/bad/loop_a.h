/* loop_a.h and loop_b.h: each fine alone, a subgroup cycle together. */
#include <tf/tf.h>
TF_GROUP(store); TF_GROUP(cache, store);
