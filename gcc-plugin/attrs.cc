/*
 * attrs.cc: the four attributes tf.h expands to, with the checks that can be
 * made where the annotation is written (docs/design.md .attr.diag). Checks that
 * need the whole TU (name clashes, callers of info functions) are in model.cc
 * and instrument.cc.
 */
#include "tf-plugin.h"

#include "groups.h"
#include "spelling.h"

namespace tf {

std::map<std::string, group_decl> groups;
bool active = true;

location_t user_loc(location_t loc)
{
    /* A token pasted by TF_GROUP lives in tf.h's macro body; the user wants
     * the place where the macro was used. */
    return linemap_resolve_location(line_table, loc, LRK_MACRO_EXPANSION_POINT, NULL);
}

static std::map<std::pair<std::string, std::string>, unsigned> monitors_written;

static std::string fn_name(tree fn)
{
    return DECL_NAME(fn) ? IDENTIFIER_POINTER(DECL_NAME(fn)) : "";
}

unsigned monitor_written(tree fn, const char *group)
{
    auto it = monitors_written.find({fn_name(fn), group});
    return it == monitors_written.end() ? -1u : it->second;
}

static const char *string_arg(tree args, int n)
{
    for (; args && n > 0; n--)
        args = TREE_CHAIN(args);
    if (!args)
        return NULL;
    tree value = TREE_VALUE(args);
    STRIP_ANY_LOCATION_WRAPPER(value);
    if (TREE_CODE(value) != STRING_CST)
        return NULL;
    return TREE_STRING_POINTER(value);
}

static location_t node_loc(tree node)
{
    if (DECL_P(node))
        return user_loc(DECL_SOURCE_LOCATION(node));
    return user_loc(input_location);
}

static const std::vector<std::string> *subgroups_of(const std::string &name)
{
    auto it = groups.find(name);
    return it == groups.end() ? NULL : &it->second.subs;
}

void group_declare(const std::string &name, const std::vector<std::string> &subs, location_t loc,
                   const std::vector<location_t> &sub_locs)
{
    if (!core::is_identifier(name)) {
        error_at(loc, "tf: group name %qs is not an identifier", name.c_str());
        return;
    }
    group_decl &g = groups[name];
    if (g.name.empty()) {
        g.name = name;
        g.loc = loc;
    }
    for (size_t i = 0; i < subs.size(); i++) {
        const std::string &sub = subs[i];
        location_t at = i < sub_locs.size() ? sub_locs[i] : loc;
        if (!core::is_identifier(sub)) {
            error_at(loc, "tf: subgroup name %qs of group %qs is not an identifier",
                     sub.c_str(), name.c_str());
            continue;
        }
        if (std::find(g.subs.begin(), g.subs.end(), sub) != g.subs.end())
            continue;
        if (core::closes_cycle(subgroups_of, name, sub)) {
            error_at(loc, "tf: subgroup cycle: group %qs would contain itself through %qs",
                     name.c_str(), sub.c_str());
            continue;
        }
        group_decl &d = groups[name];
        d.subs.push_back(sub);
        d.sub_locs.push_back(at);
        d.sub_ruled.push_back(!sub_locs.empty());
    }
}

std::string group_hint(const std::string &want)
{
    std::vector<std::string> names;
    for (const auto &g : groups)
        names.push_back(g.first);
    std::string hint = core::did_you_mean(want, names, open_quote, close_quote);
    return hint.empty() ? hint : "; " + hint;
}

void check_subgroups(void)
{
    static bool checked;
    if (checked)
        return;
    checked = true;
    for (const auto &g : groups)
        for (size_t i = 0; i < g.second.subs.size(); i++) {
            const std::string &sub = g.second.subs[i];
            if (groups.count(sub))
                continue;
            std::string hint = group_hint(sub);
            if (g.second.sub_ruled[i])
                error_at(g.second.sub_locs[i], "tf: rules: subgroup %qs of group %qs is not declared "
                         "(add a %<group %s%> line)%s", sub.c_str(), g.first.c_str(), sub.c_str(), hint.c_str());
            else
                error_at(g.second.sub_locs[i], "tf: subgroup %qs of group %qs is not declared; add "
                         "%<TF_GROUP(%s)%> to this file%s", sub.c_str(), g.first.c_str(), sub.c_str(),
                         hint.c_str());
        }
}

/* TF_GROUP(name, subs...) -> extern const char tf_group__name
 *                             __attribute__((tf_group("name", "subs, "))) */
static tree handle_group(tree *node, tree, tree args, int, bool *no_add)
{
    location_t loc = node_loc(*node);
    const char *name = string_arg(args, 0), *list = string_arg(args, 1);
    if (!name || !list || TREE_CODE(*node) != VAR_DECL) {
        error_at(loc, "tf: %<tf_group%> is written only by %<TF_GROUP(name, subgroups...)%>");
        *no_add = true;
        return NULL_TREE;
    }
    std::vector<std::string> subs;
    std::string item;
    for (const char *p = list;; p++) {
        if (*p == ',' || *p == '\0') {
            size_t b = item.find_first_not_of(" \t\n"), e = item.find_last_not_of(" \t\n");
            if (b != std::string::npos)
                subs.push_back(item.substr(b, e - b + 1));
            item.clear();
            if (*p == '\0')
                break;
        } else
            item += *p;
    }
    group_declare(name, subs, loc);
    return NULL_TREE;
}

/* An info function's body is empty by design (its parameters are what the
 * hook reports), so -Wunused-parameter, which the front ends give before
 * any later event, must not warn about them. C++ has the parameters and
 * attributes by PLUGIN_START_PARSE_FUNCTION: they are marked used. C applies
 * attributes after that event and stores the parameters later still: the
 * warning is ignored from the function's name (before its parameters) to
 * its end, as #pragma GCC diagnostic push/ignored/pop would, from the
 * attribute's handler (or PLUGIN_START_PARSE_FUNCTION of a function declared
 * TF_INFO before) to PLUGIN_FINISH_PARSE_FUNCTION (or PLUGIN_FINISH_DECL
 * when it was a declaration only). */
static tree info_ignoring; /* the C function whose parameters are not warned about */
static std::set<tree> info_names; /* identifiers of info functions, for a later definition */

static void ignore_unused_parameters(tree fn)
{
    info_names.insert(DECL_NAME(fn));
    if (lang_GNU_CXX() || info_ignoring)
        return;
    diagnostic_push_diagnostics(global_dc, DECL_SOURCE_LOCATION(fn));
    diagnostic_classify_diagnostic(global_dc, OPT_Wunused_parameter, DK_IGNORED, DECL_SOURCE_LOCATION(fn));
    info_ignoring = DECL_NAME(fn);
}

static void warn_again(void)
{
    if (info_ignoring)
        diagnostic_pop_diagnostics(global_dc, input_location);
    info_ignoring = NULL_TREE;
}

void info_params_used(void *gcc_data, void *)
{
    tree fn = (tree)gcc_data;
    if (!fn || TREE_CODE(fn) != FUNCTION_DECL ||
        (!info_names.count(DECL_NAME(fn)) && !lookup_attribute("tf_info", DECL_ATTRIBUTES(fn))))
        return;
    ignore_unused_parameters(fn); /* C: the definition of one declared TF_INFO before */
    for (tree p = DECL_ARGUMENTS(fn); p; p = DECL_CHAIN(p)) {
        TREE_USED(p) = 1;
        DECL_READ_P(p) = 1;
    }
}

void info_params_done(void *, void *)
{
    warn_again();
}

void info_declared(void *gcc_data, void *)
{
    tree decl = (tree)gcc_data;
    if (info_ignoring && decl && TREE_CODE(decl) == FUNCTION_DECL && DECL_NAME(decl) == info_ignoring)
        warn_again(); /* a declaration, no body: nothing to warn about */
}

static bool function_only(tree node, const char *macro, bool *no_add)
{
    if (TREE_CODE(node) == FUNCTION_DECL)
        return true;
    error_at(node_loc(node), "tf: %qs applies only to functions", macro);
    *no_add = true;
    return false;
}

static tree handle_monitor(tree *node, tree, tree args, int, bool *no_add)
{
    if (!function_only(*node, "TF_MONITOR", no_add))
        return NULL_TREE;
    tree fn = *node;
    location_t loc = node_loc(fn);
    const char *group = string_arg(args, 0);
    if (!group) {
        error_at(loc, "tf: %<tf_monitor%> takes a group name; use %<TF_MONITOR(group)%>");
        *no_add = true;
    } else if (!groups.count(group)) {
        error_at(loc, "tf: group %qs of %qD is not declared; add %<TF_GROUP(%s)%> before this use%s",
                 group, fn, group, group_hint(group).c_str());
        *no_add = true;
    } else if (lookup_attribute("tf_monitor", DECL_ATTRIBUTES(fn))) {
        error_at(loc, "tf: %qD has more than one %<TF_MONITOR%>", fn);
        *no_add = true;
    } else if (lookup_attribute("tf_info", DECL_ATTRIBUTES(fn))) {
        error_at(loc, "tf: %qD is both %<TF_MONITOR%> and %<TF_INFO%>", fn);
        *no_add = true;
    }
    if (!*no_add)
        monitors_written.emplace(std::make_pair(fn_name(fn), std::string(group)), monitors_written.size());
    return NULL_TREE;
}

static tree handle_info(tree *node, tree, tree args, int, bool *no_add)
{
    if (!function_only(*node, "TF_INFO", no_add))
        return NULL_TREE;
    tree fn = *node;
    location_t loc = node_loc(fn);
    const char *tp = string_arg(args, 0);
    *no_add = true;
    if (!tp || core::tp_value(tp) < 0)
        error_at(loc, "tf: %qs is not a timing-point type; use %<TF_TP_NONE%>, %<TF_TP_ENTER%> or %<TF_TP_EXIT%>",
                 tp ? tp : "?");
    else if (!VOID_TYPE_P(TREE_TYPE(TREE_TYPE(fn))))
        error_at(loc, "tf: info function %qD must return void", fn);
    else if (stdarg_p(TREE_TYPE(fn)))
        error_at(loc, "tf: info function %qD must not be variadic", fn);
    else if (lookup_attribute("tf_monitor", DECL_ATTRIBUTES(fn)))
        error_at(loc, "tf: %qD is both %<TF_MONITOR%> and %<TF_INFO%>", fn);
    else if (lookup_attribute("tf_info", DECL_ATTRIBUTES(fn)))
        error_at(loc, "tf: %qD has more than one %<TF_INFO%>", fn);
    else
        *no_add = false;
    if (!*no_add)
        ignore_unused_parameters(fn);
    return NULL_TREE;
}

static tree handle_tracing_name(tree *node, tree, tree args, int, bool *no_add)
{
    if (!function_only(*node, "TF_TRACING_NAME", no_add))
        return NULL_TREE;
    const char *name = string_arg(args, 0);
    if (!name || !*name) {
        error_at(node_loc(*node), "tf: %<TF_TRACING_NAME%> of %qD takes a non-empty string literal",
                 *node);
        *no_add = true;
    }
    return NULL_TREE;
}

static struct attribute_spec specs[] = {
    TF_ATTRIBUTE("tf_group", 2, 2, handle_group),
    TF_ATTRIBUTE("tf_monitor", 1, 1, handle_monitor),
    TF_ATTRIBUTE("tf_info", 1, 1, handle_info),
    TF_ATTRIBUTE("tf_tracing_name", 1, 1, handle_tracing_name),
};

void register_attributes(void *, void *)
{
    /* A second copy of the plugin (another file name) must not register the
     * attributes again: GCC would assert. It stays inactive instead. */
    if (lookup_attribute_spec(get_identifier("tf_monitor"))) {
        active = false;
        return;
    }
    for (const attribute_spec &spec : specs)
        register_attribute(&spec);
}

} // namespace tf
