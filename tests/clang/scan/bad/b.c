#include "net_b.h"
#include "loop_b.h"
TF_INFO(TF_TP_NONE) TF_TRACING_NAME("load") static void load_note(void) {}
TF_MONITOR(store) int b(int x)
{
    load_note();
    return x;
}
