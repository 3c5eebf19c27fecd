#include "rules.h"

#include <fnmatch.h>

#include "spelling.h"

namespace tf {
namespace core {

namespace {

struct word {
    std::string text;
    unsigned column;
};

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<word> split_line(const std::string &line)
{
    std::vector<word> words;
    size_t i = 0;
    while (i < line.size() && line[i] != '#') {
        if (blank(line[i])) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < line.size() && !blank(line[i]) && line[i] != '#')
            i++;
        words.push_back({line.substr(start, i - start), unsigned(start + 1)});
    }
    return words;
}

bool glob_matches(const std::string &glob, const std::string &s)
{
    return fnmatch(glob.c_str(), s.c_str(), 0) == 0;
}

bool file_matches(const std::string &glob, const std::string &file)
{
    size_t slash = file.find_last_of('/');
    return glob_matches(glob, file) ||
           (slash != std::string::npos && glob_matches(glob, file.substr(slash + 1)));
}

/* Too few words: the end of the line; too many: the first extra one. */
unsigned arity(const std::vector<word> &w, size_t want, size_t max, unsigned eol)
{
    if (w.size() < want)
        return eol;
    if (w.size() > max)
        return w[max].column;
    return 0;
}

struct line_parser {
    rules &r;
    std::vector<rule_error> &errors;
    unsigned line;

    void error(unsigned column, const std::string &msg) { errors.push_back({line, column, msg}); }

    bool identifier(const word &w)
    {
        if (is_identifier(w.text))
            return true;
        error(w.column, "group name '" + w.text + "' is not an identifier");
        return false;
    }

    void group(const std::vector<word> &w, unsigned eol)
    {
        if (unsigned bad = arity(w, 2, size_t(-1), eol))
            return error(bad, "'group' needs a group name");
        for (size_t i = 1; i < w.size(); i++)
            if (!identifier(w[i]))
                return;
        rules::group g{w[1].text, {}, line, w[1].column};
        for (size_t i = 2; i < w.size(); i++)
            g.subgroups.push_back(w[i].text);
        r.groups.push_back(g);
    }

    void monitor(const std::vector<word> &w, unsigned eol)
    {
        if (unsigned bad = arity(w, 4, 4, eol))
            return error(bad, "expected 'monitor GROUP FILE_GLOB FUNCTION_GLOB'");
        if (identifier(w[1]))
            r.monitors.push_back({w[1].text, w[2].text, w[3].text, line, w[1].column});
    }

    void exclude(const std::vector<word> &w, unsigned eol)
    {
        if (unsigned bad = arity(w, 3, 3, eol))
            return error(bad, "expected 'exclude FILE_GLOB FUNCTION_GLOB'");
        r.excludes.push_back({"", w[1].text, w[2].text, line, 0});
    }

    void parse(const std::string &text)
    {
        std::vector<word> w = split_line(text);
        unsigned eol = unsigned(text.size()) + 1;
        if (w.empty())
            return;
        if (w[0].text == "group")
            group(w, eol);
        else if (w[0].text == "monitor")
            monitor(w, eol);
        else if (w[0].text == "exclude")
            exclude(w, eol);
        else
            error(w[0].column, "unknown directive '" + w[0].text + "' (expected group, monitor or exclude)");
    }
};

} // namespace

bool rules::parse(const std::string &text, std::vector<rule_error> &errors)
{
    size_t before = errors.size();
    unsigned line = 0;
    for (size_t pos = 0; pos < text.size();) {
        size_t nl = text.find('\n', pos);
        size_t end = nl == std::string::npos ? text.size() : nl;
        line_parser{*this, errors, ++line}.parse(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return errors.size() == before;
}

std::string rules::group_for(const std::string &file, const std::string &function) const
{
    for (const match &e : excludes)
        if (file_matches(e.file_glob, file) && glob_matches(e.fn_glob, function))
            return "";
    for (const match &m : monitors)
        if (file_matches(m.file_glob, file) && glob_matches(m.fn_glob, function))
            return m.group;
    return "";
}

} // namespace core
} // namespace tf
