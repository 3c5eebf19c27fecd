/*
 * abi.cc: the record types of attrs/include/tf/types.h rebuilt as GCC trees
 * (the plugin cannot include the header into GCC's own types), and the static
 * data of docs/code-shape.md section 2: holders, name table, group tables,
 * the tf_tu descriptor and the constructor/destructor that register it.
 */
#include "tf-plugin.h"

#include "nolibtf.h"

namespace tf {

/* Trees the plugin keeps between passes are GC roots: GCC may collect
 * between any two functions. */
static vec<tree, va_gc> *kept;
const struct ggc_root_tab gc_roots[] = {
    {&kept, 1, sizeof(kept), &gt_ggc_mx_vec_tree_va_gc_, &gt_pch_nx_vec_tree_va_gc_},
    LAST_GGC_ROOT_TAB};

void gc_keep(tree t)
{
    vec_safe_push(kept, t);
}

static tree s64(void) { return build_nonstandard_integer_type(64, 0); }
static tree u64(void) { return build_nonstandard_integer_type(64, 1); }
static tree u32(void) { return uint32_type_node; }
static tree cstr(void)
{
    return build_pointer_type(build_qualified_type(char_type_node, TYPE_QUAL_CONST));
}

static tree shape_type(core::abi_shape shape)
{
    switch (shape) {
    case core::ABI_U32: return u32();
    case core::ABI_I32: return integer_type_node; /* 32 bits on every target GCC builds TF for */
    case core::ABI_I64: return s64();
    case core::ABI_U64: return u64();
    case core::ABI_F64: return double_type_node;
    case core::ABI_STR: return cstr();
    case core::ABI_PTR: return const_ptr_type_node;
    case core::ABI_PAYLOAD: return abi_record("tf_payload");
    }
    gcc_unreachable();
}

/* The record <tf/abi.def> describes, as "__tf_<name>" (GCC's own builtin
 * records are named so; the user's <tf/types.h> may define the real one).
 * Its size and each field's offset are checked against the table. */
static tree make_record(const core::abi_record_spec &r)
{
    tree type = make_node(r.is_union ? UNION_TYPE : RECORD_TYPE);
    tree chain = NULL_TREE; /* finish_builtin_struct wants them reversed */
    for (const core::abi_field_spec &f : core::abi_fields)
        if (!strcmp(f.record, r.name)) {
            tree decl = build_decl(BUILTINS_LOCATION, FIELD_DECL, get_identifier(f.name), shape_type(f.shape));
            DECL_CHAIN(decl) = chain;
            chain = decl;
        }
    finish_builtin_struct(type, ("__" + std::string(r.name)).c_str(), chain, NULL_TREE);
    gcc_assert(tree_to_uhwi(TYPE_SIZE_UNIT(type)) == r.size);
    for (tree f = TYPE_FIELDS(type); f; f = DECL_CHAIN(f))
        for (const core::abi_field_spec &spec : core::abi_fields)
            if (!strcmp(spec.record, r.name) && !strcmp(spec.name, IDENTIFIER_POINTER(DECL_NAME(f))))
                gcc_assert(int_byte_position(f) == spec.offset);
    gc_keep(type);
    return type;
}

tree abi_record(const char *name)
{
    static std::map<std::string, tree> made;
    tree &type = made[name];
    for (const core::abi_record_spec &r : core::abi_records)
        if (!type && !strcmp(r.name, name))
            type = make_record(r);
    gcc_assert(type);
    return type;
}

tree abi_field(tree record, const char *name)
{
    for (tree f = TYPE_FIELDS(record); f; f = DECL_CHAIN(f))
        if (DECL_NAME(f) && !strcmp(IDENTIFIER_POINTER(DECL_NAME(f)), name))
            return f;
    gcc_unreachable();
}

tree abi_value_type(void) { return abi_record("tf_value"); }
tree abi_args_type(void) { return abi_record("tf_args"); }
tree abi_exception_type(void) { return abi_record("tf_exception"); }

tree abi_string(const std::string &s)
{
    return fold_convert(cstr(), tf_compat_string_literal(s.c_str()));
}

static tree make_static(const std::string &name, tree type, tree init, bool readonly)
{
    tree var = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier(name.c_str()), type);
    TREE_STATIC(var) = 1;
    TREE_PUBLIC(var) = 0;
    DECL_ARTIFICIAL(var) = 1;
    DECL_IGNORED_P(var) = 1;
    TREE_USED(var) = 1;
    TREE_ADDRESSABLE(var) = 1;
    TREE_READONLY(var) = readonly;
    DECL_INITIAL(var) = init;
    if (init) {
        TREE_CONSTANT(init) = 1;
        TREE_STATIC(init) = 1;
    }
    varpool_node::finalize_decl(var);
    gc_keep(var);
    return var;
}

