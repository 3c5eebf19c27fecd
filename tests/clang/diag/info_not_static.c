/* An info function must be static. */
#include <tf/tf.h>
TF_INFO(TF_TP_NONE) void note(int v) {}
// expect-error: 3:26: info function 'note' must be static
