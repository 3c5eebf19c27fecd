/*
 * model.cc: the TU as TF sees it — which functions are monitored or info
 * functions, their tracing names, the sorted name table (an id is an index in
 * it) and the groups used. Built once, at the first function GCC lowers: by
 * then the whole TU is parsed and every attribute merged into its decl, and no
 * function has been changed yet.
 */
#include "tf-plugin.h"

#include "policy.h"
#include "spelling.h"

namespace tf {

model tu;

struct candidate {
    tree decl;
    location_t loc;
    core::fn_candidate c; /* what the name table needs */
};

/* C: the identifier. C++: the qualified name without parameters or return
 * type ("ns::stack::push", "ns::stack::~stack", "ns::max<int>"), as the
 * front end's own printer gives it at verbosity 1. */
std::string tracing_default_name(tree fndecl)
{
    if (!lang_GNU_CXX())
        return IDENTIFIER_POINTER(DECL_NAME(fndecl));
    std::string printed = lang_hooks.decl_printable_name(fndecl, 1);
    size_t lambda = printed.rfind("<lambda");
    if (lambda == std::string::npos || TREE_CODE(DECL_CONTEXT(fndecl)) != RECORD_TYPE)
        return core::cxx_name(printed);
    /* "main()::<lambda(int)>::operator()": named by its place instead, as
     * Clang names it, so that two lambdas of one signature differ. */
    tree scope = TYPE_CONTEXT(DECL_CONTEXT(fndecl));
    std::string outer = lambda >= 2 ? printed.substr(0, lambda - 2) : "";
    if (scope && TREE_CODE(scope) == FUNCTION_DECL)
        outer = tracing_default_name(scope);
    expanded_location x = expand_location(user_loc(DECL_SOURCE_LOCATION(fndecl)));
    return core::lambda_name(core::cxx_name(outer), x.line, x.column);
}

static const char *attr_string(tree attr)
{
    tree value = TREE_VALUE(TREE_VALUE(attr));
    STRIP_ANY_LOCATION_WRAPPER(value);
    return TREE_CODE(value) == STRING_CST ? TREE_STRING_POINTER(value) : NULL;
}

/* Redeclarations merge their attributes: two different groups is an error. */
static const char *monitor_group(tree decl, location_t loc)
{
    tree attr = lookup_attribute("tf_monitor", DECL_ATTRIBUTES(decl));
    if (!attr)
        return NULL;
    const char *group = attr_string(attr);
    for (tree a = lookup_attribute("tf_monitor", TREE_CHAIN(attr)); a;
         a = lookup_attribute("tf_monitor", TREE_CHAIN(a))) {
        const char *other = attr_string(a);
        if (!strcmp(other, group))
            continue;
        bool later = monitor_written(decl, other) > monitor_written(decl, group);
        error_at(loc, "tf: %qD has more than one %<TF_MONITOR%> (%qs and %qs)", decl,
                 later ? group : other, later ? other : group);
    }
    return group;
}

/* A function the rules file matched but plugin-core/size.h finds too small:
 * no hooks, but listed in the manifest and, with verbose, here. */
static bool left_small(tree decl, const candidate &k)
{
    core::body_size size;
    unsigned min = rules_min_size();
    if (!body_size_of(decl, size) || !core::too_small(size, min))
        return false;
    const core::fn_candidate &c = k.c;
    std::string name = tracing_default_name(decl);
    tu.too_small.push_back({name, c.file, c.line, size.ops});
    if (opts.verbose)
        inform(k.loc, "tf: %qs is not instrumented: %s", name.c_str(), core::too_small_text(size, min).c_str());
    return true;
}

static bool classify(tree decl, candidate &k)
{
    core::fn_candidate &c = k.c;
    k.decl = decl;
    k.loc = user_loc(DECL_SOURCE_LOCATION(decl));
    expanded_location x = expand_location(k.loc);
    c.file = x.file ? x.file : "";
    c.line = x.line;
    c.tp = -1;
    tree info = lookup_attribute("tf_info", DECL_ATTRIBUTES(decl));
    tree tname = lookup_attribute("tf_tracing_name", DECL_ATTRIBUTES(decl));
    const char *group = monitor_group(decl, k.loc);
    if (info) {
        c.tp = core::tp_value(attr_string(info));
        /* Checked here, not in the handler: C++ decides linkage after it. */
        if (TREE_PUBLIC(decl)) {
            error_at(k.loc, "tf: info function %qD must be static", decl);
            return false;
        }
    }
    unsigned rules_line = 0;
    if (!info && !group && !DECL_ARTIFICIAL(decl) && DECL_NAME(decl)) {
        group = rules_match(c.file.c_str(), tracing_default_name(decl).c_str(), &rules_line);
        c.from_rules = group != NULL;
    }
    if (lookup_attribute("naked", DECL_ATTRIBUTES(decl)) ||
        (c.from_rules && lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(decl)))) {
        if (!c.from_rules && (group || info))
            error_at(k.loc, "tf: %qD is %<naked%>: it has no frame to add hooks to", decl);
        return false; /* rules skip what -finstrument-functions would skip */
    }
    if (c.from_rules) /* it took this function, instrumented or left small */
        rules_choose(rules_line);
    if (c.from_rules && left_small(decl, k))
        return false;
    if (!group && !info) {
        if (tname)
            warning_at(k.loc, 0, "tf: %<TF_TRACING_NAME%> on %qD, which is neither monitored nor an info function",
                       decl);
        return false;
    }
    if (group && (DECL_STATIC_CONSTRUCTOR(decl) || DECL_STATIC_DESTRUCTOR(decl)))
        warning_at(k.loc, 0, "tf: %qD %s", decl, core::run_at_load_text(DECL_STATIC_DESTRUCTOR(decl)));
    c.monitor = group != NULL;
    c.group = group ? group : "";
    c.name = tname ? attr_string(tname) : tracing_default_name(decl);
    c.function = tracing_default_name(decl);
    return true;
}