static std::map<std::string, tree> holders;

/* static tf_monitor *__tf_holder_<group>; zero until the registry fills it. */
tree abi_holder(const std::string &group)
{
    auto it = holders.find(group);
    if (it != holders.end())
        return it->second;
    tree var = make_static("__tf_holder_" + group, ptr_type_node, NULL_TREE, false);
    holders[group] = var;
    return var;
}

/* static tf_monitor *__tf_slots[N]: the monitor of each monitored function,
 * by id (ABI 3); made with the descriptor, zero until the registry fills it. */
static tree slots_var;

static tree slots(void)
{
    if (!slots_var) /* the name table is complete before any function is instrumented */
        slots_var = make_static("__tf_slots", build_array_type_nelts(ptr_type_node, tu.table.names.size()),
                                NULL_TREE, false);
    return slots_var;
}

tree abi_slot(int id)
{
    return build4(ARRAY_REF, ptr_type_node, slots(), size_int(id), NULL_TREE, NULL_TREE);
}

tree abi_ctor(tree type, const std::vector<tree> &values)
{
    vec<constructor_elt, va_gc> *elts = NULL;
    if (TREE_CODE(type) == ARRAY_TYPE) {
        for (size_t i = 0; i < values.size(); i++)
            CONSTRUCTOR_APPEND_ELT(elts, size_int(i), values[i]);
    } else {
        tree f = TYPE_FIELDS(type);
        for (size_t i = 0; i < values.size(); i++, f = DECL_CHAIN(f))
            CONSTRUCTOR_APPEND_ELT(elts, f, fold_convert(TREE_TYPE(f), values[i]));
    }
    tree c = build_constructor(type, elts);
    TREE_CONSTANT(c) = 1;
    TREE_STATIC(c) = 1;
    return c;
}

static tree uint_cst(tree type, unsigned long v) { return build_int_cst(type, v); }

tree abi_static_array(const std::string &name, tree elem, const std::vector<tree> &items)
{
    tree type = build_array_type_nelts(elem, items.size());
    return build_fold_addr_expr(make_static(name, type, abi_ctor(type, items), true));
}

tree abi_static(const std::string &name, tree type, tree init)
{
    return build_fold_addr_expr(make_static(name, type, init, true));
}

std::string abi_type_name(tree type)
{
    tree main = TYPE_MAIN_VARIANT(type);
    tree name = TYPE_NAME(main);
    if (lang_GNU_CXX() && name && TREE_CODE(name) == TYPE_DECL)
        return lang_hooks.decl_printable_name(name, 2);
    const char *kw = TREE_CODE(main) == UNION_TYPE ? "union" : TREE_CODE(main) == ENUMERAL_TYPE ? "enum" : "struct";
    if (name && TREE_CODE(name) == IDENTIFIER_NODE)
        return std::string(kw) + " " + IDENTIFIER_POINTER(name);
    if (name && TREE_CODE(name) == TYPE_DECL && DECL_NAME(name))
        return IDENTIFIER_POINTER(DECL_NAME(name));
    name = TYPE_NAME(type); /* a typedef of an anonymous type */
    if (name && TREE_CODE(name) == TYPE_DECL && DECL_NAME(name))
        return IDENTIFIER_POINTER(DECL_NAME(name));
    return std::string(kw) + " <anonymous>";
}

/* static const tf_enum_type: the enumerators in declaration order. */
tree abi_enum_descriptor(tree enum_type)
{
    static std::map<unsigned, tree> cache;
    static int count;
    tree main = TYPE_MAIN_VARIANT(enum_type);
    auto it = cache.find(TYPE_UID(main));
    if (it != cache.end())
        return it->second;
    tree item_type = abi_record("tf_enumerator");
    tree desc_type = abi_record("tf_enum_type");
    std::vector<tree> items;
    for (tree v = TYPE_VALUES(main); v; v = TREE_CHAIN(v)) {
        tree value = TREE_VALUE(v);
        if (TREE_CODE(value) == CONST_DECL)
            value = DECL_INITIAL(value);
        items.push_back(abi_ctor(item_type, {fold_convert(s64(), value),
                                            abi_string(IDENTIFIER_POINTER(TREE_PURPOSE(v)))}));
    }
    std::string n = std::to_string(count++);
    tree items_addr = items.empty() ? null_pointer_node : abi_static_array("__tf_enumerators_" + n, item_type, items);
    tree desc = make_static("__tf_enum_" + n, desc_type,
                            abi_ctor(desc_type, {abi_string(abi_type_name(enum_type)),
                                                uint_cst(u32(), items.size()), uint_cst(u32(), 0), items_addr}),
                            true);
    tree addr = build_fold_addr_expr(desc);
    cache[TYPE_UID(main)] = addr;
    gc_keep(addr);
    return addr;
}

