/*
 * calls.cc: call sites for GCC (docs/code-shape.md section 7, plugin-core
 * call_sites.h). At PLUGIN_PRE_GENERICIZE, each body as the front end made it is
 * walked for the calls a `call` rules line or the caller's TF_CALLS asks
 * for; each one the policy lets through is rewritten to call a wrapper,
 *
 *     static inline __attribute__((always_inline)) RET __tf_call.N(PARAMS)
 *     { return CALLEE(PARAMS); }
 *
 * one per callee (per callee and argument types for a variadic one, whose
 * extra arguments become artificial parameters the hooks do not report).
 * model.cc then makes each wrapper a monitored function under the callee's
 * name (a TF_NAME_CALL entry), and the rest is what every monitored function
 * gets: the fast path, the traced clone, values, captures, unwinding. Inlined
 * into the caller, the wrapper leaves at the site one load and one branch.
 *
 * Why before gimplification: the gimplifier folds some builtin calls
 * (strlen of a literal) that the C front end folds earlier still and Clang
 * at code generation; taking the calls the source wrote, minus those every
 * compiler computes (plugin-core call_sites.h), gives both plugins one list.
 */
#include "tf-plugin.h"

#include "call_sites.h"
#include "spelling.h"

namespace tf {

call_model calls;

namespace {

/* The caller's TF_CALLS("group", "glob", ...), if it has one. */
bool calls_attribute(tree fndecl, core::calls_attr &out)
{
    tree a = lookup_attribute("tf_calls", DECL_ATTRIBUTES(fndecl));
    if (!a)
        return false;
    for (tree v = TREE_VALUE(a); v; v = TREE_CHAIN(v)) {
        tree s = TREE_VALUE(v);
        STRIP_ANY_LOCATION_WRAPPER(s);
        if (TREE_CODE(s) != STRING_CST)
            return false; /* attrs.cc said so where it is written */
        if (v == TREE_VALUE(a))
            out.group = TREE_STRING_POINTER(s);
        else
            out.globs.push_back(TREE_STRING_POINTER(s));
    }
    return true;
}

struct walk_ctx {
    tree caller;
    std::string name, file; /* the caller's tracing name and defining file */
    const core::rules *rules;
    core::calls_attr attr;
    bool has_attr;
};

/* C++ operators and conversion functions ("S::operator+", "operator int"),
 * which no plugin counts as call sites. */
bool operator_name(const std::string &name)
{
    size_t colon = name.rfind("::");
    std::string last = colon == std::string::npos ? name : name.substr(colon + 2);
    return last.compare(0, 8, "operator") == 0 &&
           (last.size() == 8 || !(ISALNUM(last[8]) || last[8] == '_'));
}

/* What no plugin treats as a call site (call_sites.h): builtins and hooks by name,
 * what every compiler computes inline, C++ members and special functions,
 * TF's info functions. */
/* __builtin_va_arg_pack() among the arguments (glibc's _FORTIFY_SOURCE
 * printf passes its own `...` on so): only the call itself can forward it,
 * no wrapper. Clang has no such builtin. */
bool forwards_va_arg_pack(tree call)
{
    for (int i = 0; i < call_expr_nargs(call); i++) {
        tree a = CALL_EXPR_ARG(call, i);
        STRIP_NOPS(a);
        tree fn = TREE_CODE(a) == CALL_EXPR ? get_callee_fndecl(a) : NULL_TREE;
        if (fn && (fndecl_built_in_p(fn, BUILT_IN_VA_ARG_PACK) || fndecl_built_in_p(fn, BUILT_IN_VA_ARG_PACK_LEN)))
            return true;
    }
    return false;
}

bool ignored(tree call, tree fn, const std::string &name)
{
    if (TREE_CODE(TREE_TYPE(fn)) == METHOD_TYPE || DECL_CXX_CONSTRUCTOR_P(fn) || DECL_CXX_DESTRUCTOR_P(fn) ||
        operator_name(name))
        return true;
    /* A GNU C nested function needs its parent's frame, which a wrapper has
     * not (Clang has none). */
    if (DECL_STATIC_CHAIN(fn) || decl_function_context(fn) || forwards_va_arg_pack(call))
        return true;
    if (fndecl_built_in_p(fn, BUILT_IN_MD) || fndecl_built_in_p(fn, BUILT_IN_FRONTEND) || core::call_ignored(name) ||
        lookup_attribute("tf_info", DECL_ATTRIBUTES(fn)))
        return true;
    if (!fndecl_built_in_p(fn, BUILT_IN_NORMAL))
        return false;
    if (core::builtin_expression(name))
        return true;
    /* A builtin of constant arguments is a constant (C: the front end has
     * folded it already; C++: the gimplifier would). */
    tree folded = fold_call_expr(EXPR_LOCATION(call), call, false);
    if (folded)
        STRIP_NOPS(folded);
    return folded && CONSTANT_CLASS_P(folded);
}

/* A C++ object that is not trivially copyable, passed or returned by
 * value: a wrapper would copy it once more. */
bool object_by_value(tree fntype)
{
    if (TREE_ADDRESSABLE(TREE_TYPE(fntype)))
        return true;
    for (tree t = TYPE_ARG_TYPES(fntype); t && t != void_list_node; t = TREE_CHAIN(t))
        if (TREE_ADDRESSABLE(TREE_VALUE(t)))
            return true;
    return false;
}

/* The wrapper's parameter types: the callee's declared ones, then the
 * types of the extra arguments of a variadic (or unprototyped) call. */
std::vector<tree> wrapper_types(tree fn, tree call, size_t &declared)
{
    std::vector<tree> types;
    tree ft = TREE_TYPE(fn);
    if (prototype_p(ft))
        for (tree t = TYPE_ARG_TYPES(ft); t && t != void_list_node; t = TREE_CHAIN(t))
            types.push_back(TREE_VALUE(t));
    declared = types.size();
    for (int i = int(types.size()); i < call_expr_nargs(call); i++)
        types.push_back(TYPE_MAIN_VARIANT(TREE_TYPE(CALL_EXPR_ARG(call, i))));
    if (!prototype_p(ft))
        declared = types.size();
    return types;
}

/* The name of the wrapper's parameter i: the callee's own (a definition in
 * this TU, or a prototype with names), none (argN) otherwise. */
tree param_name(tree fn, size_t i)
{
    tree p = DECL_ARGUMENTS(fn);
    for (; p && i > 0; i--)
        p = DECL_CHAIN(p);
    return p ? DECL_NAME(p) : NULL_TREE;
}

tree make_wrapper(tree fn, const std::vector<tree> &types, size_t declared, location_t loc)
{
    static int count;
    tree ret = TREE_TYPE(TREE_TYPE(fn));
    tree list = void_list_node;
    for (size_t i = types.size(); i-- > 0;)
        list = tree_cons(NULL_TREE, types[i], list);
    std::string name = "__tf_call." + std::to_string(count++);
    tree w = build_decl(loc, FUNCTION_DECL, get_identifier(name.c_str()), build_function_type(ret, list));
    SET_DECL_ASSEMBLER_NAME(w, get_identifier(name.c_str()));
    TREE_STATIC(w) = 1;
    TREE_PUBLIC(w) = 0;
    TREE_USED(w) = 1;
    DECL_ARTIFICIAL(w) = 1;
    DECL_IGNORED_P(w) = 1;
    DECL_DECLARED_INLINE_P(w) = 1;
    DECL_DISREGARD_INLINE_LIMITS(w) = 1;
    DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT(w) = 1;
    TREE_NOTHROW(w) = TREE_NOTHROW(fn);
    DECL_ATTRIBUTES(w) = tree_cons(get_identifier("always_inline"), NULL_TREE, NULL_TREE);
    tree result = build_decl(loc, RESULT_DECL, NULL_TREE, ret);
    DECL_ARTIFICIAL(result) = 1;
    DECL_IGNORED_P(result) = 1;
    DECL_CONTEXT(result) = w;
    DECL_RESULT(w) = result;
    std::vector<tree> args;
    tree *tail = &DECL_ARGUMENTS(w);
    for (size_t i = 0; i < types.size(); i++) {
        tree p = build_decl(loc, PARM_DECL, i < declared ? param_name(fn, i) : NULL_TREE, types[i]);
        DECL_ARG_TYPE(p) = types[i];
        DECL_CONTEXT(p) = w;
        DECL_ARTIFICIAL(p) = i >= declared; /* extra arguments are not reported */
        TREE_USED(p) = 1;
        *tail = p;
        tail = &DECL_CHAIN(p);
        args.push_back(p);
    }
    tree call = build_call_array_loc(loc, ret, build_fold_addr_expr(fn), args.size(), args.data());
    tree body = VOID_TYPE_P(ret) ? call
                                 : build1(RETURN_EXPR, void_type_node, build2(MODIFY_EXPR, ret, result, call));
    tree block = make_node(BLOCK);
    BLOCK_SUPERCONTEXT(block) = w;
    DECL_INITIAL(w) = block;
    DECL_SAVED_TREE(w) = build3(BIND_EXPR, void_type_node, NULL_TREE, body, block);
    push_struct_function(w);
    pop_cfun();
    gc_keep(w);
    /* Like a front end's function: analysed, lowered and instrumented with
     * the others once the TU is parsed. No collection now: the caller's
     * trees are not rooted yet. */
    cgraph_node::finalize_function(w, true);
    return w;
}

/* The wrapper for calls of fn with these parameter types, made once. */
tree wrapper_for(tree fn, tree call, location_t loc, const std::string &callee)
{
    size_t declared;
    std::vector<tree> types = wrapper_types(fn, call, declared);
    std::string key = std::to_string(DECL_UID(fn));
    for (tree t : types)
        key += "," + std::to_string(TYPE_UID(TYPE_MAIN_VARIANT(t)));
    auto it = calls.by_key.find(key);
    if (it != calls.by_key.end())
        return calls.wrappers[it->second].decl;
    tree w = make_wrapper(fn, types, declared, loc);
    calls.by_key[key] = calls.wrappers.size();
    calls.by_uid[DECL_UID(w)] = calls.wrappers.size();
    calls.wrappers.push_back({w, fn, callee});
    return w;
}

void record(walk_ctx &c, tree call, const std::string &callee, core::call_skip skip, const std::string &group,
            unsigned rule)
{
    location_t loc = EXPR_HAS_LOCATION(call) ? user_loc(EXPR_LOCATION(call))
                                             : user_loc(DECL_SOURCE_LOCATION(c.caller));
    expanded_location x = expand_location(loc);
    core::call_site s;
    s.caller = c.name;
    s.callee = callee;
    s.file = x.file ? x.file : "";
    s.line = unsigned(x.line);
    s.group = group;
    s.rule = rule;
    s.skip = skip;
    calls.sites.push_back(s);
    calls.locs.push_back(loc);
}

tree visit(tree *tp, int *walk_subtrees, void *data)
{
    walk_ctx &c = *(walk_ctx *)data;
    tree call = *tp;
    if (TYPE_P(call)) {
        *walk_subtrees = 0;
        return NULL_TREE;
    }
    if (TREE_CODE(call) != CALL_EXPR || !CALL_EXPR_FN(call))
        return NULL_TREE;
    tree fn = get_callee_fndecl(call);
    const core::rules *r = c.rules;
    std::string group;
    unsigned rule;
    if (!fn) {
        /* A virtual call is a member call, which no plugin counts. */
        if (TREE_CODE(CALL_EXPR_FN(call)) != OBJ_TYPE_REF &&
            core::call_wanted(r, c.has_attr ? &c.attr : NULL, c.file, c.name, "", group, rule))
            record(c, call, "", core::call_skip::indirect, group, rule);
        return NULL_TREE;
    }
    std::string callee = tracing_default_name(fn);
    if (ignored(call, fn, callee) ||
        !core::call_wanted(r, c.has_attr ? &c.attr : NULL, c.file, c.name, callee, group, rule))
        return NULL_TREE;
    core::callee_facts f;
    f.name = callee;
    int flags = flags_from_decl_or_type(fn);
    f.noreturn = flags & ECF_NORETURN;
    f.returns_twice = flags & ECF_RETURNS_TWICE;
    f.object_by_value = object_by_value(TREE_TYPE(fn));
    for (int i = 0; i < call_expr_nargs(call); i++)
        f.variable_size |= variably_modified_type_p(TREE_TYPE(CALL_EXPR_ARG(call, i)), NULL_TREE);
    core::call_skip skip = core::call_policy(f);
    record(c, call, callee, skip, group, rule);
    if (skip == core::call_skip::none) {
        tree w = wrapper_for(fn, call, calls.locs.back(), callee);
        CALL_EXPR_FN(call) = build1(ADDR_EXPR, build_pointer_type(TREE_TYPE(w)), w);
        calls.wrappers[calls.by_uid[DECL_UID(w)]].sites.push_back(calls.sites.size() - 1);
    }
    return NULL_TREE;
}

void walk_function(tree fndecl, const core::rules *r)
{
    walk_ctx c;
    c.caller = fndecl;
    c.rules = r && !r->calls.empty() ? r : NULL;
    c.has_attr = calls_attribute(fndecl, c.attr);
    if (!c.rules && !c.has_attr)
        return;
    c.name = tracing_default_name(fndecl);
    expanded_location x = expand_location(user_loc(DECL_SOURCE_LOCATION(fndecl)));
    c.file = x.file ? x.file : "";
    walk_tree_without_duplicates(&DECL_SAVED_TREE(fndecl), visit, &c);
}

} // namespace

void find_calls(void *gcc_data, void *)
{
    tree fndecl = (tree)gcc_data;
    if (!active || opts.off || DECL_ARTIFICIAL(fndecl) || lookup_attribute("tf_info", DECL_ATTRIBUTES(fndecl)))
        return;
    const core::rules *r = rules_early();
    size_t before = calls.sites.size();
    walk_function(fndecl, r);
    /* GNU C nested functions are genericized with their parent. */
    for (cgraph_node *n = first_nested_function(cgraph_node::get_create(fndecl)); n; n = next_nested_function(n))
        walk_function(n->decl, r);
    /* C++ folds the body once more when it genericizes it, from a cache of
     * copies made while parsing: without the rewritten calls. */
    if (calls.sites.size() != before && &clear_fold_cache)
        clear_fold_cache();
}

const call_wrapper *call_wrapper_of(tree fndecl)
{
    auto it = calls.by_uid.find(DECL_UID(fndecl));
    return it == calls.by_uid.end() ? NULL : &calls.wrappers[it->second];
}

} // namespace tf
