#include <tf/tf.h>
TF_GROUP(g);
TF_INFO(TF_TP_NONE) static void note(int n, const char *why) {}
TF_MONITOR(g) int f(int x) { note(x, "x"); return x; }
