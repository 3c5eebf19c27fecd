/*
 * model.cc: the TU as TF sees it — which functions are monitored or info
 * functions, their tracing names, the sorted name table (an id is an index in
 * it) and the groups used. Built once, at the first function GCC lowers: by
 * then the whole TU is parsed and every attribute merged into its decl, and no
 * function has been changed yet.
 */
#include "tf-plugin.h"

namespace tf {

model tu;

struct candidate {
    tree decl;
    std::string name, group, file;
    unsigned line;
    bool monitor;
    bool from_rules;
    int tp;
    location_t loc;
};

/* C: the identifier. C++: the qualified name without parameters or return
 * type ("ns::stack::push", "ns::stack::~stack", "ns::max<int>"), as the
 * front end's own printer gives it at verbosity 1. */
std::string tracing_default_name(tree fndecl)
{
    if (!lang_GNU_CXX())
        return IDENTIFIER_POINTER(DECL_NAME(fndecl));
    std::string name = lang_hooks.decl_printable_name(fndecl, 1);
    /* Spelled as Clang spells it, so both plugins give one name. */
    const std::string anon = "{anonymous}";
    for (size_t at; (at = name.find(anon)) != std::string::npos;)
        name.replace(at, anon.size(), "(anonymous namespace)");
    return name;
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
         a = lookup_attribute("tf_monitor", TREE_CHAIN(a)))
        if (strcmp(attr_string(a), group))
            error_at(loc, "tf: %qD has more than one %<TF_MONITOR%> (%qs and %qs)", decl,
                     group, attr_string(a));
    return group;
}

static bool classify(tree decl, candidate &c)
{
    c.decl = decl;
    c.loc = user_loc(DECL_SOURCE_LOCATION(decl));
    expanded_location x = expand_location(c.loc);
    c.file = x.file ? x.file : "";
    c.line = x.line;
    c.tp = -1;
    tree info = lookup_attribute("tf_info", DECL_ATTRIBUTES(decl));
    tree tname = lookup_attribute("tf_tracing_name", DECL_ATTRIBUTES(decl));
    const char *group = monitor_group(decl, c.loc);
    if (info) {
        c.tp = tp_value(attr_string(info));
        /* Checked here, not in the handler: C++ decides linkage after it. */
        if (TREE_PUBLIC(decl)) {
            error_at(c.loc, "tf: info function %qD must be static", decl);
            return false;
        }
    }
    c.from_rules = false;
    if (!info && !group && !DECL_ARTIFICIAL(decl) && DECL_NAME(decl)) {
        group = rules_match(c.file.c_str(), tracing_default_name(decl).c_str());
        c.from_rules = group != NULL;
    }
    if (lookup_attribute("naked", DECL_ATTRIBUTES(decl)) ||
        (c.from_rules && lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(decl)))) {
        if (!c.from_rules && (group || info))
            error_at(c.loc, "tf: %qD is %<naked%>: it has no frame to add hooks to", decl);
        return false; /* rules skip what -finstrument-functions would skip */
    }
    if (!group && !info) {
        if (tname)
            warning_at(c.loc, 0, "tf: %<TF_TRACING_NAME%> on %qD, which is neither monitored nor an info function",
                       decl);
        return false;
    }
    c.monitor = group != NULL;
    c.group = group ? group : "";
    c.name = tname ? attr_string(tname) : tracing_default_name(decl);
    return true;
}

static bool loc_before(const candidate &a, const candidate &b)
{
    return linemap_compare_locations(line_table, a.loc, b.loc) > 0;
}

/* Two entries may share a tracing name only as one TF_TP_ENTER/TF_TP_EXIT
 * info pair; C++ constructor clones (one location) are one function. */
