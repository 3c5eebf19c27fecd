#include "rules.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The whole path, or its last components, as many as the glob has: "src/io.c"
 * is written the way users name a file of their tree, whatever directory the
 * compiler was given it from (../src/io.c, an absolute path), and "l*.c"
 * still looks at base names only (a '*' matches '/' too: "lua/rmain.c" is no
 * file "l*.c" means). */
bool file_matches(const std::string &glob, const std::string &file)
{
    if (glob_matches(glob, file))
        return true;
    size_t parts = size_t(std::count(glob.begin(), glob.end(), '/')) + 1;
    size_t at = file.size();
    while (parts-- && at != std::string::npos && at > 0)
        at = file.find_last_of('/', at - 1);
    return at != std::string::npos && glob_matches(glob, file.substr(at + 1));
}

/* The end of a bracket expression starting at glob[i] == '[' (the index of
 * its ']'), or npos when none closes it. A ']' first (after '!' or '^') is a
 * member; "[:class:]", "[=e=]" and "[.c.]" are skipped whole. */
size_t bracket_end(const std::string &glob, size_t i)
{
    size_t j = i + 1;
    if (j < glob.size() && (glob[j] == '!' || glob[j] == '^'))
        j++;
    if (j < glob.size() && glob[j] == ']')
        j++;
    for (; j < glob.size(); j++) {
        if (glob[j] == ']')
            return j;
        if (glob[j] == '\\')
            j++;
        else if (glob[j] == '[' && j + 1 < glob.size() && strchr(":=.", glob[j + 1])) {
            size_t close = glob.find(std::string(1, glob[j + 1]) + "]", j + 2);
            if (close == std::string::npos)
                return close;
            j = close + 1;
        }
    }
    return std::string::npos;
}

/* fnmatch takes an unterminated '[' or a trailing '\' literally, so such a
 * glob would silently match nothing the user meant: 0-based offset of the
 * culprit and what is wrong, or npos. */
size_t glob_problem(const std::string &glob, std::string &why)
{
    for (size_t i = 0; i < glob.size(); i++) {
        if (glob[i] == '\\') {
            if (i + 1 == glob.size()) {
                why = "ends with a lone '\\'";
                return i;
            }
            i++;
        } else if (glob[i] == '[') {
            size_t end = bracket_end(glob, i);
            if (end == std::string::npos) {
                why = "has a '[' that no ']' closes";
                return i;
            }
            i = end;
        }
    }
    return std::string::npos;
}

const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
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
        rules::group g{w[1].text, {}, line, w[1].column, {}};
        for (size_t i = 2; i < w.size(); i++) {
            g.subgroups.push_back(w[i].text);
            g.subgroup_columns.push_back(w[i].column);
        }
        r.groups.push_back(g);
    }

    bool glob(const word &w)
    {
        std::string why;
        size_t at = glob_problem(w.text, why);
        if (at == std::string::npos)
            return true;
        error(w.column + unsigned(at), "glob '" + w.text + "' " + why);
        return false;
    }

    void monitor(const std::vector<word> &w, unsigned eol)
    {
        if (unsigned bad = arity(w, 4, 4, eol))
            return error(bad, "expected 'monitor GROUP FILE_GLOB FUNCTION_GLOB'");
        if (identifier(w[1]) & glob(w[2]) & glob(w[3]))
            r.monitors.push_back({w[1].text, w[2].text, w[3].text, line, w[1].column});
    }

    void exclude(const std::vector<word> &w, unsigned eol)
    {
        if (unsigned bad = arity(w, 3, 3, eol))
            return error(bad, "expected 'exclude FILE_GLOB FUNCTION_GLOB'");
        if (glob(w[1]) & glob(w[2]))
            r.excludes.push_back({"", w[1].text, w[2].text, line, 0});
    }

    void min_size(const std::vector<word> &w, unsigned eol)
    {
        if (unsigned bad = arity(w, 2, 2, eol))
            return error(bad, "expected 'min-size N'");
        if (r.min_size_line)
            return error(w[0].column, "'min-size' given twice (first on line " +
                                          std::to_string(r.min_size_line) + ")");
        std::string why = parse_min_size(w[1].text, r.min_size);
        if (!why.empty())
            return error(w[1].column, why);
        r.min_size_line = line;
    }

    void parse(const std::string &text)
    {
        size_t nul = text.find('\0');
        if (nul != std::string::npos)
            return error(unsigned(nul + 1), "NUL byte (is this a text file?)");
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
        else if (w[0].text == "min-size")
            min_size(w, eol);
        else
            error(w[0].column, with_hint("unknown directive '" + w[0].text +
                                             "' (expected group, monitor, exclude or min-size)",
                                         w[0].text, {"group", "monitor", "exclude", "min-size"}));
    }
};

} // namespace

bool rules::read(const std::string &path, std::string &text, std::string &error)
{
    /* Non-blocking, so that opening a FIFO with no writer returns at once. */
    int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        error = "cannot read rules file '" + path + "': " + strerror(errno);
        if (fd >= 0)
            close(fd);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error = "rules file '" + path + "' is " + file_kind(st.st_mode) + ", not a regular file";
        close(fd);
        return false;
    }
    text.clear();
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            text.append(buf, size_t(n));
    if (n < 0)
        error = "cannot read rules file '" + path + "': " + strerror(errno);
    close(fd);
    return n == 0;
}

bool rules::parse(const std::string &text_in, std::vector<rule_error> &errors)
{
    size_t before = errors.size();
    unsigned line = 0;
    std::string text = text_in;
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) /* a UTF-8 BOM: blanks, so columns stay the file's */
        text.replace(0, 3, "   ");
    for (size_t pos = 0; pos < text.size();) {
        size_t nl = text.find('\n', pos);
        size_t end = nl == std::string::npos ? text.size() : nl;
        line_parser{*this, errors, ++line}.parse(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return errors.size() == before;
}

std::string rules::group_for(const std::string &file, const std::string &function,
                             unsigned *line) const
{
    for (const match &e : excludes)
        if (file_matches(e.file_glob, file) && glob_matches(e.fn_glob, function))
            return "";
    for (const match &m : monitors)
        if (file_matches(m.file_glob, file) && glob_matches(m.fn_glob, function)) {
            if (line)
                *line = m.line;
            return m.group;
        }
    return "";
}

void rules::choose(unsigned line)
{
    if (std::find(chosen.begin(), chosen.end(), line) == chosen.end())
        chosen.insert(std::upper_bound(chosen.begin(), chosen.end(), line), line);
}

std::vector<unsigned> rules::monitor_lines() const
{
    std::vector<unsigned> lines;
    for (const match &m : monitors)
        lines.push_back(m.line);
    return lines;
}

} // namespace core
} // namespace tf
