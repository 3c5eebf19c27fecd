/* hooks.h: GENERIC builders for the hooks (hooks.cc). */
#ifndef TF_GCC_HOOKS_H
#define TF_GCC_HOOKS_H
namespace tf {
tree hook_load(tree mm, tree holder);
tree hook_enter(tree mm, tree fndecl, int id, int skip_trailing, bool unlikely);
tree hook_call_traced(tree mm, tree fndecl, tree g);
tree hook_exit(tree mm, tree fndecl, int id, tree retval);
tree hook_info(tree fndecl, int self_id, int tp);
tree hook_exception(tree mm, int id, int kind, const char *callee, tree data);
tree hook_unwind(tree mm, int id);
}
#endif
