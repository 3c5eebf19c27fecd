#include "groups.h"
TF_INFO(TF_TP_NONE) static void dropped(int n) {}
TF_MONITOR(net_tx) int send(int n)
{
    if (n < 0)
        dropped(n);
    return n;
}