static bool merge(name_entry &e, const candidate &first, const candidate &c)
{
    if (c.loc == first.loc && c.monitor == first.monitor)
        return true;
    unsigned bit = c.tp == 1 ? NAME_TP_ENTER : c.tp == 2 ? NAME_TP_EXIT : 0;
    bool pair = !c.monitor && bit && !(e.flags & NAME_MONITOR) && (e.flags & (NAME_TP_ENTER | NAME_TP_EXIT)) &&
                !(e.flags & bit);
    if (pair) {
        e.flags |= bit;
        return true;
    }
    error_at(c.loc, "tf: tracing name %qs of %qD is already used by %qD in this translation unit",
             c.name.c_str(), c.decl, first.decl);
    inform(first.loc, "tf: %qD is here; give one of them a distinct %<TF_TRACING_NAME%>", first.decl);
    return false;
}

/* Functions monitored by a rules file cannot be given a TF_TRACING_NAME: when
 * their names clash (C++ overloads), the later ones become "name#2", ... */
static void rename_rule_clashes(std::vector<candidate> &cands)
{
    std::map<std::string, std::vector<candidate *>> by_name;
    for (candidate &c : cands)
        by_name[c.name].push_back(&c);
    for (auto &it : by_name) {
        std::vector<candidate *> &v = it.second;
        std::stable_sort(v.begin(), v.end(), [](candidate *a, candidate *b) { return loc_before(*a, *b); });
        int n = 1;
        for (size_t i = 1; i < v.size(); i++)
            if (v[i]->from_rules && v[i]->loc != v[0]->loc)
                v[i]->name += "#" + std::to_string(++n);
    }
}

static void build_names(std::vector<candidate> &cands)
{
    rename_rule_clashes(cands);
    std::stable_sort(cands.begin(), cands.end(), [](const candidate &a, const candidate &b) {
        int c = strcmp(a.name.c_str(), b.name.c_str());
        return c < 0 || (c == 0 && loc_before(a, b));
    });
    std::set<std::string> used;
    for (const candidate &c : cands)
        if (c.monitor)
            used.insert(c.group);
    tu.used_groups.assign(used.begin(), used.end());
    size_t first = 0;
    for (size_t i = 0; i < cands.size(); i++) {
        const candidate &c = cands[i];
        if (i > 0 && c.name == tu.names.back().name) {
            if (merge(tu.names.back(), cands[first], c))
                tu.fns[DECL_UID(c.decl)] = {(int)tu.names.size() - 1, c.monitor, c.tp, c.group};
            continue;
        }
        first = i;
        unsigned flags = c.monitor ? NAME_MONITOR : NAME_INFO;
        if (c.tp == 1)
            flags |= NAME_TP_ENTER;
        if (c.tp == 2)
            flags |= NAME_TP_EXIT;
        int group = -1;
        if (c.monitor)
            group = std::lower_bound(tu.used_groups.begin(), tu.used_groups.end(), c.group) -
                    tu.used_groups.begin();
        tu.names.push_back({c.name, flags, group, c.file, c.line,
                            tracing_default_name(c.decl), c.group, c.loc});
        tu.fns[DECL_UID(c.decl)] = {(int)tu.names.size() - 1, c.monitor, c.tp, c.group};
        if (!c.monitor)
            tu.has_info = true;
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
    std::vector<candidate> cands;
    cgraph_node *node;
    FOR_EACH_FUNCTION(node)
    {
        candidate c;
        if (node->definition && !node->alias && !node->thunk && classify(node->decl, c))
            cands.push_back(c);
    }
    build_names(cands);
    for (const candidate &c : cands)
        if (!c.monitor && !opts.off)
            add_info_params(c.decl);
    if (tu.has_info)
        check_static_initializers();
    if (!opts.off && !seen_error()) {
        for (const std::string &g : tu.used_groups)
            abi_holder(g);
        abi_emit_data();
    }
    if (opts.verbose)
        for (size_t i = 0; i < tu.names.size(); i++)
            inform(tu.names[i].loc, "tf: id %d %qs flags %u group %qs", (int)i,
                   tu.names[i].name.c_str(), tu.names[i].flags, tu.names[i].group_name.c_str());
}

const fn_entry *model_find(tree fndecl)
{
    auto it = tu.fns.find(DECL_UID(fndecl));
    return it == tu.fns.end() ? NULL : &it->second;
}

} // namespace tf
