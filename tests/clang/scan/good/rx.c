#include "groups.h"
TF_INFO(TF_TP_ENTER) TF_TRACING_NAME("batch") static void batch_begin(int n) {}
TF_INFO(TF_TP_EXIT) TF_TRACING_NAME("batch") static void batch_end(int n) {}
TF_MONITOR(net_rx) int receive(int n)
{
    batch_begin(n);
    batch_end(n);
    return n;
}
