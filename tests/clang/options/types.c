/* types.c: the type spellings in tf_value.type (code-shape section 3), seen by
 * a monitor of our own: "struct point" in C, "point" in C++, a typedef name
 * for an anonymous type; enums through their tf_enum_type. */
#include <stdio.h>
#include <tf/monitors.h>
#include <tf/registry.h>
#include <tf/tf.h>
TF_GROUP(g);
typedef struct { int a; } anon_t;
struct named { int b; };
typedef enum { LOW, HIGH } level_t;
static void show(tf_monitor *self, int id, const tf_args *a) {
  for (unsigned i = 0; i < a->count; i++)
    if (a->values[i].kind == 8) printf("%s: %s\n", a->values[i].name, (const char *)a->values[i].type);
    else if (a->values[i].kind == 7) printf("%s: %s\n", a->values[i].name, ((const tf_enum_type *)a->values[i].type)->name);
}
static void info(tf_monitor *s, const tf_args *a, int c, int i, tf_tp_type t) {}
static void ex(tf_monitor *s, int id, const tf_value *r) {}
static void exc(tf_monitor *s, int id, const tf_exception *e) {}
static void none(tf_monitor *s) {}
TF_MONITOR(g) int f(anon_t x, struct named n, level_t l) { return x.a + n.b + (int)l; }
static const tf_monitor_ops ops = { show, info, ex, exc, none, none };
static tf_monitor mon = { &ops, 0, 0 };
static tf_monitor *create(tf_factory *f, const tf_tu *tu) { return &mon; }
static tf_factory fac = { "show", create, 0 };
int main(void) { anon_t a = {1}; struct named n = {2}; tf_register("g", &fac); return f(a, n, HIGH) - 4; }
