/*
 * rules.cc: the rules file (DESIGN section 5, a contract): monitor functions
 * of sources nobody annotated.
 *
 *   group   lua  lua_core lua_lib     declare a group, optional subgroups
 *   monitor lua_lib  l*lib.c  *       monitor GROUP FILE_GLOB FUNCTION_GLOB
 *   exclude *        luaV_execute     exclude FILE_GLOB FUNCTION_GLOB
 *
 * A malformed line is an error at rules-file:line:column and fails the
 * compilation. The file is read when the TU is complete, so its lines can be
 * given real GCC locations (a line map of their own) and GCC prints them in
 * its usual style, with the offending line quoted.
 */
#include "tf-plugin.h"

namespace tf {

struct rule {
    bool exclude;
    std::string group, file_glob, fn_glob;
};
static std::vector<rule> rules;

struct token {
    std::string text;
    int column;
};

static location_t rules_loc(const char *path, int line, int column)
{
    static bool entered;
    if (!entered) {
        linemap_add(line_table, LC_ENTER, false, xstrdup(path), 1);
        entered = true;
    }
    linemap_line_start(line_table, line, 256);
    return linemap_position_for_column(line_table, column);
}

static std::vector<token> split(const std::string &text)
{
    std::vector<token> out;
    size_t i = 0;
    while (i < text.size()) {
        if (text[i] == '#')
            break;
        if (ISSPACE(text[i])) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < text.size() && !ISSPACE(text[i]) && text[i] != '#')
            i++;
        out.push_back({text.substr(start, i - start), (int)start + 1});
    }
    return out;
}

/* Returns the column of the first bad token, or 0. */
static int check_arity(const std::vector<token> &t, size_t want, size_t max, int eol)
{
    if (t.size() < want)
        return eol;
    if (t.size() > max)
        return t[max].column;
    return 0;
}

static void parse_line(const char *path, int line, const std::string &text)
{
    std::vector<token> t = split(text);
    if (t.empty())
        return;
    const std::string &verb = t[0].text;
    int eol = (int)text.size() + 1, bad;
    if (verb == "group") {
        if ((bad = check_arity(t, 2, (size_t)-1, eol))) {
            error_at(rules_loc(path, line, bad), "tf: rules: %<group%> needs a group name");
            return;
        }
        std::vector<std::string> subs;
        for (size_t i = 1; i < t.size(); i++)
            if (!ident_p(t[i].text)) {
                error_at(rules_loc(path, line, t[i].column),
                         "tf: rules: group name %qs is not an identifier", t[i].text.c_str());
                return;
            } else if (i > 1)
                subs.push_back(t[i].text);
        group_declare(t[1].text, subs, rules_loc(path, line, t[1].column));
    } else if (verb == "monitor") {
        if ((bad = check_arity(t, 4, 4, eol))) {
            error_at(rules_loc(path, line, bad),
                     "tf: rules: expected %<monitor GROUP FILE_GLOB FUNCTION_GLOB%>");
            return;
        }
        if (!groups.count(t[1].text)) {
            error_at(rules_loc(path, line, t[1].column),
                     "tf: rules: group %qs is not declared (add a %<group%> line before)",
                     t[1].text.c_str());
            return;
        }
        rules.push_back({false, t[1].text, t[2].text, t[3].text});
    } else if (verb == "exclude") {
        if ((bad = check_arity(t, 3, 3, eol))) {
            error_at(rules_loc(path, line, bad), "tf: rules: expected %<exclude FILE_GLOB FUNCTION_GLOB%>");
            return;
        }
        rules.push_back({true, "", t[1].text, t[2].text});
    } else
        error_at(rules_loc(path, line, t[0].column),
                 "tf: rules: unknown directive %qs (expected group, monitor or exclude)", verb.c_str());
}

void rules_load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        error_at(UNKNOWN_LOCATION, "tf: cannot open rules file %qs: %m", path);
        return;
    }
    char buf[4096];
    int line = 0;
    std::string text;
    while (fgets(buf, sizeof buf, f)) {
        text += buf;
        if (!text.empty() && text.back() != '\n' && !feof(f))
            continue; /* a line longer than buf */
        line++;
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
            text.pop_back();
        parse_line(path, line, text);
        text.clear();
    }
    fclose(f);
}

static bool file_matches(const std::string &glob, const char *file)
{
    const char *base = lbasename(file);
    return !fnmatch(glob.c_str(), file, 0) || !fnmatch(glob.c_str(), base, 0);
}

const char *rules_match(const char *file, const char *fn)
{
    const char *group = NULL;
    for (const rule &r : rules) {
        if (!file_matches(r.file_glob, file) || fnmatch(r.fn_glob.c_str(), fn, 0))
            continue;
        if (r.exclude)
            return NULL;
        if (!group)
            group = r.group.c_str();
    }
    return group;
}

} // namespace tf
