/*
 * rules.cc: the rules file (docs/design.md .rules, a contract) as GCC reads it:
 * plugin-core parses it; this file gives its lines real GCC locations (a
 * line map of their own) so errors print in GCC's usual style with the
 * offending line quoted, and fails the compilation on any of them.
 *
 * It is parsed at the first function body the front end finishes (call
 * lines must be known before calls are rewritten, calls.cc) but reported
 * only once the TU is complete: a line map entered in the middle of parsing
 * would take the place of the file being parsed. By then monitor and call
 * lines may name groups declared in the source as well as in the file.
 */
#include "tf-plugin.h"

#include "rules.h"

namespace tf {

static core::rules rules;
static bool parsed, readable;
static std::string read_error;
static std::vector<core::rule_error> errors;

const core::rules *rules_early(void)
{
    if (!parsed && !opts.rules.empty()) {
        parsed = true;
        std::string text;
        readable = core::rules::read(opts.rules, text, read_error);
        if (readable)
            rules.parse(text, errors);
    }
    return readable ? &rules : NULL;
}

location_t rules_loc(unsigned line, unsigned column)
{
    static bool entered;
    if (!entered) {
        linemap_add(line_table, LC_ENTER, false, xstrdup(opts.rules.c_str()), 1);
        entered = true;
    }
    linemap_line_start(line_table, line, 256);
    return linemap_position_for_column(line_table, column);
}

static void check_group(const std::string &group, unsigned line, unsigned column)
{
    if (!groups.count(group))
        error_at(rules_loc(line, column), "tf: rules: group %qs is not declared (add a %<group%> line)%s",
                 group.c_str(), group_hint(group).c_str());
}

void rules_load(void)
{
    if (!rules_early()) {
        error_at(UNKNOWN_LOCATION, "tf: %s", read_error.c_str());
        return;
    }
    /* Line maps only grow: locations are made in line order. */
    std::sort(errors.begin(), errors.end(), [](const core::rule_error &a, const core::rule_error &b) {
        return a.line < b.line || (a.line == b.line && a.column < b.column);
    });
    size_t e = 0;
    for (const core::rules::group &g : rules.groups) {
        for (; e < errors.size() && errors[e].line < g.line; e++)
            error_at(rules_loc(errors[e].line, errors[e].column), "tf: rules: %s", errors[e].message.c_str());
        location_t at = rules_loc(g.line, g.column);
        std::vector<location_t> sub_locs; /* in line order, as the line map wants */
        for (unsigned column : g.subgroup_columns)
            sub_locs.push_back(rules_loc(g.line, column));
        group_declare(g.name, g.subgroups, at, sub_locs);
    }
    for (; e < errors.size(); e++)
        error_at(rules_loc(errors[e].line, errors[e].column), "tf: rules: %s", errors[e].message.c_str());
    /* Both kinds of line, in line order. */
    std::vector<std::pair<unsigned, std::pair<std::string, unsigned>>> used;
    for (const core::rules::match &m : rules.monitors)
        used.push_back({m.line, {m.group, m.group_column}});
    for (const core::rules::call &c : rules.calls)
        used.push_back({c.line, {c.group, c.group_column}});
    std::sort(used.begin(), used.end());
    for (const auto &u : used)
        check_group(u.second.first, u.first, u.second.second);
}

const char *rules_match(const char *file, const char *fn, unsigned *line)
{
    const core::rules::match *m = rules_early() ? rules.monitor_for(file, fn) : NULL;
    if (line)
        *line = m ? m->line : 0;
    return m ? m->group.c_str() : NULL;
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

unsigned rules_min_size(void)
{
    return opts.min_size >= 0 ? unsigned(opts.min_size) : rules.min_size;
}

} // namespace tf
