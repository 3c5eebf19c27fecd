/* Two ENTER info functions cannot share a tracing name (only ENTER+EXIT). */
#include <tf/tf.h>
TF_INFO(TF_TP_ENTER) TF_TRACING_NAME("t") static void t1(void) {}
TF_INFO(TF_TP_ENTER) TF_TRACING_NAME("t") static void t2(void) {}
// expect-error: 4:55: tracing name 't' of 't2' is already used by 't1'
