/* opts.c: the plugin options (off, manifest, verbose) on one small TU. */
#include <stdio.h>
#include <tf/tf.h>

TF_GROUP(net_rx); TF_GROUP(net_tx);
TF_GROUP(net, net_rx, net_tx);
TF_GROUP(unused_group);

TF_INFO(TF_TP_ENTER) TF_TRACING_NAME("batch") static void batch_begin(int n) {}
TF_INFO(TF_TP_EXIT) TF_TRACING_NAME("batch") static void batch_end(int n) {}
TF_INFO(TF_TP_NONE) static void dropped(const char *why) {}

TF_MONITOR(net_rx) int receive(int n)
{
    batch_begin(n);
    if (n < 0)
        dropped("negative");
    batch_end(n);
    return n * 2;
}

TF_MONITOR(net) TF_TRACING_NAME("net.poll") static void poll_once(void) { receive(-1); }

int main(void)
{
    printf("%d\n", receive(4));
    poll_once();
    return 0;
}