static tree names_table(void)
{
    tree type = abi_record("tf_name");
    std::vector<tree> items;
    for (const core::name_entry &n : tu.table.names)
        items.push_back(abi_ctor(type, {abi_string(n.name), uint_cst(u32(), n.flags),
                                       build_int_cst(integer_type_node, n.group), abi_string(n.file),
                                       uint_cst(u32(), n.line), uint_cst(u32(), 0)}));
    return abi_static_array("__tf_names", type, items);
}

static tree groups_table(void)
{
    tree type = abi_record("tf_tu_group");
    std::vector<tree> items;
    for (const std::string &g : tu.table.used_groups)
        items.push_back(abi_ctor(type, {abi_string(g), build_fold_addr_expr(abi_holder(g))}));
    return items.empty() ? null_pointer_node : abi_static_array("__tf_groups", type, items);
}

static tree decls_table(void)
{
    tree type = abi_record("tf_group_decl");
    std::vector<tree> items;
    for (const auto &it : groups) {
        const group_decl &g = it.second;
        std::vector<tree> subs;
        for (const std::string &s : g.subs)
            subs.push_back(abi_string(s));
        tree subs_addr = subs.empty() ? null_pointer_node
                                      : abi_static_array("__tf_sub_" + g.name, build_qualified_type(cstr(), TYPE_QUAL_CONST), subs);
        items.push_back(abi_ctor(type, {abi_string(g.name), subs_addr, uint_cst(u32(), subs.size()),
                                       uint_cst(u32(), 0)}));
    }
    return items.empty() ? null_pointer_node : abi_static_array("__tf_decls", type, items);
}

/* Declared weak (code-shape.md section 6): an object linked without libtf
 * still links, and runs untraced. */
static tree runtime_fn(const char *name)
{
    tree type = build_function_type_list(void_type_node, ptr_type_node, NULL_TREE);
    tree fn = build_fn_decl(name, type);
    TREE_NOTHROW(fn) = 1;
    declare_weak(fn);
    return fn;
}

/* if (&fn) fn(tu); a weak function left undefined has address 0. */
static tree call_if_linked(const char *name, tree tu_addr)
{
    tree fn = runtime_fn(name);
    tree linked = fold_build2(NE_EXPR, boolean_type_node, build_fold_addr_expr(fn), null_pointer_node);
    return build3(COND_EXPR, void_type_node, linked, build_call_expr(fn, 1, tu_addr), NULL_TREE);
}

static tree tu_desc;

/* An extern function of libc, as plainly as the TU's own declaration of it
 * would be: the names are the same symbol. */
static tree libc_fn(const char *name, tree type)
{
    tree fn = build_fn_decl(name, type);
    TREE_NOTHROW(fn) = 1;
    return fn;
}

/* int __tf_no_libtf_said: weak and public, so every instrumented object of
 * the program shares one (plugin-core/nolibtf.h). Made with the data. */
static tree nolibtf_flag(void)
{
    tree flag = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier(core::nolibtf_flag),
                           integer_type_node);
    TREE_STATIC(flag) = 1;
    TREE_PUBLIC(flag) = 1;
    DECL_ARTIFICIAL(flag) = 1;
    DECL_IGNORED_P(flag) = 1;
    TREE_USED(flag) = 1;
    DECL_INITIAL(flag) = integer_zero_node;
    declare_weak(flag);
    varpool_node::finalize_decl(flag);
    gc_keep(flag);
    return flag;
}

/* The constructor's else branch when libtf is absent (nolibtf.h):
 * if (!flag && (getenv("TF_MONITORS") || ...)) { flag = 1; write(2, msg, len); } */
