/* net_a.h: net as one team declared it. */
#include <tf/tf.h>
TF_GROUP(net_rx); TF_GROUP(net, net_rx);