/* place: the rank of each candidate's location; one location, one rank
 * (C++ constructor clones are one function). */
static void rank_places(std::vector<candidate> &cands)
{
    std::vector<candidate *> order;
    for (candidate &k : cands)
        order.push_back(&k);
    std::stable_sort(order.begin(), order.end(), [](candidate *a, candidate *b) {
        return linemap_compare_locations(line_table, a->loc, b->loc) > 0;
    });
    for (size_t i = 0; i < order.size(); i++)
        order[i]->c.place = i && order[i]->loc == order[i - 1]->loc ? order[i - 1]->c.place : unsigned(i);
}

static void report_clash(const candidate &k, const candidate &first)
{
    error_at(k.loc, "tf: tracing name %qs of %qD is already used by %qD in this translation unit",
             k.c.name.c_str(), k.decl, first.decl);
    inform(first.loc, "tf: %qD is here; give one of them a distinct %<TF_TRACING_NAME%>", first.decl);
}

static void build_names(std::vector<candidate> &cands)
{
    rank_places(cands);
    std::vector<core::fn_candidate> cs;
    for (const candidate &k : cands)
        cs.push_back(k.c);
    tu.table = core::build_names(cs);
    for (const core::name_clash &x : tu.table.clashes)
        report_clash(cands[x.fn], cands[x.other]);
    for (const core::name_entry &n : tu.table.names)
        tu.locs.push_back(cands[n.first].loc);
    for (size_t i = 0; i < cands.size(); i++) {
        const core::fn_candidate &c = cands[i].c;
        if (tu.table.ids[i] >= 0)
            tu.fns[DECL_UID(cands[i].decl)] = {tu.table.ids[i], c.monitor, c.tp, c.group};
        tu.has_info |= !c.monitor;
    }
}

/* An info function gets two trailing parameters: the caller's monitor and id.
 * Its type changes with them, so every call can be rebuilt against it. */