static tree notice_if_absent(void)
{
    tree flag = nolibtf_flag();
    tree getenv_fn = libc_fn("getenv", build_function_type_list(build_pointer_type(char_type_node),
                                                                 cstr(), NULL_TREE));
    tree any = NULL_TREE;
    for (const char *var : core::nolibtf_vars) {
        tree set = fold_build2(NE_EXPR, boolean_type_node,
                               build_call_expr(getenv_fn, 1, abi_string(var)), null_pointer_node);
        any = any ? build2(TRUTH_ORIF_EXPR, boolean_type_node, any, set) : set;
    }
    tree unsaid = build2(EQ_EXPR, boolean_type_node, flag, integer_zero_node);
    tree write_fn = libc_fn("write", build_function_type_list(long_integer_type_node, integer_type_node,
                                                             const_ptr_type_node, size_type_node,
                                                             NULL_TREE));
    size_t len = sizeof core::nolibtf_message - 1;
    tree say = build_call_expr(write_fn, 3, build_int_cst(integer_type_node, 2),
                               abi_string(core::nolibtf_message), build_int_cst(size_type_node, len));
    tree mark = build2(MODIFY_EXPR, integer_type_node, flag, integer_one_node);
    tree both = build2(COMPOUND_EXPR, void_type_node, mark, build1(CONVERT_EXPR, void_type_node, say));
    return build3(COND_EXPR, void_type_node, build2(TRUTH_ANDIF_EXPR, boolean_type_node, unsaid, any),
                  both, NULL_TREE);
}

/* static void __tf_ctor(void) / __tf_dtor(void): a constructor (or destructor)
 * whose GENERIC body is `body`, made the way GCC makes its own static
 * constructors (cgraph_build_static_cdtor), but with the names of
 * docs/code-shape.md. It is made with the data: functions added once IPA has
 * started miss LTO streaming. It switches cfun; the caller restores it. */
static void make_cdtor(const char *name, bool ctor, tree body)
{
    tree decl = build_decl(BUILTINS_LOCATION, FUNCTION_DECL, get_identifier(name),
                           build_function_type_list(void_type_node, NULL_TREE));
    tree result = build_decl(BUILTINS_LOCATION, RESULT_DECL, NULL_TREE, void_type_node);
    DECL_ARTIFICIAL(result) = 1;
    DECL_CONTEXT(result) = decl;
    DECL_RESULT(decl) = result;
    current_function_decl = decl;
    allocate_struct_function(decl, false);
    TREE_STATIC(decl) = 1;
    TREE_USED(decl) = 1;
    DECL_ARTIFICIAL(decl) = 1;
    DECL_IGNORED_P(decl) = 1;
    DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT(decl) = 1;
    DECL_UNINLINABLE(decl) = 1;
    DECL_SAVED_TREE(decl) = body;
    DECL_INITIAL(decl) = make_node(BLOCK);
    BLOCK_SUPERCONTEXT(DECL_INITIAL(decl)) = decl;
    TREE_USED(DECL_INITIAL(decl)) = 1;
    if (ctor) {
        DECL_STATIC_CONSTRUCTOR(decl) = 1;
        decl_init_priority_insert(decl, DEFAULT_INIT_PRIORITY);
    } else {
        DECL_STATIC_DESTRUCTOR(decl) = 1;
        decl_fini_priority_insert(decl, DEFAULT_INIT_PRIORITY);
    }
    gimplify_function_tree(decl);
    cgraph_node::add_new_function(decl, false);
}

static void emit_cdtors(tree tu_addr)
{
    function *saved_fun = cfun;
    tree saved_decl = current_function_decl;
    tree reg = call_if_linked("tf_tu_register", tu_addr);
    COND_EXPR_ELSE(reg) = notice_if_absent();
    make_cdtor("__tf_ctor", true, reg);
    make_cdtor("__tf_dtor", false, call_if_linked("tf_tu_unregister", tu_addr));
    set_cfun(saved_fun);
    current_function_decl = saved_decl;
}

/* The descriptor and its tables are made with the name table, while GCC is
 * still constructing the symbol table (variables made later are never
 * output). */
void abi_emit_data(void)
{
    const core::name_table &t = tu.table;
    if (opts.off || t.names.empty() || tu_desc)
        return;
    tree type = abi_record("tf_tu");
    tree init = abi_ctor(type, {uint_cst(u32(), TF_TU_ABI), uint_cst(u32(), core::size_tf_tu),
                               abi_string(main_input_filename), abi_string(tu_base_name()),
                               uint_cst(u32(), t.names.size()), uint_cst(u32(), t.used_groups.size()),
                               uint_cst(u32(), groups.size()),
                               uint_cst(u32(), opts.light_clones && optimize >= 2 && !optimize_size ? TF_TU_LIGHT_CLONES : 0),
                               names_table(), groups_table(), decls_table(),
                               abi_string(core::tf_version), build_fold_addr_expr(slots())});
    tu_desc = make_static("__tf_tu", type, init, false);
    emit_cdtors(build_fold_addr_expr(tu_desc));
    if (opts.verbose)
        inform(UNKNOWN_LOCATION, "tf: TU %qs: %d names, %d groups", tu_base_name().c_str(),
               (int)t.names.size(), (int)t.used_groups.size());
}

} // namespace tf
