/* hooks.h: GENERIC builders for the hooks (hooks.cc). */
#ifndef TF_GCC_HOOKS_H
#define TF_GCC_HOOKS_H
namespace tf {
tree hook_load(tree mm, tree holder);
tree hook_enter(tree mm, tree fndecl, int id, int skip_trailing, bool unlikely, const fn_captures *captures);
tree hook_call_traced(tree mm, tree fndecl, tree g);
/* A copy of mm the optimisers know nothing of (an empty asm): the in-place
 * shape's exit guard tests it, so that jump threading does not copy the
 * body between the entry's test of mm and the exit's (code-shape.md 3.2). */
tree hook_opaque(tree *list, tree mm);
tree hook_exit(tree mm, tree test, tree fndecl, int id, tree retval, const fn_captures *captures, bool compact);
/* The compact enter hook (in place, and in larger clones): payloads stored,
 * one call of libtf's tf_hook_enter with a static template of the rest
 * (code-shape.md 3.2). */
tree hook_enter_compact(tree mm, tree fndecl, int id, int skip_trailing, bool unlikely, const fn_captures *captures);
/* The parameters the hooks report, by the names they report: `this`, then
 * the declared ones (argN when unnamed), without the skip_trailing last. */
std::vector<std::pair<std::string, tree>> reported_params(tree fndecl, int skip_trailing);
/* The kind of a value of type, and its tf_value.type text or enum type. */
int value_kind(tree type, std::string *text, tree *enum_type);
tree hook_info(tree fndecl, int self_id, int tp);
tree hook_exception(tree mm, int id, int kind, const char *callee, tree data);
tree hook_unwind(tree mm, int id);
}
#endif
