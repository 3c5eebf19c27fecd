/* An info function must return void. */
#include <tf/tf.h>
TF_INFO(TF_TP_NONE) static int note(int v) { return 0; }
// expect-error: 3:32: info function 'note' must return void
