#include "spelling.h"

#include "nearest.h"

namespace tf {
namespace core {

std::string did_you_mean(const std::string &want, const std::vector<std::string> &names,
                         const char *open, const char *close)
{
    tf_nearest near;
    tf_nearest_begin(&near, want.c_str());
    for (const std::string &n : names)
        tf_nearest_offer(&near, n.c_str());
    char hint[512];
    tf_nearest_say_quoted(&near, hint, sizeof hint, open, close);
    tf_nearest_end(&near);
    return hint;
}

std::string with_hint(const std::string &msg, const std::string &want,
                      const std::vector<std::string> &names)
{
    std::string hint = did_you_mean(want, names);
    return hint.empty() ? msg : msg + "; " + hint;
}

bool is_identifier(const std::string &s)
{
    if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    return true;
}

int tp_value(const std::string &text)
{
    static const char *const names[] = {"TF_TP_NONE", "TF_TP_ENTER", "TF_TP_EXIT"};
    for (int i = 0; i < 3; i++)
        if (text == names[i])
            return i;
    return -1;
}

std::string base_name(const std::string &path)
{
    size_t slash = path.find_last_of('/');
    std::string b = slash == std::string::npos ? path : path.substr(slash + 1);
    size_t dot = b.find_last_of('.');
    if (dot != std::string::npos && dot != 0)
        b.resize(dot);
    return b;
}

std::string cxx_name(std::string name)
{
    const std::string anon = "{anonymous}";
    for (size_t at; (at = name.find(anon)) != std::string::npos;)
        name.replace(at, anon.size(), "(anonymous namespace)");
    return name;
}

std::string lambda_name(const std::string &scope, unsigned line, unsigned column)
{
    std::string own = "<lambda " + std::to_string(line) + ":" + std::to_string(column) + ">";
    return scope.empty() ? own : scope + "::" + own;
}

std::string without_parameters(const std::string &demangled)
{
    size_t paren = demangled.find('(');
    return paren == std::string::npos ? demangled : demangled.substr(0, paren);
}

std::string element_code(elem_type t, unsigned bits, unsigned bytes, unsigned count)
{
    char cls = 0;
    if ((t == elem_type::signed_int || t == elem_type::unsigned_int) && bits == bytes * 8)
        cls = t == elem_type::signed_int ? 'i' : 'u';
    else if (t == elem_type::real)
        cls = (bits == 32 && bytes == 4) || (bits == 64 && bytes == 8) ? 'f' : bits == 80 ? 'x' : 0;
    if (!cls || !count)
        return "";
    return cls + std::to_string(bytes) + "*" + std::to_string(count);
}

} // namespace core
} // namespace tf
