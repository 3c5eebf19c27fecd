/* net_b.h: and as another team did (a planted inconsistency). */
#include <tf/tf.h>
TF_GROUP(net_rx); TF_GROUP(net_tx); TF_GROUP(net, net_rx, net_tx);
