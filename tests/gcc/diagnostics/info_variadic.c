#include <tf/tf.h>
TF_INFO(TF_TP_NONE) static void note(const char *fmt, ...) {}
/* expect: info_variadic.c:2:33: error: tf: info function 'note' must not be variadic */
