/*
 * rules.h: the rules file of docs/design.md .rules (a contract): instrument
 * functions of sources one cannot edit, by file and function glob.
 *
 *   group   NAME [SUBGROUP...]
 *   monitor GROUP FILE_GLOB FUNCTION_GLOB    first matching line wins
 *   exclude FILE_GLOB FUNCTION_GLOB          always wins
 *   min-size N                               smaller functions stay plain (size.h)
 *
 * The plugins read the file, hand its text to parse() and report each error
 * at rules-file:line:column in their compiler's style; whether a monitor
 * line's group is declared is theirs to check once the TU's groups are known.
 */
#ifndef TF_CORE_RULES_H
#define TF_CORE_RULES_H

#include <string>
#include <vector>

#include "size.h"

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
        std::vector<unsigned> subgroup_columns; /* where each of subgroups is */
    };
    struct match {
        std::string group; /* empty for exclude */
        std::string file_glob, fn_glob;
        unsigned line, group_column;
    };
    std::vector<group> groups;
    std::vector<match> monitors, excludes;
    unsigned min_size = default_min_size; /* size.h; 0: every function */
    unsigned min_size_line = 0;           /* its line; 0 when not written */

    /* Reads the rules file at path into text: a regular file only (a FIFO
     * would block the compiler, a directory is no file of rules). On
     * failure returns false with the reason in error, naming the path. */
    static bool read(const std::string &path, std::string &text, std::string &error);
    /* Parses text; returns false and appends to errors on malformed lines:
     * also a NUL byte and an unterminated glob ('[abc', a trailing '\').
     * A UTF-8 byte order mark at the start is skipped. */
    bool parse(const std::string &text, std::vector<rule_error> &errors);
    /* The group of a function defined in `file`, or "" when none applies;
     * *line: the monitor line that gave it. FILE_GLOB matches the path as
     * the compiler sees it, or its last components, as many as the glob
     * has (so "src/io.c" matches "../src/io.c" and "/home/me/p/src/io.c",
     * "io.c" and "i*.c" the base name). */
    std::string group_for(const std::string &file, const std::string &function,
                          unsigned *line = nullptr) const;
    /* Monitor lines that took a function of the TU (the plugins note them
     * where they instrument it, or leave it plain as too small): a line no
     * TU of a build chose is said by tf-scan and the merged manifest
     * (docs/design.md .silent.rules). */
    std::vector<unsigned> chosen;
    void choose(unsigned line);
    std::vector<unsigned> monitor_lines() const;
};

} // namespace core
} // namespace tf

#endif
