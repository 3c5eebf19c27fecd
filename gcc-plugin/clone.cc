/*
 * clone.cc: the traced clone of a monitored function (docs/code-shape.md
 * section 3, docs/design.md .perf.off).
 *
 * A monitored function f becomes
 *     mm = load(holder); if (unlikely(mm)) return f.tf_traced(params, mm);
 *     ...f's own body, info calls removed...
 * so the common case (no monitor) keeps the body GCC would compile without
 * TF: same frame, same registers, same recursion-to-loop transformations.
 * f.tf_traced is a copy of the body made here, at high GIMPLE, before any
 * hook is added; instrument.cc then instruments the copy.
 *
 * The copy follows GCC's own function versioning (tree-inline.cc,
 * tree_function_versioning, which needs a CFG we do not have yet): every
 * local entity (parameter, result, variable, label, lexical BLOCK) gets a
 * copy made by the inliner's remap_decl, whose DECL_ABSTRACT_ORIGIN is the
 * original, and the clone's DECL_ABSTRACT_ORIGIN is f. dwarf2out then
 * describes the clone as a concrete instance of f, like f.part.0 or
 * f.constprop.0, so debuggers show it as f with all its locals. Function
 * scope statics are shared, not copied.
 *
 * The clone is registered with finalize_function, as a front end does; f's
 * call makes it reachable, and the lowering passes then run on it like on
 * any function (tf_instrument skips it: it carries "tf enhanced").
 */
#include "tf-plugin.h"
#include "tree-inline.h"
#include "tree-ssa.h"
#include "stringpool.h"
#include "ssa.h"

