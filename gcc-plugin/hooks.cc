/*
 * hooks.cc: the GENERIC of each hook of docs/code-shape.md section 3-5,
 * gimplified by the caller. Writing them as trees (if/assign/call) and letting
 * the gimplifier lower them keeps each hook a few readable lines.
 */
#include "tf-plugin.h"
#include "hooks.h"
#include "spelling.h"

namespace tf {

static tree ops_type(int offset)
{
    static tree types[4];
    tree &t = types[offset / 8];
    if (!t) {
        tree p = ptr_type_node, i = integer_type_node;
        if (offset == OP_INFO) /* (mm, args, caller_id, self_id, tp) */
            t = build_function_type_list(void_type_node, p, p, i, i, i, NULL_TREE);
        else /* enter(mm, id, args), exit(mm, id, value), exception(mm, id, exc) */
            t = build_function_type_list(void_type_node, p, i, p, NULL_TREE);
        gc_keep(t);
    }
    return t;
}

/* The field of type `type` at `offset` bytes into what p points to, read
 * through a `char *` MEM_REF (alias set 0, so no type-based assumption about
 * the runtime's structs). */
static tree field_at(tree p, tree type, int offset)
{
    return build2(MEM_REF, type, p, build_int_cst(build_pointer_type(char_type_node), offset));
}

/* ops->fn(args...), marked nothrow: hooks never throw, so they add no EH edges. */
static tree call_through(tree ops, int offset, const std::vector<tree> &args)
{
    tree fn = field_at(ops, build_pointer_type(ops_type(offset)), offset);
    tree call = build_call_array_loc(UNKNOWN_LOCATION, void_type_node, fn, args.size(), args.data());
    TREE_NOTHROW(call) = 1;
    return call;
}

/* mm->ops->fn(args...). */
static tree ops_call(tree mm, int offset, const std::vector<tree> &args)
{
    return call_through(field_at(mm, ptr_type_node, core::off_tf_monitor_ops), offset, args);
}

/* `(ops->flags & TF_OPS_NO_VALUES) == 0`: the monitor reads values. */
static tree values_wanted(tree ops)
{
    tree flags = field_at(ops, unsigned_type_node, OP_FLAGS);
    tree bit = build2(BIT_AND_EXPR, unsigned_type_node, flags, build_int_cst(unsigned_type_node, TF_OPS_NO_VALUES));
    return build2(EQ_EXPR, boolean_type_node, bit, build_int_cst(unsigned_type_node, 0));
}

/* `ops = mm->ops; p = 0; if (values_wanted(ops)) { fill; p = built; }
 * ops->op(..., p)`: values are built only for monitors that read them; ops
 * is loaded once and the call emitted once. `fill` holds the statements
 * building `built`; `at` is its position in op's arguments. */
static tree with_values(tree mm, int offset, std::vector<tree> args, size_t at, tree fill, tree built)
{
    tree ops = create_tmp_var(ptr_type_node, "tf_ops"), p = create_tmp_var(ptr_type_node, "tf_vals");
    tree list = alloc_stmt_list();
    append_to_statement_list(build2(MODIFY_EXPR, ptr_type_node, ops, field_at(mm, ptr_type_node, core::off_tf_monitor_ops)), &list);
    append_to_statement_list(build2(MODIFY_EXPR, ptr_type_node, p, null_pointer_node), &list);
    append_to_statement_list(build2(MODIFY_EXPR, ptr_type_node, p, fold_convert(ptr_type_node, built)), &fill);
    append_to_statement_list(build3(COND_EXPR, void_type_node, values_wanted(ops), fill,
                                    build_empty_stmt(UNKNOWN_LOCATION)),
                             &list);
    args[at] = p;
    append_to_statement_list(call_through(ops, offset, args), &list);
    return list;
}

static tree ref(tree obj, const char *field)
{
    tree f = abi_field(TREE_TYPE(obj), field);
    return build3(COMPONENT_REF, TREE_TYPE(f), obj, f, NULL_TREE);
}

static void assign(tree *list, tree lhs, tree rhs)
{
    append_to_statement_list(build2(MODIFY_EXPR, TREE_TYPE(lhs), lhs, fold_convert(TREE_TYPE(lhs), rhs)), list);
}

static tree temp(tree type, const char *name)
{
    tree t = create_tmp_var(type, name);
    TREE_ADDRESSABLE(t) = 1;
    return t;
}

static unsigned size_of(tree type)
{
    if (TREE_CODE(type) == REFERENCE_TYPE)
        type = TREE_TYPE(type);
    tree s = COMPLETE_TYPE_P(type) ? TYPE_SIZE_UNIT(type) : NULL_TREE;
    return s && tree_fits_uhwi_p(s) ? tree_to_uhwi(s) : 0;
}

static bool plain_char_pointer(tree type)
{
    return TREE_CODE(type) == POINTER_TYPE && TYPE_MAIN_VARIANT(TREE_TYPE(type)) == char_type_node;
}

/* C++ pointers to member functions are records with TYPE_PTRMEMFUNC_FLAG. */
static bool member_fn_pointer(tree type)
{
    return lang_GNU_CXX() && TREE_CODE(type) == RECORD_TYPE && TYPE_LANG_FLAG_2(type);
}

/* The element code of a COMPLEX or VECTOR value (plugin-core): a decimal
 * float is no real libtf can show. */
static std::string element_code(tree elem, unsigned count)
{
    core::elem_type t = TREE_CODE(elem) == INTEGER_TYPE ? (TYPE_UNSIGNED(elem) ? core::elem_type::unsigned_int
                                                                               : core::elem_type::signed_int)
                        : TREE_CODE(elem) == REAL_TYPE && !DECIMAL_FLOAT_TYPE_P(elem) ? core::elem_type::real
                                                                                      : core::elem_type::other;
    return core::element_code(t, TYPE_PRECISION(elem), size_of(elem), count);
}

/* Kinds passed by the address of the object (parameter or result copy). */
static bool by_address(tree type)
{
    return AGGREGATE_TYPE_P(type) || TREE_CODE(type) == COMPLEX_TYPE || TREE_CODE(type) == VECTOR_TYPE ||
           (INTEGRAL_TYPE_P(type) && TYPE_PRECISION(type) > 64);
}

/* The kind of a complex, vector or wide integer value, with its element
 * code; TF_K_NONE for what libtf cannot show. */
static int wide_kind(tree type, std::string *code)
{
    unsigned HOST_WIDE_INT n = 0;
    switch (TREE_CODE(type)) {
    case INTEGER_TYPE:
    case ENUMERAL_TYPE: /* `enum : __int128`: its number */
        if (TYPE_PRECISION(type) != 128 || size_of(type) != 16)
            return core::TF_K_NONE;
        return TYPE_UNSIGNED(type) ? core::TF_K_UINT128 : core::TF_K_INT128;
    case COMPLEX_TYPE:
        if (TREE_CODE(TREE_TYPE(type)) != REAL_TYPE)
            return core::TF_K_NONE; /* GCC's _Complex int */
        *code = element_code(TREE_TYPE(type), 2);
        return code->empty() ? core::TF_K_NONE : core::TF_K_COMPLEX;
    case VECTOR_TYPE:
        if (TYPE_VECTOR_SUBPARTS(type).is_constant(&n))
            *code = element_code(TREE_TYPE(type), (unsigned)n);
        return code->empty() ? core::TF_K_NONE : core::TF_K_VECTOR;
    default:
        return core::TF_K_NONE;
    }
}

/* The kind of a value of `type` (docs/code-shape.md, "Argument kinds"), and
 * what tf_value.type holds for it: a struct's spelling or an element code in
 * *text, an enum type in *enum_type. */
int value_kind(tree type, std::string *text, tree *enum_type)
{
    switch (TREE_CODE(type)) {
    case BOOLEAN_TYPE:
        return core::TF_K_BOOL;
    case INTEGER_TYPE:
    case ENUMERAL_TYPE:
        if (TYPE_PRECISION(type) > 64)
            return wide_kind(type, NULL); /* NONE: a wider _BitInt-like type */
        if (TREE_CODE(type) == ENUMERAL_TYPE) {
            *enum_type = type;
            return core::TF_K_ENUM;
        }
        return TYPE_UNSIGNED(type) ? core::TF_K_UINT : core::TF_K_INT;
    case COMPLEX_TYPE:
    case VECTOR_TYPE:
        return wide_kind(type, text);
    case REAL_TYPE:
        return core::TF_K_FLOAT;
    case POINTER_TYPE:
    case REFERENCE_TYPE:
        return plain_char_pointer(type) ? core::TF_K_STR : core::TF_K_PTR;
    case NULLPTR_TYPE:
    case OFFSET_TYPE:
        return core::TF_K_PTR;
    case RECORD_TYPE:
    case UNION_TYPE:
        if (member_fn_pointer(type))
            return core::TF_K_PTR;
        *text = abi_type_name(type);
        return core::TF_K_STRUCT;
    default:
        return core::TF_K_NONE;
    }
}

/* The payload field of a kind, and whether it holds the value's address. */
static const char *payload_field(int kind, bool *by_addr)
{
    *by_addr = false;
    switch (kind) {
    case core::TF_K_BOOL:
    case core::TF_K_UINT: return "u";
    case core::TF_K_INT:
    case core::TF_K_ENUM: return "i";
    case core::TF_K_FLOAT: return "d";
    case core::TF_K_PTR:
    case core::TF_K_STR: return "p";
    case core::TF_K_NONE: return NULL;
    default: *by_addr = true; return "p"; /* STRUCT, INT128, UINT128, COMPLEX, VECTOR */
    }
}

/* What one tf_value holds: the constant part (name, kind, size, type) and
 * the payload, stored into field (NULL: a payload of 0). */
struct value_parts {
    tree name, kind, size, type;
    const char *field;
    tree payload;
};

/* One tf_value's parts. `addr` is the address of the object for aggregates
 * (parameters and result copies), else NULL and `value` is used. `capture`
 * is the tf_capture of what a pointer value points to, or NULL. */
static value_parts parts_of(const char *name, tree type, tree value, tree addr, tree capture)
{
    std::string text;
    tree enum_type = NULL_TREE, info = null_pointer_node;
    int kind = value_kind(type, &text, &enum_type);
    bool by_addr;
    const char *field = payload_field(kind, &by_addr);
    tree payload = by_addr ? addr : value;
    if (enum_type)
        info = abi_enum_descriptor(enum_type);
    else if (!text.empty())
        info = abi_string(text);
    if ((TREE_CODE(type) == NULLPTR_TYPE || TREE_CODE(type) == OFFSET_TYPE || member_fn_pointer(type)))
        payload = null_pointer_node;
    if (capture) /* a pointer (char * too) shown as what it points to */
        kind = core::TF_K_PTR, field = "p", payload = value, info = capture;
    if (!field || !payload)
        field = NULL, payload = NULL_TREE;
    return {name ? abi_string(name) : null_pointer_node, build_int_cst(uint32_type_node, kind),
            build_int_cst(uint32_type_node, size_of(type)), info, field, payload};
}

/* `slot.field = payload`, or `slot.u = 0`, slot a tf_payload. */
static void store_payload(tree *list, tree slot, const value_parts &p)
{
    if (p.field)
        assign(list, ref(slot, p.field), p.payload);
    else
        assign(list, ref(slot, "u"), build_int_cst(uint64_type_node, 0));
}

/* Fills one tf_value (parts_of says with what). */
static void fill_value(tree *list, tree v, const char *name, tree type, tree value, tree addr, tree capture)
{
    value_parts p = parts_of(name, type, value, addr, capture);
    assign(list, ref(v, "name"), p.name);
    assign(list, ref(v, "kind"), p.kind);
    assign(list, ref(v, "size"), p.size);
    store_payload(list, ref(v, "v"), p);
    assign(list, ref(v, "type"), p.type);
}

/* tf_payload, as tf_value's field v has it. */
static tree payload_type(void)
{
    return TREE_TYPE(abi_field(abi_value_type(), "v"));
}

/* The constant tf_value of a compact hook's template: the parts, payload 0. */
static tree value_template(const value_parts &p)
{
    return abi_ctor(abi_value_type(), {p.name, p.kind, p.size, abi_ctor(payload_type(), {integer_zero_node}), p.type});
}

/* static const tf_value __tf_tmpl_N[] = { the templates }: its address. */
static tree templates(const std::vector<tree> &items)
{
    static unsigned count;
    return abi_static_array("__tf_tmpl_" + std::to_string(count++), abi_value_type(), items);
}

/* tf_hook_enter / tf_hook_exit of libtf (runtime/hooks.c), declared weak as
 * tf_tu_register is (code-shape.md section 6): called only with mm not NULL,
 * so only where libtf is. */
static tree compact_hook(bool enter)
{
    static tree fns[2];
    tree &fn = fns[enter];
    if (!fn) {
        tree p = ptr_type_node, i = integer_type_node;
        tree type = enter ? build_function_type_list(void_type_node, p, i, uint32_type_node, p, p, NULL_TREE)
                          : build_function_type_list(void_type_node, p, i, p, p, NULL_TREE);
        fn = build_fn_decl(enter ? "tf_hook_enter" : "tf_hook_exit", type);
        TREE_NOTHROW(fn) = 1;
        declare_weak(fn);
        gc_keep(fn);
    }
    return fn;
}

/* `if (mm != 0) body`, optionally marked unlikely (the enter hook). */
static tree guarded(tree mm, tree body, bool unlikely)
{
    tree cond = build2(NE_EXPR, boolean_type_node, mm, null_pointer_node);
    if (unlikely) {
        tree expect = builtin_decl_explicit(BUILT_IN_EXPECT);
        tree call = build_call_expr(expect, 2, fold_convert(long_integer_type_node, cond),
                                    build_int_cst(long_integer_type_node, 0));
        cond = build2(NE_EXPR, boolean_type_node, call, build_int_cst(long_integer_type_node, 0));
    }
    return build3(COND_EXPR, void_type_node, cond, body, build_empty_stmt(UNKNOWN_LOCATION));
}

std::vector<std::pair<std::string, tree>> reported_params(tree fndecl, int skip_trailing)
{
    std::vector<std::pair<std::string, tree>> params;
    int position = 0, total = list_length(DECL_ARGUMENTS(fndecl)) - skip_trailing;
    int index = 0;
    for (tree p = DECL_ARGUMENTS(fndecl); p && position < total; p = DECL_CHAIN(p)) {
        position++;
        const char *n = DECL_NAME(p) ? IDENTIFIER_POINTER(DECL_NAME(p)) : NULL;
        if (DECL_ARTIFICIAL(p)) {
            if (n && !strcmp(n, "this")) /* else C++ __in_chrg, __vtt_parm, a call wrapper's extra arguments */
                params.push_back({"this", p});
            continue;
        }
        index++; /* argN counts the declared parameters, as written */
        params.push_back({n ? n : "arg" + std::to_string(index), p});
    }
    return params;
}

/* A parameter's type as reported, and the address of its object for the
 * kinds passed by address (NULL_TREE for the others). */
static tree param_addr(tree *list, tree p, tree *type)
{
    bool by_ref = DECL_BY_REFERENCE(p);
    *type = by_ref ? TREE_TYPE(TREE_TYPE(p)) : TREE_TYPE(p);
    if (AGGREGATE_TYPE_P(*type)) {
        if (!by_ref)
            TREE_ADDRESSABLE(p) = 1;
        return by_ref ? p : build_fold_addr_expr(p);
    }
    if (!by_address(*type))
        return NULL_TREE;
    /* a copy: the parameter may be a GIMPLE register already */
    tree copy = temp(*type, "tf_w");
    append_to_statement_list(build2(MODIFY_EXPR, *type, copy, p), list);
    return build_fold_addr_expr(copy);
}

/* tf_args a = { P, 0, v } with one tf_value per parameter; returns &a. */
static tree build_args(tree *list, tree fndecl, int skip_trailing, const fn_captures *captures)
{
    std::vector<std::pair<std::string, tree>> params = reported_params(fndecl, skip_trailing);
    tree value = abi_value_type(), values = null_pointer_node;
    if (!params.empty()) {
        tree array = temp(build_array_type_nelts(value, params.size()), "tf_v");
        for (size_t i = 0; i < params.size(); i++) {
            tree p = params[i].second, v = build4(ARRAY_REF, value, array, size_int(i), NULL_TREE, NULL_TREE), type;
            tree addr = param_addr(list, p, &type);
            fill_value(list, v, params[i].first.c_str(), type, p, addr, capture_root_for(captures, int(i)));
        }
        values = build_fold_addr_expr(build4(ARRAY_REF, value, array, size_int(0), NULL_TREE, NULL_TREE));
    }
    tree a = temp(abi_args_type(), "tf_a");
    assign(list, ref(a, "count"), build_int_cst(uint32_type_node, params.size()));
    assign(list, ref(a, "reserved"), build_int_cst(uint32_type_node, 0));
    assign(list, ref(a, "values"), values);
    return build_fold_addr_expr(a);
}

static tree id_cst(int id) { return build_int_cst(integer_type_node, id); }

/* The holder is read with a volatile load: the hooks only dereference what
 * it returns, so the address dependency orders the monitor's fields after it
 * (the kernel's READ_ONCE / rcu_dereference idiom; true on every target but
 * Alpha), and unlike an __atomic load it leaves GCC free to optimise the fast
 * path as the uninstrumented function (fib: 1.12x instead of 1.36x). Under
 * -fsanitize=thread it stays an acquire load, so TSan sees the pairing with
 * the registry's release store. */
tree hook_load(tree mm, tree holder)
{
    tree value;
    if (flag_sanitize & SANITIZE_THREAD) {
        tree load = builtin_decl_explicit(BUILT_IN_ATOMIC_LOAD_8);
        value = build_call_expr(load, 2, build_fold_addr_expr(holder),
                                build_int_cst(integer_type_node, MEMMODEL_ACQUIRE));
    } else {
        tree vtype = build_qualified_type(TREE_TYPE(holder), TYPE_QUAL_VOLATILE);
        value = build_simple_mem_ref(fold_convert(build_pointer_type(vtype), build_fold_addr_expr(holder)));
        TREE_THIS_VOLATILE(value) = 1;
        TREE_SIDE_EFFECTS(value) = 1;
    }
    return build2(MODIFY_EXPR, ptr_type_node, mm, fold_convert(ptr_type_node, value));
}

/* The compact form (code-shape.md 3.2): the payloads into a local array,
 * the rest in a static template, one call of tf_hook_enter. */
tree hook_enter_compact(tree mm, tree fndecl, int id, int skip_trailing, bool unlikely, const fn_captures *captures)
{
    std::vector<std::pair<std::string, tree>> params = reported_params(fndecl, skip_trailing);
    tree list = alloc_stmt_list(), tmpl = null_pointer_node, raw = null_pointer_node;
    if (!params.empty()) {
        tree array = temp(build_array_type_nelts(payload_type(), params.size()), "tf_p");
        std::vector<tree> items;
        for (size_t i = 0; i < params.size(); i++) {
            tree p = params[i].second, type, addr = param_addr(&list, p, &type);
            value_parts parts = parts_of(params[i].first.c_str(), type, p, addr, capture_root_for(captures, int(i)));
            store_payload(&list, build4(ARRAY_REF, payload_type(), array, size_int(i), NULL_TREE, NULL_TREE), parts);
            items.push_back(value_template(parts));
        }
        tmpl = templates(items);
        raw = build_fold_addr_expr(build4(ARRAY_REF, payload_type(), array, size_int(0), NULL_TREE, NULL_TREE));
    }
    tree call = build_call_expr(compact_hook(true), 5, mm, id_cst(id),
                                build_int_cst(uint32_type_node, params.size()), tmpl, raw);
    append_to_statement_list(call, &list);
    return guarded(mm, list, unlikely);
}

tree hook_enter(tree mm, tree fndecl, int id, int skip_trailing, bool unlikely, const fn_captures *captures)
{
    tree fill = alloc_stmt_list();
    tree a = build_args(&fill, fndecl, skip_trailing, captures);
    return guarded(mm, with_values(mm, OP_ENTER, {mm, id_cst(id), NULL_TREE}, 2, fill, a), unlikely);
}

/* `if (unlikely(mm)) return g(params..., mm);`: parameters are passed as
 * they are (C++ objects passed by invisible reference stay the same object),
 * and an aggregate result is built straight into f's return slot. */
tree hook_call_traced(tree mm, tree fndecl, tree g)
{
    std::vector<tree> args;
    for (tree p = DECL_ARGUMENTS(fndecl); p; p = DECL_CHAIN(p))
        args.push_back(p);
    args.push_back(mm);
    tree call = build_call_expr_loc_array(DECL_SOURCE_LOCATION(fndecl), g, args.size(), args.data());
    tree res = DECL_RESULT(fndecl), body;
    if (VOID_TYPE_P(TREE_TYPE(TREE_TYPE(fndecl)))) {
        body = alloc_stmt_list();
        append_to_statement_list(call, &body);
        append_to_statement_list(build1(RETURN_EXPR, void_type_node, NULL_TREE), &body);
    } else {
        tree lhs = res;
        if (DECL_BY_REFERENCE(res)) { /* `return *<retval> = g(...)`, as the C++ front end writes it */
            lhs = build1(INDIRECT_REF, TREE_TYPE(TREE_TYPE(res)), res);
            CALL_EXPR_RETURN_SLOT_OPT(call) = 1;
        }
        body = build1(RETURN_EXPR, void_type_node, build2(INIT_EXPR, TREE_TYPE(lhs), lhs, call));
    }
    return guarded(mm, body, true);
}

tree hook_info(tree fndecl, int self_id, int tp)
{
    tree mm = NULL_TREE, caller = NULL_TREE;
    for (tree p = DECL_ARGUMENTS(fndecl); p; p = DECL_CHAIN(p))
        mm = caller, caller = p; /* the two trailing parameters */
    tree fill = alloc_stmt_list();
    tree a = build_args(&fill, fndecl, 2, NULL);
    return guarded(mm, with_values(mm, OP_INFO, {mm, NULL_TREE, caller, id_cst(self_id), id_cst(tp)}, 1, fill, a),
                   false);
}

tree hook_opaque(tree *list, tree mm)
{
    tree x = create_tmp_var(ptr_type_node, "tf_mx");
    append_to_statement_list(build2(MODIFY_EXPR, ptr_type_node, x, mm), list);
    tree out = build_tree_list(build_tree_list(NULL_TREE, build_string(3, "+r")), x);
    append_to_statement_list(build5(ASM_EXPR, void_type_node, build_string(1, ""), out, NULL_TREE, NULL_TREE,
                                    NULL_TREE),
                             list);
    return x;
}

/* The exit hook for a return of `retval` (NULL: void, or falling off); it
 * runs in the finally around the body, after the body's cleanups. `test`
 * is what its guard tests: mm, or hook_opaque's copy of it. Compact: a value
 * is reported through tf_hook_exit and a static template, as
 * hook_enter_compact does. */
tree hook_exit(tree mm, tree test, tree fndecl, int id, tree retval, const fn_captures *captures, bool compact)
{
    tree list = alloc_stmt_list();
    tree type = TREE_TYPE(TREE_TYPE(fndecl));
    if (!retval || VOID_TYPE_P(type)) {
        append_to_statement_list(ops_call(mm, OP_EXIT, {mm, id_cst(id), null_pointer_node}), &list);
        return guarded(test, list, false);
    }
    bool by_ref = TREE_CODE(retval) == RESULT_DECL && DECL_BY_REFERENCE(retval);
    tree addr = NULL_TREE;
    if (by_ref)
        addr = retval;
    else if (by_address(type)) {
        tree copy = temp(TREE_TYPE(retval), "tf_res");
        append_to_statement_list(build2(MODIFY_EXPR, TREE_TYPE(copy), copy, retval), &list);
        addr = build_fold_addr_expr(copy);
    }
    if (compact) {
        value_parts parts = parts_of(NULL, type, retval, addr, capture_root_for(captures, -1));
        tree raw = temp(payload_type(), "tf_p");
        store_payload(&list, raw, parts);
        append_to_statement_list(build_call_expr(compact_hook(false), 4, mm, id_cst(id),
                                                 templates({value_template(parts)}), build_fold_addr_expr(raw)),
                                 &list);
        return guarded(test, list, false);
    }
    tree r = temp(abi_value_type(), "tf_r");
    fill_value(&list, r, NULL, type, retval, addr, capture_root_for(captures, -1));
    return guarded(test, with_values(mm, OP_EXIT, {mm, id_cst(id), NULL_TREE}, 2, list, build_fold_addr_expr(r)),
                   false);
}

static tree exception_call(tree *list, tree mm, int id, int kind, tree name, tree data)
{
    tree e = temp(abi_exception_type(), "tf_e");
    assign(list, ref(e, "kind"), build_int_cst(uint32_type_node, kind));
    assign(list, ref(e, "reserved"), build_int_cst(uint32_type_node, 0));
    assign(list, ref(e, "name"), name);
    assign(list, ref(e, "data"), data);
    return ops_call(mm, OP_EXCEPTION, {mm, id_cst(id), build_fold_addr_expr(e)});
}

tree hook_exception(tree mm, int id, int kind, const char *callee, tree data)
{
    tree list = alloc_stmt_list();
    tree name = callee ? abi_string(callee) : null_pointer_node;
    append_to_statement_list(exception_call(&list, mm, id, kind, name, data ? data : null_pointer_node), &list);
    return guarded(mm, list, false);
}

/* The EH cleanup: `ehp = <placeholder>(); if (mm) { exception(UNWIND, ehp);
 * exit(NULL); }`. The placeholder becomes __builtin_eh_pointer(region) once
 * EH lowering has numbered the region (instrument.cc, pass tf_ehfix). */
tree hook_unwind(tree mm, int id)
{
    tree list = alloc_stmt_list();
    tree ehp = create_tmp_var(ptr_type_node, "tf_ehp");
    tree call = build_call_expr(eh_placeholder_decl(), 0);
    TREE_NOTHROW(call) = 1;
    tree body = alloc_stmt_list();
    append_to_statement_list(build2(MODIFY_EXPR, ptr_type_node, ehp, call), &list);
    append_to_statement_list(exception_call(&body, mm, id, core::TF_EXC_UNWIND, null_pointer_node, ehp), &body);
    append_to_statement_list(ops_call(mm, OP_EXIT, {mm, id_cst(id), null_pointer_node}), &body);
    append_to_statement_list(guarded(mm, body, false), &list);
    return list;
}

} // namespace tf
