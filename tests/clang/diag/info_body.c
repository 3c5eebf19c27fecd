/* An info function must have an empty body: the plugin writes its body. */
#include <tf/tf.h>
TF_GROUP(g);
TF_INFO(TF_TP_NONE) static void note(int v) {
    (void)v;
}
TF_MONITOR(g) void f(int x) { note(x); }
// expect-error: 5:5: info function 'note' must have an empty body