namespace tf {

/* ---- which functions can be split ---------------------------------------- */

struct split_check {
    tree fndecl;
    bool blocked;
};

static tree unsplittable_op(tree *tp, int *walk_subtrees, void *data)
{
    split_check *k = (split_check *)((struct walk_stmt_info *)data)->info;
    tree t = *tp;
    if (TYPE_P(t)) {
        *walk_subtrees = 0;
    } else if (DECL_P(t)) {
        *walk_subtrees = 0;
        /* A nested function (unnested by now) reads f's frame; sizes that
         * live in f's locals would need the types copied too. */
        if ((TREE_CODE(t) == FUNCTION_DECL && DECL_CONTEXT(t) == k->fndecl) ||
            variably_modified_type_p(TREE_TYPE(t), k->fndecl))
            k->blocked = true;
    }
    return NULL_TREE;
}

static tree unsplittable_stmt(gimple_stmt_iterator *gsi, bool *handled, struct walk_stmt_info *wi)
{
    split_check *k = (split_check *)wi->info;
    gimple *s = gsi_stmt(*gsi);
    *handled = false;
    if (is_gimple_omp(s) || gimple_code(s) == GIMPLE_TRANSACTION || (is_gimple_call(s) && gimple_call_chain(s)))
        k->blocked = true;
    /* In the clone, the return and frame addresses would be the clone's
     * (its caller is f, unless f's call became a jump), not f's. */
    if (gimple_call_builtin_p(s, BUILT_IN_RETURN_ADDRESS) || gimple_call_builtin_p(s, BUILT_IN_FRAME_ADDRESS))
        k->blocked = true;
    if (gbind *b = dyn_cast<gbind *>(s))
        for (tree v = gimple_bind_vars(b); v; v = DECL_CHAIN(v))
            k->blocked |= variably_modified_type_p(TREE_TYPE(v), k->fndecl);
    return NULL_TREE;
}

/* Functions GCC itself refuses to version (non-local labels, label
 * addresses in statics), variadic ones (the clone cannot forward `...`),
 * nested functions and their parents, OpenMP and transactional bodies,
 * variably modified types, and __builtin_return_address/frame_address
 * users keep the in-place shape: same traces, slower disabled path. */
static bool splittable_p(tree fndecl)
{
    function *fn = DECL_STRUCT_FUNCTION(fndecl);
    tree attrs = DECL_ATTRIBUTES(fndecl);
    /* Only while the front end's functions are analysed can a new one join. */
    if (symtab->state != CONSTRUCTION || stdarg_p(TREE_TYPE(fndecl)) || copy_forbidden(fn) ||
        fn->static_chain_decl || DECL_STATIC_CHAIN(fndecl) || !vec_safe_is_empty(fn->local_decls) ||
        lookup_attribute("noclone", attrs) || lookup_attribute("naked", attrs))
        return false;
    for (tree p = DECL_ARGUMENTS(fndecl); p; p = DECL_CHAIN(p))
        if (variably_modified_type_p(TREE_TYPE(p), fndecl))
            return false;
    split_check k = {fndecl, false};
    struct walk_stmt_info wi;
    memset(&wi, 0, sizeof wi);
    wi.info = &k;
    walk_gimple_seq(gimple_body(fndecl), unsplittable_stmt, unsplittable_op, &wi);
    return !k.blocked;
}

/* ---- the decl of f.tf_traced ----------------------------------------------- */

/* f's attributes minus those that make no sense on a local cold copy, plus
 * noinline, cold if asked (clone_traced) and the marker. */
static tree clone_attributes(tree fndecl, bool cold)
{
    static const char *const dropped[] = {
        "always_inline", "gnu_inline", "hot", "cold", "noinline", "used", "alias", "weak",
        "weakref", "externally_visible", "visibility", "constructor", "destructor",
        "tf_monitor", "tf_tracing_name", "const", "pure", "target_clones",
    };
    tree attrs = NULL_TREE;
    for (tree a = DECL_ATTRIBUTES(fndecl); a; a = TREE_CHAIN(a)) {
        bool keep = true;
        for (const char *d : dropped)
            keep = keep && !is_attribute_p(d, get_attribute_name(a));
        if (keep)
            attrs = tree_cons(TREE_PURPOSE(a), TREE_VALUE(a), attrs);
    }
    attrs = nreverse(attrs);
    attrs = tree_cons(get_identifier("noinline"), NULL_TREE, attrs);
    if (cold)
        attrs = tree_cons(get_identifier("cold"), NULL_TREE, attrs);
    /* The marker remembers f, for traced_origin(). */
    return tree_cons(get_identifier(TF_ENHANCED), build_tree_list(NULL_TREE, fndecl), attrs);
}

/* f's type with a trailing `tf_monitor *`. Always a FUNCTION_TYPE: the
 * clone is only ever called directly, `this` is just its first argument.
 * A K&R definition receives its float, char and short parameters promoted
 * (DECL_ARG_TYPE double or int) and narrows them on entry; f passes them
 * already narrowed, so the clone takes them at their own types
 * (copy_decls makes their DECL_ARG_TYPE agree).
 * The trailing argument is declared nonnull (f calls only with a monitor),
 * so GCC folds the hooks' `if (mm)` away in the clone. */
static tree clone_type(tree fndecl)
{
    tree ft = TREE_TYPE(fndecl), args = NULL_TREE;
    int position = list_length(DECL_ARGUMENTS(fndecl)) + 1;
    if (prototype_p(ft)) {
        for (tree t = TYPE_ARG_TYPES(ft); t && t != void_list_node; t = TREE_CHAIN(t))
            args = tree_cons(NULL_TREE, TREE_VALUE(t), args);
    } else {
        for (tree p = DECL_ARGUMENTS(fndecl); p; p = DECL_CHAIN(p))
            args = tree_cons(NULL_TREE, TREE_TYPE(p), args);
    }
    args = tree_cons(NULL_TREE, ptr_type_node, args);
    tree type = build_function_type(TREE_TYPE(ft), chainon(nreverse(args), void_list_node));
    tree nonnull = build_tree_list(get_identifier("nonnull"),
                                   build_tree_list(NULL_TREE, build_int_cst(integer_type_node, position)));
    TREE_CHAIN(nonnull) = TYPE_ATTRIBUTES(ft);
    return build_type_attribute_variant(type, nonnull);
}

/* Like cgraph_node::create_version_clone_with_body: a copy of f's decl,
 * local, never inlined, never a constructor or virtual. */
static tree clone_decl(tree fndecl, bool cold)
{
    tree g = copy_node(fndecl);
    std::string name = IDENTIFIER_POINTER(DECL_NAME(fndecl));
    DECL_NAME(g) = get_identifier((name + ".tf_traced").c_str());
    SET_DECL_ASSEMBLER_NAME(g, clone_function_name(fndecl, "tf_traced"));
    SET_DECL_RTL(g, NULL);
    TREE_TYPE(g) = clone_type(fndecl);
    DECL_ATTRIBUTES(g) = clone_attributes(fndecl, cold);
    TREE_PUBLIC(g) = 0;
    DECL_EXTERNAL(g) = 0;
    DECL_WEAK(g) = 0;
    DECL_COMDAT(g) = 0;
    DECL_VISIBILITY(g) = VISIBILITY_DEFAULT;
    DECL_VISIBILITY_SPECIFIED(g) = 0;
    DECL_VIRTUAL_P(g) = 0;
    DECL_STATIC_CONSTRUCTOR(g) = 0;
    DECL_STATIC_DESTRUCTOR(g) = 0;
    DECL_SET_IS_OPERATOR_NEW(g, 0);
    DECL_SET_IS_OPERATOR_DELETE(g, 0);
    DECL_IS_REPLACEABLE_OPERATOR(g) = 0;
    DECL_DECLARED_INLINE_P(g) = 0;
    DECL_DISREGARD_INLINE_LIMITS(g) = 0;
    DECL_UNINLINABLE(g) = 1;
    DECL_PURE_P(g) = 0;
    TREE_READONLY(g) = 0;
    DECL_LOOPING_CONST_OR_PURE_P(g) = 0;
    DECL_ARTIFICIAL(g) = 1;
    DECL_ABSTRACT_ORIGIN(g) = DECL_ORIGIN(fndecl);
    DECL_STRUCT_FUNCTION(g) = NULL;
    DECL_SAVED_TREE(g) = NULL_TREE;
    DECL_INITIAL(g) = NULL_TREE;
    /* Its -Wreturn-type and friends were already said for f. */
    suppress_warning(g, OPT_Wreturn_type);
    return g;
}

/* ---- the body --------------------------------------------------------------- */

/* remap_decls of tree-inline.cc: statics and functions stay f's (listed as
 * nonlocalized for debug info), the rest is copied once. */
static tree remap_vars(tree decls, vec<tree, va_gc> **nonlocalized, copy_body_data *id)
{
    tree out = NULL_TREE;
    for (tree v = decls; v; v = DECL_CHAIN(v)) {
        if (TREE_CODE(v) == FUNCTION_DECL || (VAR_P(v) && !auto_var_in_fn_p(v, id->src_fn))) {
            if (nonlocalized && !DECL_IGNORED_P(v))
                vec_safe_push(*nonlocalized, v);
            continue;
        }
        tree n = remap_decl(v, id);
        if (VAR_P(n) && DECL_HAS_VALUE_EXPR_P(n)) {
            tree e = DECL_VALUE_EXPR(n);
            walk_tree(&e, copy_tree_body_r, id, NULL);
            SET_DECL_VALUE_EXPR(n, e);
        }
        DECL_CHAIN(n) = out;
        out = n;
    }
    return nreverse(out);
}

/* remap_blocks of tree-inline.cc: the whole lexical tree, each copy being a
 * concrete instance of its original. */
static tree remap_blocks(tree block, copy_body_data *id)
{
    tree copy = make_node(BLOCK);
    TREE_USED(copy) = TREE_USED(block);
    BLOCK_ABSTRACT_ORIGIN(copy) = BLOCK_ORIGIN(block);
    BLOCK_SOURCE_LOCATION(copy) = BLOCK_SOURCE_LOCATION(block);
    BLOCK_NONLOCALIZED_VARS(copy) = vec_safe_copy(BLOCK_NONLOCALIZED_VARS(block));
    BLOCK_VARS(copy) = remap_vars(BLOCK_VARS(block), &BLOCK_NONLOCALIZED_VARS(copy), id);
    insert_decl_map(id, block, copy);
    tree *tail = &BLOCK_SUBBLOCKS(copy);
    for (tree sub = BLOCK_SUBBLOCKS(block); sub; sub = BLOCK_CHAIN(sub)) {
        *tail = remap_blocks(sub, id);
        BLOCK_SUPERCONTEXT(*tail) = copy;
        tail = &BLOCK_CHAIN(*tail);
    }
    return copy;
}

static tree remap_block_ref(tree block, copy_body_data *id)
{
    tree *n = block ? id->decl_map->get(block) : NULL;
    return n ? *n : DECL_INITIAL(id->dst_fn);
}

/* The gimplifier makes its formal temporaries SSA names of f already. */
static tree remap_ssa(tree name, copy_body_data *id)
{
    if (tree *n = id->decl_map->get(name))
        return *n;
    tree var = SSA_NAME_VAR(name);
    tree copy = make_ssa_name_fn(DECL_STRUCT_FUNCTION(id->dst_fn),
                                 var ? remap_decl(var, id) : TREE_TYPE(name), NULL);
    if (!var && SSA_NAME_IDENTIFIER(name))
        SET_SSA_NAME_VAR_OR_IDENTIFIER(copy, SSA_NAME_IDENTIFIER(name));
    insert_decl_map(id, name, copy);
    return copy;
}

static tree remap_op(tree *tp, int *walk_subtrees, void *data)
{
    struct walk_stmt_info *wi = (struct walk_stmt_info *)data;
    copy_body_data *id = (copy_body_data *)wi->info;
    tree t = *tp;
    bool lhs = wi->is_lhs;
    wi->is_lhs = false; /* operands below are not */
    if (TREE_CODE(t) == SSA_NAME) {
        *walk_subtrees = 0;
        *tp = remap_ssa(t, id);
        if (lhs)
            SSA_NAME_DEF_STMT(*tp) = gsi_stmt(wi->gsi);
    } else if (TYPE_P(t) || CONSTANT_CLASS_P(t)) {
        *walk_subtrees = 0;
    } else if (DECL_P(t)) {
        *walk_subtrees = 0;
        if (auto_var_in_fn_p(t, id->src_fn))
            *tp = remap_decl(t, id);
    }
    return NULL_TREE;
}

static tree remap_stmt(gimple_stmt_iterator *gsi, bool *handled, struct walk_stmt_info *wi)
{
    copy_body_data *id = (copy_body_data *)wi->info;
    gimple *s = gsi_stmt(*gsi);
    *handled = false;
    if (gimple_block(s))
        gimple_set_block(s, remap_block_ref(gimple_block(s), id));
    if (gbind *b = dyn_cast<gbind *>(s)) {
        if (gimple_bind_block(b))
            gimple_bind_set_block(b, remap_block_ref(gimple_bind_block(b), id));
        gimple_bind_set_vars(b, remap_vars(gimple_bind_vars(b), NULL, id));
    }
    return NULL_TREE;
}

/* Gives g copies of f's parameters (plus `tf_mm`), result and BLOCKs, and
 * returns the tf_mm parameter. */
static tree copy_decls(copy_body_data *id)
{
    tree f = id->src_fn, g = id->dst_fn;
    tree *tail = &DECL_ARGUMENTS(g);
    for (tree p = DECL_ARGUMENTS(f); p; p = DECL_CHAIN(p)) {
        *tail = remap_decl(p, id);
        if (!prototype_p(TREE_TYPE(f))) /* K&R: as clone_type passes it */
            DECL_ARG_TYPE(*tail) = TREE_TYPE(*tail);
        tail = &DECL_CHAIN(*tail);
    }
    tree mm = build_decl(DECL_SOURCE_LOCATION(f), PARM_DECL, get_identifier("tf_mm"), ptr_type_node);
    DECL_ARG_TYPE(mm) = ptr_type_node;
    DECL_CONTEXT(mm) = g;
    DECL_ARTIFICIAL(mm) = 1;
    DECL_IGNORED_P(mm) = 1;
    TREE_USED(mm) = 1;
    *tail = mm;
    DECL_RESULT(g) = remap_decl(DECL_RESULT(f), id);
    DECL_INITIAL(g) = remap_blocks(DECL_INITIAL(f), id);
    BLOCK_SUPERCONTEXT(DECL_INITIAL(g)) = g;
    return mm;
}

static void copy_body(copy_body_data *id)
{
    push_cfun(DECL_STRUCT_FUNCTION(id->dst_fn));
    gimple_seq body = gimple_seq_copy(gimple_body(id->src_fn));
    struct walk_stmt_info wi;
    memset(&wi, 0, sizeof wi);
    wi.info = id;
    walk_gimple_seq(body, remap_stmt, remap_op, &wi);
    gimple_set_body(id->dst_fn, body);
    pop_cfun();
}

/* The struct function of g: what allocate_struct_function derives from
 * the decl, plus what the front end and gimplifier recorded in f's. */
static void clone_function(tree f, tree g)
{
    function *src = DECL_STRUCT_FUNCTION(f);
    push_struct_function(g);
    cfun->function_start_locus = src->function_start_locus;
    cfun->function_end_locus = src->function_end_locus;
    cfun->curr_properties = src->curr_properties;
    cfun->debug_nonbind_markers = src->debug_nonbind_markers;
    cfun->has_local_explicit_reg_vars = src->has_local_explicit_reg_vars;
    cfun->has_force_vectorize_loops = src->has_force_vectorize_loops;
    cfun->has_simduid_loops = src->has_simduid_loops;
    cfun->has_unroll = src->has_unroll;
    cfun->calls_eh_return = src->calls_eh_return;
    if (src->gimple_df) /* gimplify_function_tree made it for f */
        init_tree_ssa(cfun);
    pop_cfun();
}

/* A function large enough, that calls others, keeps its hooks in place:
 * the off path's load and branch at entry and each exit are a small part of
 * its call, and the clone would double its body (plugin-core/size.h). */
bool in_place_p(tree f)
{
    core::body_size size;
    return body_size_of(f, size) && core::hooks_in_place(size, opts.inplace_size);
}

/* The clone of a function of compact size is compiled at -Og when f is
 * optimised for speed (plugin-core/size.h, light_clone; clone-opt=full
 * keeps f's level): GCC's own optimize attribute, applied by its handler,
 * which makes the clone's options from f's. */
static void lighten(tree f, tree g, const core::body_size &size)
{
    if (!core::light_clone(size, opts.light_clones) || opt_for_fn(f, optimize) < 2 ||
        opt_for_fn(f, optimize_size) || opt_for_fn(f, optimize_debug))
        return;
    static const char level[] = "Og";
    tree args = build_tree_list(NULL_TREE, build_string(sizeof level, level));
    decl_attributes(&g, build_tree_list(get_identifier("optimize"), args), 0);
}

tree clone_traced(tree f, tree *mm)
{
    /* A call wrapper keeps the hooks in place: inlined, the traced call is
     * made from the caller's own frame (its return address is the
     * caller's), and a call the caller's optimisation finds dead (a branch
     * of __builtin_constant_p) goes with all of its hooks, where a clone
     * would still name the callee (calls.cc). */
    if (call_wrapper_of(f) || in_place_p(f) || !splittable_p(f))
        return NULL_TREE;
    /* cold, unless f's body has a loop and clone-opt=full (plugin-core/size.h, hot_clone) */
    core::body_size size;
    bool sized = body_size_of(f, size);
    tree g = clone_decl(f, !sized || !core::hot_clone(size, opts.light_clones));
    if (sized)
        lighten(f, g, size);
    copy_body_data id;
    memset(&id, 0, sizeof id);
    id.src_fn = f;
    id.dst_fn = g;
    id.src_cfun = DECL_STRUCT_FUNCTION(f);
    id.decl_map = new hash_map<tree, tree>;
    id.copy_decl = copy_decl_no_change;
    id.transform_call_graph_edges = CB_CGE_DUPLICATE;
    *mm = copy_decls(&id);
    clone_function(f, g);
    copy_body(&id);
    delete id.decl_map;
    cgraph_node *orig = cgraph_node::get_create(f);
    orig->used_as_abstract_origin = true;
    /* No ggc_collect now: the pass holds trees in locals. */
    cgraph_node::finalize_function(g, true);
    cgraph_node *node = cgraph_node::get(g);
    /* At -O0 finalize_function keeps every static function; the clone is
     * needed only while f (or an inlined copy of it) calls it. */
    node->force_output = 0;
    if (orig->get_section() && !orig->implicit_section)
        node->set_section(*orig);
    return g;
}

tree traced_origin(tree fndecl)
{
    tree a = lookup_attribute(TF_ENHANCED, DECL_ATTRIBUTES(fndecl));
    return a && TREE_VALUE(a) ? TREE_VALUE(TREE_VALUE(a)) : NULL_TREE;
}

/* ---- -Winfinite-recursion on f's behalf --------------------------------------
 * GCC's pass (gimple-warn-recursion.cc) looks for a path from entry to exit
 * without a call to the function itself. f's new early `return g(...)` is
 * such a path, so it can no longer see that f's own body always recurses.
 * The clone's body is f's, and its recursive calls still call f: the same
 * search on it, counting calls to f, gives the warning GCC would have given
 * for f. It runs on the clone's fresh CFG (pass tf_recursion). */
struct recursion_search {
    tree f;
    bool noreturn;
    bitmap visited;
    auto_vec<gimple *> calls;
};

static bool escapes(recursion_search *r, basic_block bb)
{
    if (!bitmap_set_bit(r->visited, bb->index))
        return false;
    if (bb == EXIT_BLOCK_PTR_FOR_FN(cfun))
        return true;
    for (gimple_stmt_iterator i = gsi_start_bb(bb); !gsi_end_p(i); gsi_next_nondebug(&i)) {
        gimple *s = gsi_stmt(i);
        if (!is_gimple_call(s))
            continue;
        if (gimple_call_builtin_p(s, BUILT_IN_LONGJMP))
            return true;
        tree callee = gimple_call_fndecl(s);
        if (callee && DECL_NAME(callee)) {
            const char *name = IDENTIFIER_POINTER(DECL_NAME(callee));
            if (startswith(name, "__cxa_throw") || !strcmp(name, "siglongjmp"))
                return true;
        }
        if (r->noreturn && (gimple_call_flags(s) & ECF_NORETURN))
            return true;
        if (callee == r->f) {
            r->calls.safe_push(s);
            return false;
        }
    }
    edge e;
    edge_iterator ei;
    FOR_EACH_EDGE (e, ei, bb->succs)
        if (escapes(r, e->dest))
            return true;
    return false;
}

static unsigned int recursion_execute(function *fun)
{
    tree f = traced_origin(fun->decl);
    if (!f || fndecl_built_in_p(f, BUILT_IN_NORMAL))
        return 0;
    auto_bitmap visited;
    recursion_search r;
    r.f = f;
    r.noreturn = lookup_attribute("noreturn", DECL_ATTRIBUTES(f)) != NULL_TREE;
    r.visited = visited;
    if (escapes(&r, ENTRY_BLOCK_PTR_FOR_FN(fun)) || r.calls.is_empty())
        return 0;
    /* "In function 'f':", not the clone's name. */
    tree saved = current_function_decl;
    current_function_decl = f;
    auto_diagnostic_group d;
    if (warning_at(DECL_SOURCE_LOCATION(f), OPT_Winfinite_recursion, "infinite recursion detected"))
        for (gimple *s : r.calls)
            if (gimple_location(s) != UNKNOWN_LOCATION)
                inform(gimple_location(s), "recursive call");
    current_function_decl = saved;
    return 0;
}

static const pass_data recursion_data = {
    GIMPLE_PASS, "tf_recursion", OPTGROUP_NONE, TV_NONE, PROP_cfg, 0, 0, 0, 0,
};

class recursion_pass : public gimple_opt_pass {
public:
    recursion_pass(gcc::context *ctxt) : gimple_opt_pass(recursion_data, ctxt) {}
    bool gate(function *) final override { return active && !in_lto_p && !opts.off && warn_infinite_recursion; }
    unsigned int execute(function *fun) final override { return recursion_execute(fun); }
};

opt_pass *make_recursion_pass(gcc::context *ctxt) { return new recursion_pass(ctxt); }

} // namespace tf
