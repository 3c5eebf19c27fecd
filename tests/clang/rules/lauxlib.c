/* lauxlib.c: unannotated; lua.rules puts its functions in lua_lib. */
int luaL_add(int a, int b) { return a + b; }
int luaL_twice(int a) { return luaL_add(a, a); }
