#include <tf/tf.h>
TF_GROUP(cache); TF_GROUP(store, cache);
