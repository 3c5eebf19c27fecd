/*
 * instrument.cc: the two GIMPLE passes.
 *
 * tf_instrument runs right after *warn_unused_result, the first lowering
 * pass: the body is high GIMPLE, one outer GIMPLE_BIND whose statements still
 * nest (binds, try blocks) and where every `return` is a GIMPLE_RETURN. A
 * monitored function f is first copied into f.tf_traced (clone.cc); f then
 * only loads the group's holder into `mm`, calls the clone if it is set, and
 * loses its info calls (instrument_fast). The clone, or f itself when it
 * cannot be copied (instrument_monitored), gets the hooks: the pass
 *   - adds the enter hook (f: after loading the holder once into `mm`),
 *   - puts exception hooks before __cxa_throw/__cxa_rethrow and noreturn calls,
 *   - rewrites calls of info functions to pass mm and its own id,
 *   - copies the value of each GIMPLE_RETURN (unless it is the RESULT_DECL)
 *     into one temporary,
 *   - wraps the body in a GIMPLE_TRY_FINALLY whose finally is a GIMPLE_EH_ELSE:
 *     its normal half is the exit hook with that value, its EH half the unwind
 *     hook (exception UNWIND, exit NULL), after which unwinding resumes. The
 *     body's own cleanups (destructors, `cleanup` variables) are try/finally
 *     blocks inside it, so exit comes after them, as with Clang.
 * For an info function it replaces the empty body by the info hook. For every
 * other function of a TU with info functions it only checks that none is
 * called or has its address taken.
 *
 * tf_ehfix runs after "eh": EH regions now have numbers, and the placeholder
 * call in the unwind hook becomes __builtin_eh_pointer(region), the
 * _Unwind_Exception in flight.
 */
#include "tf-plugin.h"

#include "policy.h"
#include "hooks.h"

