// rules.cpp: parser and matcher of the rules file (see rules.h).
#include "rules.h"

#include <fnmatch.h>

#include "model.h"

namespace tf {

namespace {
struct Word {
  std::string text;
  unsigned column;
};

std::vector<Word> splitLine(const std::string &line) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '#') break;
    if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
      i++;
      continue;
    }
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '#')
      i++;
    words.push_back({line.substr(start, i - start), unsigned(start + 1)});
  }
  return words;
}

bool globMatches(const std::string &glob, const std::string &s) {
  return fnmatch(glob.c_str(), s.c_str(), 0) == 0;
}

std::string lastComponent(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool fileMatches(const std::string &glob, const std::string &file) {
  return globMatches(glob, file) || globMatches(glob, lastComponent(file));
}
}  // namespace

bool Rules::parse(const std::string &text, std::vector<RuleError> &errors) {
  size_t before = errors.size();
  unsigned lineNo = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    lineNo++;
    std::vector<Word> w = splitLine(line);
    if (w.empty()) continue;
    unsigned eol = unsigned(line.size()) + 1;
    // Too few words: at the end of the line; too many: at the first extra one.
    auto arity = [&](size_t want, size_t max) -> unsigned {
      if (w.size() < want) return eol;
      if (w.size() > max) return w[max].column;
      return 0;
    };
    auto error = [&](unsigned column, const std::string &msg) { errors.push_back({lineNo, column, msg}); };
    unsigned bad;
    if (w[0].text == "group") {
      if ((bad = arity(2, size_t(-1)))) {
        error(bad, "'group' needs a group name");
        continue;
      }
      bool ok = true;
      for (size_t i = 1; i < w.size() && ok; i++)
        if (!isIdentifier(w[i].text)) {
          error(w[i].column, "group name '" + w[i].text + "' is not an identifier");
          ok = false;
        }
      if (!ok) continue;
      Group g{w[1].text, {}, lineNo, w[1].column};
      for (size_t i = 2; i < w.size(); i++) g.subgroups.push_back(w[i].text);
      groups.push_back(g);
    } else if (w[0].text == "monitor") {
      if ((bad = arity(4, 4))) {
        error(bad, "expected 'monitor GROUP FILE_GLOB FUNCTION_GLOB'");
        continue;
      }
      if (!isIdentifier(w[1].text)) {
        error(w[1].column, "group name '" + w[1].text + "' is not an identifier");
        continue;
      }
      monitors.push_back({w[1].text, w[2].text, w[3].text, lineNo, w[1].column});
    } else if (w[0].text == "exclude") {
      if ((bad = arity(3, 3))) {
        error(bad, "expected 'exclude FILE_GLOB FUNCTION_GLOB'");
        continue;
      }
      excludes.push_back({"", w[1].text, w[2].text, lineNo, 0});
    } else {
      error(w[0].column, "unknown directive '" + w[0].text + "' (expected group, monitor or exclude)");
    }
  }
  return errors.size() == before;
}

std::string Rules::groupFor(const std::string &file, const std::string &function) const {
  for (const Match &e : excludes)
    if (fileMatches(e.fileGlob, file) && globMatches(e.fnGlob, function)) return "";
  for (const Match &m : monitors)
    if (fileMatches(m.fileGlob, file) && globMatches(m.fnGlob, function)) return m.group;
  return "";
}

}  // namespace tf
