/* Taking the address of an info function is an error. */
#include <tf/tf.h>
TF_GROUP(g);
TF_INFO(TF_TP_NONE) static void note(int v) {}
TF_MONITOR(g) void traced(int x) {
    void (*p)(int) = note;
    p(x);
}
// expect-error: 6:12: the address of info function 'note' is taken
