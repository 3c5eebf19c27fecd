// prune.cpp: tf-scan's static pruning (docs/design.md .prune), the
// SmartMonitor dissertation's point: before anything runs, say which sites a
// rules file instruments, and which few sites a question needs.
//
//   "rules" in the project manifest: each line of each rules file with the
//   definitions and call sites it instruments in every TU;
//   a call line that matched no call anywhere is said;
//   --question 'within F G': only the calls of G reachable from F in the
//   call graph, and F itself, as a rules file to build with.
#include "prune.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "json.h"
#include "spelling.h"
#include "rules.h"
#include "llvm/Support/raw_ostream.h"

namespace tf {

namespace {

struct RulesText {
  core::rules parsed;
  std::vector<std::string> lines;
};

// Every rules file the TUs used, parsed again (tf-scan reported their errors).
std::map<std::string, RulesText> rulesFiles(const std::vector<TuModel> &tus) {
  std::map<std::string, RulesText> files;
  for (const TuModel &tu : tus) {
    if (tu.rulesFile.empty() || files.count(tu.rulesFile)) continue;
    RulesText &r = files[tu.rulesFile];
    std::string text, why;
    std::vector<core::rule_error> errors;
    if (!core::rules::read(tu.rulesFile, text, why)) continue;
    r.parsed.parse(text, errors);
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) r.lines.push_back(l);
  }
  return files;
}

std::string lineText(const RulesText &r, unsigned line) {
  std::string t = line && line <= r.lines.size() ? r.lines[line - 1] : "";
  size_t hash = t.find('#');
  t = t.substr(0, hash);
  size_t b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : t.substr(b, e - b + 1);
}

std::string siteJson(const TuModel &tu, const core::call_site &s) {
  return "{\"tu\": " + core::json_string(tu.base) + ", \"caller\": " + core::json_string(s.caller) +
         ", \"callee\": " + (s.callee.empty() ? "null" : core::json_string(s.callee)) +
         ", \"file\": " + core::json_string(s.file) + ", \"line\": " + std::to_string(s.line) +
         ", \"traced\": " + (s.skip == core::call_skip::none ? "true" : "false") + "}";
}

// One rules line and what it instruments in every TU that used its file.
std::string lineJson(const std::string &file, unsigned line, const char *directive, const RulesText &r,
                     const std::vector<TuModel> &tus, size_t &matched) {
  std::vector<std::string> defs, sites, caps;
  for (const TuModel &tu : tus) {
    if (tu.rulesFile != file) continue;
    for (const FnDesc &f : tu.functions)
      if (f.fromRules && f.rule == line && !f.call) defs.push_back(core::json_string(tu.base + "." + f.tracingName));
    for (const core::call_site &s : tu.sites)
      if (s.rule == line) sites.push_back(siteJson(tu, s));
    for (const core::manifest_capture &c : tu.captured)
      if (c.rule == line) caps.push_back(core::json_string(tu.base + "." + c.function));
  }
  matched = defs.size() + sites.size() + caps.size();
  auto list = [](const std::vector<std::string> &v) {
    std::string o;
    for (size_t i = 0; i < v.size(); i++) o += (i ? ", " : "") + v[i];
    return "[" + o + "]";
  };
  return "    {\"file\": " + core::json_string(file) + ", \"line\": " + std::to_string(line) +
         ", \"directive\": \"" + directive + "\", \"text\": " + core::json_string(lineText(r, line)) +
         ", \"definitions\": " + list(defs) + ", \"calls\": " + list(sites) + ", \"captures\": " + list(caps) +
         "}";
}

// Glob characters in a file or function name stand for themselves.
std::string literal(const std::string &s) {
  std::string o;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

}  // namespace

std::string rulesJson(const std::vector<TuModel> &tus, int &unmatched) {
  std::map<std::string, RulesText> files = rulesFiles(tus);
  std::vector<std::string> items;
  unmatched = 0;
  for (const auto &f : files) {
    std::vector<std::pair<unsigned, const char *>> lines;
    for (const core::rules::match &m : f.second.parsed.monitors) lines.push_back({m.line, "monitor"});
    for (const core::rules::call &c : f.second.parsed.calls) lines.push_back({c.line, "call"});
    for (const core::rules::capture &c : f.second.parsed.captures) lines.push_back({c.line, "capture"});
    std::sort(lines.begin(), lines.end());
    for (const auto &l : lines) {
      size_t matched;
      items.push_back(lineJson(f.first, l.first, l.second, f.second, tus, matched));
      if (!matched && std::string(l.second) == "call") {
        llvm::errs() << f.first << ":" << l.first << ": warning: tf-scan: '" << lineText(f.second, l.first)
                     << "' matched no call in any translation unit\n";
        unmatched++;
      }
    }
  }
  std::string o = "[";
  for (size_t i = 0; i < items.size(); i++) o += std::string(i ? "," : "") + "\n" + items[i];
  return o + (items.empty() ? "]" : "\n  ]");
}

bool answer(const std::vector<TuModel> &tus, const std::string &question, std::string &out, std::string &error) {
  std::istringstream in(question);
  std::string kind, from, to, extra;
  in >> kind >> from >> to >> extra;
  if (kind != "within" || from.empty() || to.empty() || !extra.empty()) {
    error = "unknown question '" + question + "' (known: within F G: the calls of G reachable from F)";
    return false;
  }
  std::map<std::string, std::vector<const core::call_site *>> callees;  // caller -> its calls
  std::map<std::string, std::string> defined;                           // function -> its file
  for (const TuModel &tu : tus) {
    for (const core::call_site &s : tu.graph) callees[s.caller].push_back(&s);
    for (const auto &d : tu.defined) defined.emplace(d.first, d.second);
  }
  if (!defined.count(from)) {
    std::vector<std::string> names;
    for (const auto &d : defined) names.push_back(d.first);
    error = "'" + from + "' is no function of the project (" + core::nearest_names(from, names, "functions") + ")";
    return false;
  }
  std::set<std::string> reached{from};
  std::vector<std::string> todo{from};
  while (!todo.empty()) {
    std::string f = todo.back();
    todo.pop_back();
    for (const core::call_site *s : callees[f])
      if (reached.insert(s->callee).second) todo.push_back(s->callee);
  }
  size_t all = 0;
  std::set<std::string> lines;  // "call" lines, one per caller and callee
  std::set<std::string> callers;
  size_t needed = 0;
  for (const auto &c : callees)
    for (const core::call_site *s : c.second) {
      if (!core::glob_match(to, s->callee)) continue;
      all++;
      if (!reached.count(s->caller)) continue;
      needed++;
      callers.insert(s->caller);
      lines.insert("call question " + literal(s->file) + " " + literal(s->caller) + " " + literal(s->callee));
    }
  out = "# tf-scan --question 'within " + from + " " + to + "': " + std::to_string(needed) + " of " +
        std::to_string(all) + " call sites of " + to + " are reachable from " + from + ", in " +
        std::to_string(callers.size()) + " function" + (callers.size() == 1 ? "" : "s") +
        "; with " + from + " itself, all a trace of the question needs\ngroup question\nmin-size 0\n"
        "monitor question " + literal(defined[from]) + " " + literal(from) + "\n";
  for (const std::string &l : lines) out += l + "\n";
  return true;
}

}  // namespace tf
