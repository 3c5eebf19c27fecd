#include <tf/tf.h>
TF_GROUP(store, cache);
