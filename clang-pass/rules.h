// rules.h: the rules file of DESIGN section 5 (a contract): instrument
// functions of sources one cannot edit, by file and function glob.
//
//   group   NAME [SUBGROUP...]
//   monitor GROUP FILE_GLOB FUNCTION_GLOB    first matching line wins
//   exclude FILE_GLOB FUNCTION_GLOB          always wins
#ifndef TF_CLANG_RULES_H
#define TF_CLANG_RULES_H

#include <string>
#include <vector>

namespace tf {

struct RuleError {
  unsigned line, column;  // 1-based
  std::string message;
};

struct Rules {
  struct Group {
    std::string name;
    std::vector<std::string> subgroups;
    unsigned line, column;
  };
  struct Match {
    std::string group;  // empty for exclude
    std::string fileGlob, fnGlob;
    unsigned line, groupColumn;
  };
  std::vector<Group> groups;
  std::vector<Match> monitors, excludes;

  // Parses text; returns false and fills errors on malformed lines.
  bool parse(const std::string &text, std::vector<RuleError> &errors);
  // The group a function defined in `file` gets, or "" when none applies.
  std::string groupFor(const std::string &file, const std::string &function) const;
};

}  // namespace tf

#endif
