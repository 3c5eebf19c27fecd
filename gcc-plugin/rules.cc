/*
 * rules.cc: the rules file (docs/design.md .rules, a contract) as GCC reads it:
 * plugin-core parses it; this file gives its lines real GCC locations (a
 * line map of their own) so errors print in GCC's usual style with the
 * offending line quoted, and fails the compilation on any of them. It is
 * read when the TU is complete, so monitor lines may name groups declared
 * in the source as well as in the file.
 */
#include "tf-plugin.h"

#include "rules.h"

namespace tf {

static core::rules rules;

static location_t rules_loc(const char *path, unsigned line, unsigned column)
{
    static bool entered;
    if (!entered) {
        linemap_add(line_table, LC_ENTER, false, xstrdup(path), 1);
        entered = true;
    }
    linemap_line_start(line_table, line, 256);
    return linemap_position_for_column(line_table, column);
}

void rules_load(const char *path)
{
    std::string text, why;
    if (!core::rules::read(path, text, why)) {
        error_at(UNKNOWN_LOCATION, "tf: %s", why.c_str());
        return;
    }
    std::vector<core::rule_error> errors;
    rules.parse(text, errors);
    /* Line maps only grow: locations are made in line order. */
    std::sort(errors.begin(), errors.end(), [](const core::rule_error &a, const core::rule_error &b) {
        return a.line < b.line || (a.line == b.line && a.column < b.column);
    });
    size_t e = 0;
    for (const core::rules::group &g : rules.groups) {
        for (; e < errors.size() && errors[e].line < g.line; e++)
            error_at(rules_loc(path, errors[e].line, errors[e].column), "tf: rules: %s", errors[e].message.c_str());
        location_t at = rules_loc(path, g.line, g.column);
        std::vector<location_t> sub_locs; /* in line order, as the line map wants */
        for (unsigned column : g.subgroup_columns)
            sub_locs.push_back(rules_loc(path, g.line, column));
        group_declare(g.name, g.subgroups, at, sub_locs);
    }
    for (; e < errors.size(); e++)
        error_at(rules_loc(path, errors[e].line, errors[e].column), "tf: rules: %s", errors[e].message.c_str());
    for (const core::rules::match &m : rules.monitors)
        if (!groups.count(m.group))
            error_at(rules_loc(path, m.line, m.group_column),
                     "tf: rules: group %qs is not declared (add a %<group%> line)%s", m.group.c_str(),
                     group_hint(m.group).c_str());
}

const char *rules_match(const char *file, const char *fn, unsigned *line)
{
    static std::string group;
    group = rules.group_for(file, fn, line);
    return group.empty() ? NULL : group.c_str();
}

void rules_choose(unsigned line)
{
    rules.choose(line);
}

void rules_lines(std::vector<unsigned> &monitors, std::vector<unsigned> &chosen)
{
    monitors = rules.monitor_lines();
    chosen = rules.chosen;
}

} // namespace tf

namespace tf {

unsigned rules_min_size(void)
{
    return opts.min_size >= 0 ? unsigned(opts.min_size) : rules.min_size;
}

} // namespace tf
