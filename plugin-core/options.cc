#include "options.h"

#include "size.h"
#include "spelling.h"

namespace tf {
namespace core {

namespace {

typedef std::string (*setter)(options &o, const char *value);

std::string set_verbose(options &o, const char *value)
{
    if (!value) {
        o.verbose = 1;
        return "";
    }
    if (value[0] < '0' || value[0] > '2' || value[1])
        return "wants a level 0, 1 or 2";
    o.verbose = value[0] - '0';
    return "";
}

std::string set_file(std::string &field, const char *value)
{
    if (!value || !*value)
        return "wants a file name";
    field = value;
    return "";
}

std::string set_manifest(options &o, const char *value) { return set_file(o.manifest, value); }
std::string set_rules(options &o, const char *value) { return set_file(o.rules, value); }

std::string set_off(options &o, const char *value)
{
    std::string v = value ? value : "1";
    if (v != "0" && v != "1")
        return "wants 0 or 1 (or no value, meaning 1)";
    o.off = v == "1";
    return "";
}

std::string set_min_size(options &o, const char *value)
{
    unsigned n;
    if (!value || !parse_min_size(value, n).empty())
        return "wants a number of operations from 0 to " + std::to_string(max_min_size);
    o.min_size = int(n);
    return "";
}

std::string set_inplace_size(options &o, const char *value)
{
    unsigned n;
    if (!value || !parse_min_size(value, n).empty())
        return "wants a number of operations from 0 to " + std::to_string(max_min_size);
    o.inplace_size = n;
    return "";
}

std::string set_clone_opt(options &o, const char *value)
{
    std::string v = value ? value : "";
    if (v != "light" && v != "full")
        return "wants 'light' or 'full'";
    o.light_clones = v == "light";
    return "";
}

struct option_spec {
    const char *key, *spelling, *help;
    setter set;
};

const option_spec table[] = {
    {"verbose", "verbose=N", "report decisions on stderr (0-2)", set_verbose},
    {"manifest", "manifest=FILE", "write the TU's groups and names as JSON", set_manifest},
    {"rules", "rules=FILE", "monitor functions matched by a rules file", set_rules},
    {"min-size", "min-size=N", "rules: leave functions under N operations plain", set_min_size},
    {"inplace-size", "inplace-size=N",
     "functions of N operations or more that call others keep their hooks in place, no clone", set_inplace_size},
    {"clone-opt", "clone-opt=light|full",
     "traced clones of 10 operations or more: light (GCC -Og, Clang optsize) or f's own level", set_clone_opt},
    {"off", "off", "check annotations, inject nothing (off=0: not off)", set_off},
};

std::string written(const std::string &key, const char *value)
{
    return "'-fplugin-arg-tf-" + key + (value ? "=" + std::string(value) : "") + "'";
}

} // namespace

std::string option_set(options &o, const std::string &key, const char *value)
{
    for (const option_spec &s : table)
        if (key == s.key) {
            std::string err = s.set(o, value);
            return err.empty() ? err : "plugin option " + written(key, value) + " " + err;
        }
    std::string known;
    std::vector<std::string> keys;
    for (const option_spec &s : table) {
        known += std::string(known.empty() ? "" : ", ") + s.spelling;
        keys.push_back(s.key);
    }
    return with_hint("unknown plugin option " + written(key, NULL) + " (known: " + known + ")", key, keys);
}

std::string options_help(void)
{
    std::string out;
    for (const option_spec &s : table) {
        std::string opt = std::string("-fplugin-arg-tf-") + s.spelling;
        out += "  " + opt + std::string(opt.size() < 30 ? 30 - opt.size() : 1, ' ') + s.help + "\n";
    }
    return out;
}

} // namespace core
} // namespace tf
