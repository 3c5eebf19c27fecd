/* lvm.c: unannotated but for one function; lua.rules puts the rest in lua_core
 * and excludes luaV_execute. */
#include <tf/tf.h>
int luaL_twice(int a);
TF_GROUP(special);
TF_MONITOR(special) int luaV_annotated(int x) { return x - 1; } /* attributes win */
int luaV_execute(int n) { return luaV_annotated(n) + 1; }
int luaV_run(int n) { return luaL_twice(luaV_execute(n)); }
