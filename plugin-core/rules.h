/*
 * rules.h: the rules file of DESIGN section 5 (a contract): instrument
 * functions of sources one cannot edit, by file and function glob.
 *
 *   group   NAME [SUBGROUP...]
 *   monitor GROUP FILE_GLOB FUNCTION_GLOB    first matching line wins
 *   exclude FILE_GLOB FUNCTION_GLOB          always wins
 *
 * The plugins read the file, hand its text to parse() and report each error
 * at rules-file:line:column in their compiler's style; whether a monitor
 * line's group is declared is theirs to check once the TU's groups are known.
 */
#ifndef TF_CORE_RULES_H
#define TF_CORE_RULES_H

#include <string>
#include <vector>

namespace tf {
namespace core {

struct rule_error {
    unsigned line, column; /* 1-based */
    std::string message;   /* without the "tf: rules: " prefix */
};

struct rules {
    struct group {
        std::string name;
        std::vector<std::string> subgroups;
        unsigned line, column;
    };
    struct match {
        std::string group; /* empty for exclude */
        std::string file_glob, fn_glob;
        unsigned line, group_column;
    };
    std::vector<group> groups;
    std::vector<match> monitors, excludes;

    /* Parses text; returns false and appends to errors on malformed lines. */
    bool parse(const std::string &text, std::vector<rule_error> &errors);
    /* The group of a function defined in `file`, or "" when none applies. */
    std::string group_for(const std::string &file, const std::string &function) const;
};

} // namespace core
} // namespace tf

#endif
