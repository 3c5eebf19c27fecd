// C++ overloads of a monitored name need distinct tracing names.
#include <tf/tf.h>
TF_GROUP(g);
TF_MONITOR(g) int area(int side) { return side * side; }
TF_MONITOR(g) double area(double r) { return 3.14 * r * r; }
// expect-error: 5:22: tracing name 'area' of 'double area(double)' is already used by 'int area(int)'
