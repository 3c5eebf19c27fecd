/* A naked function has no frame to add hooks to. */
#include <tf/tf.h>
TF_GROUP(g);
__attribute__((naked)) TF_MONITOR(g) void entry(void) { __asm__("ret"); }
// expect-error: 4:43: 'entry' is 'naked': it has no frame to add hooks to
