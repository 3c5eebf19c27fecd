/* TF_TRACING_NAME takes a string literal. */
#include <tf/tf.h>
TF_GROUP(g);
TF_MONITOR(g) TF_TRACING_NAME(42) int f(int x) { return x; }
// expect-error: 4:39: 'TF_TRACING_NAME' of 'f' takes a non-empty string literal