namespace tf {

struct fn_ctx {
    tree fndecl;
    const fn_entry *e; /* NULL: neither monitored nor info */
    tree mm;
    bool fast;  /* f's own body in the split shape: info calls go, no hooks */
    bool quiet; /* the traced clone: f's body was checked already */
    bool compact; /* values reported in the compact form (code-shape.md 3.2) */
    tree result; /* what the returns return (their RESULT_DECL, or a copy) */
};

/* The function gets hooks: monitored, and the plugin not turned off. */
static bool hooked(const fn_ctx *c)
{
    return c->e && c->e->monitor && !opts.off;
}

bool enhanced_p(tree fndecl)
{
    return lookup_attribute(TF_ENHANCED, DECL_ATTRIBUTES(fndecl)) != NULL_TREE;
}

tree eh_placeholder_decl(void)
{
    static tree decl;
    if (!decl) {
        decl = build_fn_decl("__tf_eh_pointer", build_function_type_list(ptr_type_node, NULL_TREE));
        TREE_NOTHROW(decl) = 1;
        DECL_ARTIFICIAL(decl) = 1;
        gc_keep(decl);
    }
    return decl;
}

static gimple_seq gimplify(tree generic, location_t loc)
{
    gimple_seq seq = NULL;
    gimplify_and_add(generic, &seq);
    annotate_all_with_location(seq, loc);
    return seq;
}

static location_t stmt_loc(gimple *s, tree fndecl)
{
    location_t loc = gimple_location(s);
    return loc != UNKNOWN_LOCATION ? loc : DECL_SOURCE_LOCATION(fndecl);
}

static const fn_entry *info_callee(tree fn)
{
    const fn_entry *e = fn && TREE_CODE(fn) == FUNCTION_DECL ? model_find(fn) : NULL;
    return e && !e->monitor ? e : NULL;
}

/* walk_tree callback: &info anywhere but as the callee of a direct call. */
static tree find_address(tree *tp, int *walk_subtrees, void *data)
{
    struct walk_stmt_info *wi = (struct walk_stmt_info *)data;
    fn_ctx *c = (fn_ctx *)wi->info;
    if (TYPE_P(*tp))
        *walk_subtrees = 0;
    else if (TREE_CODE(*tp) == ADDR_EXPR && info_callee(TREE_OPERAND(*tp, 0)))
        error_at(user_loc(stmt_loc(wi->stmt, c->fndecl)),
                 "tf: the address of info function %qD is taken; info functions may only be called",
                 TREE_OPERAND(*tp, 0));
    return NULL_TREE;
}

/* A noreturn callee as the exception hook names it (core/policy.h). */
static std::string callee_name(tree callee)
{
    return callee ? tracing_default_name(callee) : "(indirect call)";
}

static void insert_before(gimple_stmt_iterator *gsi, tree hook)
{
    gimple *s = gsi_stmt(*gsi);
    gsi_insert_seq_before(gsi, gimplify(hook, gimple_location(s)), GSI_SAME_STMT);
}

static void rewrite_info_call(fn_ctx *c, gimple_stmt_iterator *gsi, gcall *call)
{
    auto_vec<tree> args;
    for (unsigned i = 0; i < gimple_call_num_args(call); i++)
        args.safe_push(gimple_call_arg(call, i));
    args.safe_push(c->mm);
    args.safe_push(build_int_cst(integer_type_node, c->e->id));
    gcall *repl = gimple_build_call_vec(gimple_call_fndecl(call), args);
    gimple_set_location(repl, gimple_location(call));
    gimple_set_block(repl, gimple_block(call));
    gsi_replace(gsi, repl, false);
}

static void visit_call(fn_ctx *c, gimple_stmt_iterator *gsi, struct walk_stmt_info *wi)
{
    gcall *call = as_a<gcall *>(gsi_stmt(*gsi));
    tree callee = gimple_call_fndecl(call);
    bool monitored = c->e && c->e->monitor;
    for (unsigned i = 0; i < gimple_call_num_args(call) && !c->quiet; i++)
        walk_tree(gimple_call_arg_ptr(call, i), find_address, wi, NULL);
    if (info_callee(callee)) {
        if (!monitored)
            error_at(user_loc(stmt_loc(call, c->fndecl)),
                     "tf: info function %qD is called from %qD, which is not a monitored function",
                     callee, c->fndecl);
        else if (c->fast) /* with mm NULL the call would do nothing */
            gsi_replace(gsi, gimple_build_nop(), false);
        else if (!opts.off)
            rewrite_info_call(c, gsi, call);
        return;
    }
    if (!monitored || opts.off || c->fast || gimple_call_internal_p(call))
        return;
    std::string symbol = callee && DECL_NAME(callee) ? IDENTIFIER_POINTER(DECL_NAME(callee)) : "";
    tree hook = NULL_TREE;
    switch (core::hook_for_call(symbol, gimple_call_flags(call) & ECF_NORETURN)) {
    case core::call_hook::throw_typed:
        hook = hook_exception(c->mm, c->e->id, core::TF_EXC_THROW, NULL, gimple_call_arg(call, 1));
        break;
    case core::call_hook::rethrow:
        hook = hook_exception(c->mm, c->e->id, core::TF_EXC_THROW, NULL, NULL_TREE);
        break;
    case core::call_hook::noreturn:
        hook = hook_exception(c->mm, c->e->id, core::TF_EXC_NORETURN, callee_name(callee).c_str(), NULL_TREE);
        break;
    case core::call_hook::none:
        break;
    }
    if (hook)
        insert_before(gsi, hook);
}

static tree visit_stmt(gimple_stmt_iterator *gsi, bool *handled, struct walk_stmt_info *wi)
{
    fn_ctx *c = (fn_ctx *)wi->info;
    gimple *s = gsi_stmt(*gsi);
    *handled = false;
    if (gimple_code(s) == GIMPLE_CALL) {
        visit_call(c, gsi, wi);
        *handled = true;
    } else if (gimple_code(s) == GIMPLE_RETURN && hooked(c) && !c->fast) {
        /* The value returned is kept for the exit hook, which runs in the
         * finally around the whole body (instrument_body), after the
         * cleanups this return runs on its way out. */
        tree rv = gimple_return_retval(as_a<greturn *>(s));
        auto by_ref = [](tree t) { return TREE_CODE(t) == RESULT_DECL && DECL_BY_REFERENCE(t); };
        if (!rv) {
        } else if (TREE_CODE(rv) == RESULT_DECL && (!c->result || c->result == rv)) {
            c->result = rv; /* a result in memory, or what the return already set */
        } else if (!by_ref(rv)) {
            if (!c->result) /* the gimplifier's one return temporary: copied */
                c->result = create_tmp_var(TREE_TYPE(rv), "tf_rv");
            if (!by_ref(c->result))
                gsi_insert_before(gsi, gimple_build_assign(c->result, rv), GSI_SAME_STMT);
        }
    }
    return NULL_TREE;
}

static void walk_body(fn_ctx *c, gimple_seq *body)
{
    struct walk_stmt_info wi;
    memset(&wi, 0, sizeof wi);
    wi.info = c;
    walk_gimple_seq_mod(body, visit_stmt, tu.has_info && !c->quiet ? find_address : NULL, &wi);
}

/* Every hook but enter: exception hooks, info calls passing mm, and around
 * the whole body a finally that reports exit, on the normal path with the
 * value returned, while unwinding UNWIND then exit with no value. Cleanups
 * of the body (C++ destructors, `cleanup` variables, VLA stack restores)
 * are try/finally blocks nested inside it, so they run before: they belong
 * to the call, as in the Clang plugin.
 *   try { body } finally { eh_else { exit(&result) } { unwind hook } }
 * The second half of an EH_ELSE runs only on the exceptional path, which
 * then resumes unwinding (a TRY_CATCH cleanup would need the C++ front end's
 * help to resume, and falls through in C); without exceptions the finally
 * is just the exit hook. */
static void instrument_body(fn_ctx *c, gbind *outer)
{
    location_t loc = DECL_SOURCE_LOCATION(c->fndecl);
    int id = c->e->id;
    gimple_seq *body = gimple_bind_body_ptr(outer);
    c->result = NULL_TREE;
    walk_body(c, body);
    /* In place, the exit's guard tests an opaque copy of mm; the clone's mm
     * is a nonnull parameter, whose tests GCC folds away. */
    tree guard = alloc_stmt_list(), test = c->quiet ? c->mm : hook_opaque(&guard, c->mm);
    tree exit_hook = hook_exit(c->mm, test, c->fndecl, id, c->result, c->e->captures, c->compact);
    if (c->result && gimple_seq_may_fallthru(*body)) {
        /* Falling off the end of a non-void function returns nothing
         * reportable: `tf_fell` tells the finally which way it came. */
        tree fell = create_tmp_var(boolean_type_node, "tf_fell");
        gimple_seq start = gimplify(build2(MODIFY_EXPR, boolean_type_node, fell, boolean_false_node), loc);
        gimple_seq_add_seq(&start, *body);
        *body = start;
        gimple_seq_add_seq(body, gimplify(build2(MODIFY_EXPR, boolean_type_node, fell, boolean_true_node), loc));
        exit_hook = build3(COND_EXPR, void_type_node, fell, hook_exit(c->mm, test, c->fndecl, id, NULL_TREE, NULL, false),
                           exit_hook);
    }
    append_to_statement_list(exit_hook, &guard);
    gimple_seq normal = gimplify(guard, loc);
    gimple_seq finally = normal;
    if (flag_exceptions) {
        gimple_seq unwind = gimplify(hook_unwind(c->mm, id), loc);
        gimple *eh_else = gimple_build_eh_else(normal, unwind);
        gimple_set_location(eh_else, loc);
        finally = gimple_seq_alloc_with_stmt(eh_else);
    }
    gtry *t = gimple_build_try(*body, finally, GIMPLE_TRY_FINALLY);
    gimple_set_location(t, loc);
    *body = NULL;
    gimple_seq_add_stmt(body, t);
}

/* Is seq a lone call the compiler added for -fsanitize=thread (the
 * function's TSan exit) or -finstrument-functions (its exit hook)? */
static bool wrapper_cleanup(gimple_seq seq, bool profile)
{
    gimple *s = gimple_seq_last_stmt(seq);
    if (!s || !is_gimple_call(s))
        return false;
    if (gimple_call_internal_p(s))
        return gimple_call_internal_fn(s) == IFN_TSAN_FUNC_EXIT;
    tree fn = gimple_call_fndecl(s);
    return profile && fn && fndecl_built_in_p(fn, BUILT_IN_PROFILE_FUNC_EXIT);
}

/* Where the function's own body starts inside what the gimplifier wrapped
 * around it: `try { body } finally { TSan exit }` (and with profile, also
 * `enter(); try { body } finally { exit(); }` of -finstrument-functions).
 * The fast path's early return must stay inside the TSan one, or every
 * traced call leaks a TSan frame; it must stay outside the profile one,
 * whose calls the traced clone makes (a copy of the body), or they would
 * fire twice. */
static bool profile_call(gimple *s)
{
    tree fn = is_gimple_call(s) ? gimple_call_fndecl(s) : NULL_TREE;
    return fn && (fndecl_built_in_p(fn, BUILT_IN_PROFILE_FUNC_ENTER) ||
                  fndecl_built_in_p(fn, BUILT_IN_RETURN_ADDRESS));
}

static gimple_seq *user_body(gimple_seq *seq, bool profile)
{
    for (gimple_stmt_iterator i = gsi_start(*seq); !gsi_end_p(i); gsi_next(&i)) {
        gimple *s = gsi_stmt(i);
        if (gimple_code(s) == GIMPLE_DEBUG || (profile && profile_call(s)))
            continue;
        if (gimple_code(s) != GIMPLE_TRY || gimple_try_kind(s) != GIMPLE_TRY_FINALLY ||
            !wrapper_cleanup(gimple_try_cleanup(s), profile))
            break;
        /* The wrapped body is the gimplifier's bind of the whole function. */
        gimple *inner = gimple_seq_first_stmt(gimple_try_eval(s));
        if (!inner || gimple_code(inner) != GIMPLE_BIND)
            return gimple_try_eval_ptr(s);
        return user_body(gimple_bind_body_ptr(as_a<gbind *>(inner)), profile);
    }
    return seq;
}

static void prepend(gbind *outer, gimple_seq prologue)
{
    gimple_seq *body = gimple_bind_body_ptr(outer);
    if (flag_sanitize & SANITIZE_THREAD)
        body = user_body(body, false);
    gimple_seq_add_seq(&prologue, *body);
    *body = prologue;
}

/* The in-place shape, for functions that cannot be split or are large enough
 * to keep their hooks in place (clone.cc), with the compact hooks. */
static void instrument_monitored(fn_ctx *c, gbind *outer)
{
    location_t loc = DECL_SOURCE_LOCATION(c->fndecl);
    c->compact = true;
    instrument_body(c, outer);
    gimple_seq prologue = gimplify(hook_load(c->mm, abi_slot(c->e->id)), loc);
    gimple_seq_add_seq(&prologue,
                       gimplify(hook_enter_compact(c->mm, c->fndecl, c->e->id, 0, true, c->e->captures), loc));
    prepend(outer, prologue);
}

/* f.tf_traced: the full set of hooks on the copy of f's body, using the mm
 * it is passed. The hooks test a local copy of it: the parameter is declared
 * nonnull (clone.cc), so GCC folds the tests away, and -Wnonnull-compare,
 * which looks at the parameter itself, has nothing to say. */
static void instrument_clone(const fn_ctx *f, tree g, tree mm)
{
    push_cfun(DECL_STRUCT_FUNCTION(g));
    push_gimplify_context();
    gbind *outer = as_a<gbind *>(gimple_seq_first_stmt(gimple_body(g)));
    core::body_size size;
    bool compact = body_size_of(f->fndecl, size) && core::compact_clone(size);
    fn_ctx c = {g, f->e, create_tmp_var(ptr_type_node, "tf_mm"), false, true, compact};
    location_t loc = DECL_SOURCE_LOCATION(g);
    instrument_body(&c, outer);
    gimple_seq prologue = gimplify(build2(MODIFY_EXPR, ptr_type_node, c.mm, mm), loc);
    gimple_seq_add_seq(&prologue, gimplify(compact ? hook_enter_compact(c.mm, g, c.e->id, 1, false, c.e->captures)
                                                   : hook_enter(c.mm, g, c.e->id, 1, false, c.e->captures),
                                           loc));
    prepend(outer, prologue);
    pop_gimplify_context(outer);
    pop_cfun();
}

/* f itself: `mm = load; if (unlikely(mm)) return g(params, mm);`, then its
 * own body with the info calls removed. */
static void instrument_fast(fn_ctx *c, gbind *outer, tree g)
{
    location_t loc = DECL_SOURCE_LOCATION(c->fndecl);
    walk_body(c, gimple_bind_body_ptr(outer));
    gimple_seq prologue = gimplify(hook_load(c->mm, abi_slot(c->e->id)), loc);
    gimple_seq_add_seq(&prologue, gimplify(hook_call_traced(c->mm, c->fndecl, g), loc));
    prepend(outer, prologue);
}

/* An info function's body must be empty: nothing but nested empty blocks,
 * debug statements and a plain `return;`. */
static gimple *first_statement(gimple_seq seq)
{
    for (gimple_stmt_iterator i = gsi_start(seq); !gsi_end_p(i); gsi_next(&i)) {
        gimple *s = gsi_stmt(i);
        switch (gimple_code(s)) {
        case GIMPLE_NOP:
        case GIMPLE_DEBUG:
        case GIMPLE_PREDICT:
            break;
        case GIMPLE_RETURN:
            if (gimple_return_retval(as_a<greturn *>(s)))
                return s;
            break;
        case GIMPLE_BIND:
            if (gimple *inner = first_statement(gimple_bind_body(as_a<gbind *>(s))))
                return inner;
            break;
        default:
            return s;
        }
    }
    return NULL;
}

/* The same rule on the body as written, before gimplification drops what
 * computes nothing (`(void)v;` is no empty body either, as with Clang). */
static tree first_generic(tree t)
{
    if (!t)
        return NULL_TREE;
    switch (TREE_CODE(t)) {
    case BIND_EXPR:
        return first_generic(BIND_EXPR_BODY(t));
    case STATEMENT_LIST:
        for (tree_stmt_iterator i = tsi_start(t); !tsi_end_p(i); tsi_next(&i))
            if (tree s = first_generic(tsi_stmt(i)))
                return s;
        return NULL_TREE;
    case CLEANUP_POINT_EXPR: /* C++ wraps `return;` in one */
        return first_generic(TREE_OPERAND(t, 0));
    case DEBUG_BEGIN_STMT:
        return NULL_TREE;
    case RETURN_EXPR:
        return TREE_OPERAND(t, 0) ? t : NULL_TREE;
    default:
        return t;
    }
}

/* Info functions whose body check_info_body already refused. */
static std::set<unsigned> bodies_refused;

void check_info_body(void *gcc_data, void *)
{
    tree fn = (tree)gcc_data;
    if (!lookup_attribute("tf_info", DECL_ATTRIBUTES(fn)))
        return;
    if (tree s = first_generic(DECL_SAVED_TREE(fn))) {
        location_t loc = EXPR_HAS_LOCATION(s) ? EXPR_LOCATION(s) : DECL_SOURCE_LOCATION(fn);
        error_at(user_loc(loc), "tf: info function %qD must have an empty body", fn);
        bodies_refused.insert(DECL_UID(fn));
    }
}

static void instrument_info(fn_ctx *c, gbind *outer)
{
    gimple_seq *body = gimple_bind_body_ptr(outer);
    if (flag_sanitize & SANITIZE_THREAD || flag_instrument_function_entry_exit)
        body = user_body(body, true);
    if (bodies_refused.count(DECL_UID(c->fndecl)))
        return;
    if (gimple *s = first_statement(*body)) {
        error_at(user_loc(stmt_loc(s, c->fndecl)), "tf: info function %qD must have an empty body",
                 c->fndecl);
        return;
    }
    if (opts.off)
        return;
    location_t loc = DECL_SOURCE_LOCATION(c->fndecl);
    *body = gimplify(hook_info(c->fndecl, c->e->id, c->e->tp), loc);
}

/* " (traced clone)", " (hooks in place: 52 operations and 3 calls, from
 * inplace-size 30)" or "" (a function that cannot be split, an info function). */
static std::string shape_note(const fn_ctx &c, tree g)
{
    core::body_size size;
    if (g)
        return " (traced clone)";
    if (hooked(&c) && body_size_of(c.fndecl, size) && core::hooks_in_place(size, opts.inplace_size))
        return " (hooks in place: " + core::in_place_text(size, opts.inplace_size) + ")";
    return "";
}

static void mark_enhanced(tree fndecl)
{
    DECL_ATTRIBUTES(fndecl) = tree_cons(get_identifier(TF_ENHANCED), NULL_TREE, DECL_ATTRIBUTES(fndecl));
}

static unsigned int instrument_execute(function *fun)
{
    model_build();
    tree fndecl = fun->decl;
    if (tu.fns.empty() || enhanced_p(fndecl))
        return 0;
    fn_ctx c = {fndecl, model_find(fndecl), NULL_TREE, false, false};
    if (!c.e && !tu.has_info)
        return 0;
    gbind *outer = as_a<gbind *>(gimple_seq_first_stmt(gimple_body(fndecl)));
    tree g = NULL_TREE, g_mm = NULL_TREE;
    if (hooked(&c) && fun->coroutine_component) {
        /* The ramp still holds the front end's coroutine internal calls,
         * which only GCC's own passes may copy or lower; its body runs in
         * the actor anyway. Listed, not instrumented, like Clang. */
        if (!DECL_ARTIFICIAL(fndecl)) /* the actor and destroyer are the front end's */
            warning_at(user_loc(DECL_SOURCE_LOCATION(fndecl)), 0, "tf: %qD is not instrumented: %s", fndecl,
                       core::skip_reason(core::skip::coroutine));
        return 0;
    }
    if (hooked(&c) && (g = clone_traced(fndecl, &g_mm)))
        instrument_clone(&c, g, g_mm);
    push_gimplify_context();
    if (hooked(&c)) {
        c.mm = create_tmp_var(ptr_type_node, "tf_mm");
        c.fast = g != NULL_TREE;
        if (g)
            instrument_fast(&c, outer, g);
        else
            instrument_monitored(&c, outer);
    } else if (c.e && !c.e->monitor)
        instrument_info(&c, outer);
    else
        walk_body(&c, gimple_bind_body_ptr(outer));
    pop_gimplify_context(outer);
    if (c.e && !opts.off)
        mark_enhanced(fndecl);
    const call_wrapper *w = call_wrapper_of(fndecl);
    if (c.e && opts.verbose > 1 && w)
        inform(DECL_SOURCE_LOCATION(fndecl), "tf: instrumented calls of %qs as call id %d%s", w->name.c_str(),
               c.e->id, g ? " (traced clone)" : "");
    else if (c.e && opts.verbose > 1)
        inform(DECL_SOURCE_LOCATION(fndecl), "tf: instrumented %qD as %s id %d%s", fndecl,
               c.e->monitor ? "monitor" : "info", c.e->id, shape_note(c, g).c_str());
    return 0;
}

/* Replaces each placeholder by __builtin_eh_pointer of the cleanup region
 * it sits in: the next RESX after it resumes that very region. */
static unsigned int ehfix_execute(function *fun)
{
    if (!enhanced_p(fun->decl))
        return 0;
    gimple_seq body = gimple_body(fun->decl);
    for (gimple_stmt_iterator i = gsi_start(body); !gsi_end_p(i); gsi_next(&i)) {
        gimple *s = gsi_stmt(i);
        if (!is_gimple_call(s) || gimple_call_fndecl(s) != eh_placeholder_decl())
            continue;
        int region = -1;
        for (gimple_stmt_iterator j = i; !gsi_end_p(j) && region < 0; gsi_next(&j))
            if (gimple_code(gsi_stmt(j)) == GIMPLE_RESX)
                region = gimple_resx_region(as_a<gresx *>(gsi_stmt(j)));
        tree lhs = gimple_call_lhs(s);
        gimple *repl;
        if (region >= 0) {
            repl = gimple_build_call(builtin_decl_explicit(BUILT_IN_EH_POINTER), 1,
                                     build_int_cst(integer_type_node, region));
            gimple_call_set_lhs(repl, lhs);
        } else
            repl = gimple_build_assign(lhs, null_pointer_node);
        gimple_set_location(repl, gimple_location(s));
        gsi_replace(&i, repl, false);
    }
    return 0;
}

/* Both ask GCC to verify the IL before and after them (a compiler built with
 * checking does; a release compiler skips it). */
static const pass_data instrument_data = {
    GIMPLE_PASS, "tf_instrument", OPTGROUP_NONE, TV_NONE, PROP_gimple_any, 0, 0,
    TODO_verify_il, TODO_verify_il,
};
static const pass_data ehfix_data = {
    GIMPLE_PASS, "tf_ehfix", OPTGROUP_NONE, TV_NONE, PROP_gimple_leh, 0, 0,
    TODO_verify_il, TODO_verify_il,
};

class instrument_pass : public gimple_opt_pass {
public:
    instrument_pass(gcc::context *ctxt) : gimple_opt_pass(instrument_data, ctxt) {}
    bool gate(function *) final override { return active && !in_lto_p; }
    unsigned int execute(function *fun) final override { return instrument_execute(fun); }
};

class ehfix_pass : public gimple_opt_pass {
public:
    ehfix_pass(gcc::context *ctxt) : gimple_opt_pass(ehfix_data, ctxt) {}
    bool gate(function *) final override { return active && !in_lto_p && flag_exceptions && !opts.off; }
    unsigned int execute(function *fun) final override { return ehfix_execute(fun); }
};

opt_pass *make_instrument_pass(gcc::context *ctxt) { return new instrument_pass(ctxt); }
opt_pass *make_ehfix_pass(gcc::context *ctxt) { return new ehfix_pass(ctxt); }

} // namespace tf
