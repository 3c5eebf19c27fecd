#include "net_a.h"
#include "loop_a.h"
TF_INFO(TF_TP_ENTER) TF_TRACING_NAME("load") static void load_begin(void) {}
TF_MONITOR(net) int a(int x)
{
    load_begin();
    return x;
}
