/* The timing-point type is TF_TP_NONE, TF_TP_ENTER or TF_TP_EXIT. */
#include <tf/tf.h>
TF_INFO(TF_TP_START) static void note(void) {}
// expect-error: 3:34: 'TF_TP_START' is not a timing-point type
