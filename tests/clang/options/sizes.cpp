// sizes.cpp: tf_value.kind and .size of references (the referent's sizeof,
// as C++ sizeof says and GCC's tf.so does) and of a reference result.
#include <cstdio>
#include <tf/monitors.h>
#include <tf/registry.h>
#include <tf/tf.h>
TF_GROUP(g);
struct P { long a[4]; };
static void show(tf_monitor *, int, const tf_args *a) { for (unsigned i = 0; i < a->count; i++) std::printf("%s k%u s%u\n", a->values[i].name, a->values[i].kind, a->values[i].size); }
static void info(tf_monitor *, const tf_args *, int, int, tf_tp_type) {}
static void ex(tf_monitor *, int, const tf_value *r) { if (r) std::printf("ret k%u s%u\n", r->kind, r->size); }
static void exc(tf_monitor *, int, const tf_exception *) {}
static void none(tf_monitor *) {}
TF_MONITOR(g) const P &f(const P &p, int &i, P &&q, char c) { return p; }
static const tf_monitor_ops ops = { show, info, ex, exc, none, none };
static tf_monitor mon = { &ops, 0, 0 };
static tf_monitor *create(tf_factory *, const tf_tu *) { return &mon; }
static tf_factory fac = { "show", create, 0 };
int main() { P p{}; int i = 0; tf_register("g", &fac); f(p, i, P{}, 'c'); }
