/*
 * rules.h: the rules file of docs/design.md .rules (a contract): instrument
 * functions of sources one cannot edit, by file and function glob.
 *
 *   group   NAME [SUBGROUP...]
 *   monitor GROUP FILE_GLOB FUNCTION_GLOB    first matching line wins
 *   exclude FILE_GLOB FUNCTION_GLOB          always wins
 *   min-size N                               smaller functions stay plain (size.h)
 *   call GROUP FILE_GLOB CALLER_GLOB CALLEE_GLOB
 *                                            direct calls become events (call_sites.h);
 *                                            first matching line wins
 *   capture FILE_GLOB FUNCTION_GLOB SPEC [max N]
 *                                            fields behind pointers (capture.h);
 *                                            first matching line wins
 *
 * The plugins read the file, hand its text to parse() and report each error
 * at rules-file:line:column in their compiler's style; whether a monitor
 * or call line's group is declared is theirs to check once the TU's groups
 * are known, and so is a capture SPEC, which only the declared types can
 * settle (capture.h parses it here, so a malformed one is a rules error).
 */
#ifndef TF_CORE_RULES_H
#define TF_CORE_RULES_H

#include <string>
#include <vector>

#include "capture.h"
#include "size.h"

namespace tf {
namespace core {

/* fnmatch(3) without flags, the globs of every directive and of TF_CALLS. */
bool glob_match(const std::string &glob, const std::string &s);
/* "" for a glob fnmatch reads as written, else why not ("glob 'f[ab' has a
 * '[' that no ']' closes"), with at the 0-based offset of the culprit. */
std::string glob_check(const std::string &glob, size_t &at);

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
    /* call GROUP FILE_GLOB CALLER_GLOB CALLEE_GLOB: FILE_GLOB matches the
     * file of the call (the caller's body), as monitor lines match the file
     * that defines a function. */
    struct call {
        std::string group, file_glob, caller_glob, callee_glob;
        unsigned line, group_column;
    };
    /* capture FILE_GLOB FUNCTION_GLOB SPEC [max N]: the SPEC is the rest of
     * the line but a trailing `max N` (blanks inside it are kept). */
    struct capture {
        std::string file_glob, fn_glob, spec;
        unsigned line, spec_column;
        unsigned max; /* bytes of an array captured at most */
    };
    std::vector<group> groups;
    std::vector<match> monitors, excludes;
    std::vector<call> calls;
    std::vector<capture> captures;
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
    /* The monitor line that applies to a function defined in `file`, or
     * NULL (none matches, or an exclude line does). FILE_GLOB matches the
     * path as the compiler sees it, or its last components, as many as the
     * glob has (so "src/io.c" matches "../src/io.c" and
     * "/home/me/p/src/io.c", "io.c" and "i*.c" the base name). */
    const match *monitor_for(const std::string &file, const std::string &function) const;
    /* The group of a function defined in `file`, or "" when none applies;
     * *line: the monitor line that gave it. */
    std::string group_for(const std::string &file, const std::string &function,
                          unsigned *line = nullptr) const;
    /* The first call line matching a call in `file` from caller to callee,
     * or NULL. */
    const call *call_for(const std::string &file, const std::string &caller, const std::string &callee) const;
    /* The first call line matching calls from caller in file, whatever the
     * callee (an indirect call there is listed as not traced), or NULL. */
    const call *call_from(const std::string &file, const std::string &caller) const;
    /* The first capture line matching function fn of file, or NULL. */
    const capture *capture_for(const std::string &file, const std::string &fn) const;
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
