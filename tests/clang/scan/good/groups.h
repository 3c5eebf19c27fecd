/* groups.h: the project's groups, declared once and included everywhere. */
#include <tf/tf.h>
TF_GROUP(net_rx);
TF_GROUP(net_tx);
TF_GROUP(net, net_rx, net_tx);