static void add_info_params(tree fn)
{
    std::vector<tree> types;
    for (tree t = TYPE_ARG_TYPES(TREE_TYPE(fn)); t && t != void_list_node; t = TREE_CHAIN(t))
        types.push_back(TREE_VALUE(t));
    types.push_back(ptr_type_node);
    types.push_back(integer_type_node);
    tree list = void_list_node;
    for (size_t i = types.size(); i-- > 0;)
        list = tree_cons(NULL_TREE, types[i], list);
    TREE_TYPE(fn) = build_function_type(void_type_node, list);
    const char *names[2] = {"__tf_mm", "__tf_caller"};
    tree ptypes[2] = {ptr_type_node, integer_type_node};
    tree *tail = &DECL_ARGUMENTS(fn);
    while (*tail)
        tail = &DECL_CHAIN(*tail);
    for (int i = 0; i < 2; i++) {
        tree p = build_decl(DECL_SOURCE_LOCATION(fn), PARM_DECL, get_identifier(names[i]), ptypes[i]);
        DECL_ARG_TYPE(p) = ptypes[i];
        DECL_CONTEXT(p) = fn;
        DECL_ARTIFICIAL(p) = 1;
        TREE_USED(p) = 1;
        *tail = p;
        tail = &DECL_CHAIN(p);
    }
}

static tree find_info_address(tree *tp, int *walk_subtrees, void *)
{
    if (TYPE_P(*tp)) {
        *walk_subtrees = 0;
        return NULL_TREE;
    }
    if (TREE_CODE(*tp) == ADDR_EXPR && TREE_CODE(TREE_OPERAND(*tp, 0)) == FUNCTION_DECL) {
        const fn_entry *e = model_find(TREE_OPERAND(*tp, 0));
        if (e && !e->monitor)
            return TREE_OPERAND(*tp, 0);
    }
    return NULL_TREE;
}

/* &info in a file-scope initializer: no function body will show it. */
static void check_static_initializers(void)
{
    varpool_node *var;
    FOR_EACH_VARIABLE(var)
    {
        tree init = DECL_INITIAL(var->decl);
        if (!init || init == error_mark_node)
            continue;
        tree fn = walk_tree_without_duplicates(&init, find_info_address, NULL);
        if (fn)
            error_at(user_loc(DECL_SOURCE_LOCATION(var->decl)),
                     "tf: the address of info function %qD is taken; info functions may only be called",
                     fn);
    }
}

/* An alias or ifunc written in the source has no body of its own: the
 * annotation would be lost without a word. */
static void warn_monitored_alias(tree decl)
{
    if (!lookup_attribute("tf_monitor", DECL_ATTRIBUTES(decl)))
        return;
    bool ifunc = lookup_attribute("ifunc", DECL_ATTRIBUTES(decl));
    if (ifunc || lookup_attribute("alias", DECL_ATTRIBUTES(decl)))
        warning_at(user_loc(DECL_SOURCE_LOCATION(decl)), 0, "tf: %qD is not instrumented: %s", decl,
                   core::skip_reason(ifunc ? core::skip::ifunc : core::skip::alias));
}

static void model_build_1(void);

void model_build(void)
{
    if (tu.built)
        return;
    tu.built = true;
    /* Diagnostics here are about the TU, not the function being lowered. */
    tree saved = current_function_decl;
    current_function_decl = NULL_TREE;
    model_build_1();
    current_function_decl = saved;
}
static void model_build_1(void)
{
    if (!opts.rules.empty())
        rules_load(opts.rules.c_str());
    check_subgroups();
    std::vector<candidate> cands;
    cgraph_node *node;
    FOR_EACH_FUNCTION(node)
    {
        candidate c;
        if (node->definition && !node->alias && !node->thunk && classify(node->decl, c))
            cands.push_back(c);
        else if (node->alias)
            warn_monitored_alias(node->decl);
    }
    build_names(cands);
    for (const candidate &k : cands)
        if (!k.c.monitor && !opts.off)
            add_info_params(k.decl);
    if (tu.has_info)
        check_static_initializers();
    if (!opts.off && !seen_error()) {
        for (const std::string &g : tu.table.used_groups)
            abi_holder(g);
        abi_emit_data();
    }
    const core::name_table &t = tu.table;
    if (opts.verbose)
        for (size_t i = 0; i < t.names.size(); i++)
            inform(tu.locs[i], "tf: id %d %qs flags %u group %qs", (int)i, t.names[i].name.c_str(),
                   t.names[i].flags, t.names[i].group >= 0 ? t.used_groups[t.names[i].group].c_str() : "");
}

const fn_entry *model_find(tree fndecl)
{
    auto it = tu.fns.find(DECL_UID(fndecl));
    return it == tu.fns.end() ? NULL : &it->second;
}

} // namespace tf
