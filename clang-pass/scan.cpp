// scan.cpp: tf-scan, the project-wide view of TF annotations (docs/design.md
// .manifest; the paper's tfannotations.properties).
//
//   tf-scan [-o MANIFEST.json] [--rules FILE] [--question 'within F G']
//           BUILD_DIR|compile_commands.json [SOURCE...]
//
// --rules applies a rules file to every TU whose command has no
// -fplugin-arg-tf-rules= of its own. The manifest lists, per rules line, the
// definitions and call sites it instruments (prune.cpp); --question prints
// the smallest rules file a question needs (then the manifest goes only to
// -o).
//
// Parses every translation unit of the compilation database with the same
// attribute handlers and checks as tf-clang.so (no code is generated), writes
// one manifest for the whole project (every TU's manifest, and all groups
// with their subgroups and where they are declared), and checks what one TU
// cannot see:
//   - a group declared with different subgroups in different places (a bare
//     declaration, which a TU needs for each subgroup it names, agrees);
//   - a subgroup cycle formed by declarations in different headers or TUs;
//   - info functions used inconsistently: one tracing name with different
//     timing-point types across TUs, or a TF_TP_ENTER without its TF_TP_EXIT.
// Errors are printed as FILE:LINE: error: ...; the exit status is 0 when the
// project is consistent, 1 otherwise (2 on bad usage).
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "analysis.h"
#include "groups.h"
#include "json.h"
#include "output.h"
#include "prune.h"
#include "spelling.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace {

struct Place {
  std::string file;
  unsigned line;
  std::string where() const { return file + ":" + std::to_string(line); }
};

int errors = 0;

void error(const Place &at, const std::string &msg) {
  llvm::errs() << at.where() << ": error: tf-scan: " << msg << "\n";
  errors++;
}

void note(const Place &at, const std::string &msg) { llvm::errs() << at.where() << ": note: " << msg << "\n"; }

// Every TU analysed, in database order.
std::vector<tf::TuModel> tus;
std::string rulesFile;  // --rules: for TUs whose command names none
std::string tuRules;    // -fplugin-arg-tf-rules= of the TU being parsed

// What the TUs made of each rules file: its monitor lines, those that took a
// function somewhere, and the files and functions seen, for "did you mean".
struct RulesUse {
  std::vector<tf::core::rules::match> monitors;
  std::set<unsigned> chosen;
  std::set<std::string> files, functions;
};
std::map<std::string, RulesUse> rulesUse;

void noteRules(const tf::Session &s) {
  if (!s.rulesLoaded) return;
  RulesUse &u = rulesUse[s.opts.rules];
  u.monitors = s.rules.monitors;
  u.chosen.insert(s.rules.chosen.begin(), s.rules.chosen.end());
  if (!s.model) return;
  u.files.insert(s.model->file);
  for (const tf::FnDesc &f : s.model->functions) {
    u.files.insert(f.file);
    u.functions.insert(f.function);
  }
}

class ScanAction : public ASTFrontendAction {
 protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci, StringRef) override {
    tf::Session::reset();
    tf::Session &s = tf::Session::get();
    s.opts.markers = false;
    s.opts.rules = tuRules.empty() ? rulesFile : tuRules;
    if (!s.opts.rules.empty()) tf::loadRules(ci, s);
    return tf::makeConsumer(ci);
  }
  void EndSourceFileAction() override {
    tf::Session &s = tf::Session::get();
    if (s.model && !getCompilerInstance().getDiagnostics().hasErrorOccurred()) tus.push_back(*s.model);
    noteRules(s);
  }
};

// The database's commands may load a TF plugin (-fplugin=tf.so from a GCC
// build): tf-scan has the attributes already and defines __TF_PLUGIN__ itself.
// A rules file given to the plugin applies to that TU here too.
tooling::CommandLineArguments adjust(const tooling::CommandLineArguments &args, StringRef) {
  static const std::string rulesArg = "-fplugin-arg-tf-rules=";
  tooling::CommandLineArguments out;
  for (const std::string &a : args) {
    if (a.rfind(rulesArg, 0) == 0) tuRules = a.substr(rulesArg.size());
    if (a.rfind("-fplugin", 0) != 0 && a.rfind("-fpass-plugin", 0) != 0) out.push_back(a);
  }
  out.insert(out.begin() + (out.empty() ? 0 : 1), "-D__TF_PLUGIN__=1");
  if (llvm::sys::fs::is_directory(TF_CLANG_RESOURCE_DIR))
    out.insert(out.begin() + 1, std::string("-resource-dir=") + TF_CLANG_RESOURCE_DIR);
  return out;
}

// ---- cross-TU checks --------------------------------------------------------

struct GroupSite {
  std::vector<std::string> subgroups;
  Place at;
};

std::map<std::string, std::vector<GroupSite>> collectGroups() {
  std::map<std::string, std::vector<GroupSite>> groups;
  std::set<std::string> seen;  // one entry per group, place and subgroup list
  for (const tf::TuModel &tu : tus)
    for (const tf::GroupDecl &d : tu.decls) {
      std::string key = d.name + "@" + d.file + ":" + std::to_string(d.line);
      for (const std::string &s : d.subgroups) key += "," + s;
      if (seen.insert(key).second) groups[d.name].push_back({d.subgroups, {d.file, d.line}});
    }
  return groups;
}

// A declaration without subgroups agrees with any: each TU must declare the
// subgroups it names (docs/design.md .silent.subgroup), so a group with
// subgroups of its own is declared bare where it is someone's subgroup.
void checkSubgroupLists(const std::map<std::string, std::vector<GroupSite>> &groups) {
  for (const auto &g : groups) {
    auto full = std::find_if(g.second.begin(), g.second.end(),
                             [](const GroupSite &s) { return !s.subgroups.empty(); });
    if (full == g.second.end()) continue;
    const GroupSite &first = *full;
    std::set<std::string> a(first.subgroups.begin(), first.subgroups.end());
    for (const GroupSite &other : g.second) {
      std::set<std::string> b(other.subgroups.begin(), other.subgroups.end());
      if (a == b || b.empty()) continue;
      auto list = [](const std::set<std::string> &s) {
        std::string r;
        for (const std::string &x : s) r += (r.empty() ? "" : ", ") + x;
        return "(" + r + ")";
      };
      error(other.at, "group '" + g.first + "' is declared with subgroups " + list(b) +
                          " here but with " + list(a) + " elsewhere");
      note(first.at, "the other declaration of '" + g.first + "' is here");
    }
  }
}

void checkCycles(const std::map<std::string, std::vector<GroupSite>> &groups) {
  std::map<std::string, std::set<std::string>> edges;
  for (const auto &g : groups)
    for (const GroupSite &site : g.second) edges[g.first].insert(site.subgroups.begin(), site.subgroups.end());
  std::vector<std::string> path = tf::core::find_cycle(edges);
  if (path.empty()) return;
  std::string text;
  for (size_t i = 0; i < path.size(); i++) text += (i ? " -> " : "") + path[i];
  error(groups.at(path[0]).front().at, "subgroup cycle across declarations: " + text);
  for (size_t i = 0; i + 1 < path.size(); i++)
    for (const GroupSite &site : groups.at(path[i]))
      if (std::find(site.subgroups.begin(), site.subgroups.end(), path[i + 1]) != site.subgroups.end())
        note(site.at, "'" + path[i] + "' contains '" + path[i + 1] + "' here");
}

const char *tpText(int tp) { return tp == 1 ? "TF_TP_ENTER" : tp == 2 ? "TF_TP_EXIT" : "TF_TP_NONE"; }

void checkInfoUse() {
  // Per tracing name of info functions: the timing-point kind it has in each TU.
  struct Use {
    bool timing;  // ENTER/EXIT (a timing point) rather than NONE
    Place at;
  };
  std::map<std::string, std::vector<Use>> uses;
  for (const tf::TuModel &tu : tus) {
    std::map<std::string, std::pair<const tf::FnDesc *, const tf::FnDesc *>> pairs;  // enter, exit
    for (const tf::FnDesc &f : tu.functions) {
      if (f.role != tf::R_INFO || !f.defined) continue;
      uses[f.tracingName].push_back({f.tp != 0, {f.file, f.line}});
      if (f.tp == 1) pairs[f.tracingName].first = &f;
      if (f.tp == 2) pairs[f.tracingName].second = &f;
    }
    for (const auto &p : pairs) {
      const tf::FnDesc *only = p.second.first ? p.second.first : p.second.second;
      if (p.second.first && p.second.second) continue;
      error({only->file, only->line}, "timing point '" + p.first + "' has a " + tpText(only->tp) +
                                          " info function but no " + tpText(3 - only->tp) + " one in " +
                                          tu.file);
    }
  }
  for (const auto &u : uses)
    for (const Use &x : u.second)
      if (x.timing != u.second.front().timing) {
        error(x.at, "info function '" + u.first + "' is " + (x.timing ? "a timing point" : "TF_TP_NONE") +
                        " here but " + (u.second.front().timing ? "a timing point" : "TF_TP_NONE") +
                        " elsewhere");
        note(u.second.front().at, "the other '" + u.first + "' is here");
        break;
      }
}

// ---- rules lines that took nothing ------------------------------------------

// A file as a FILE_GLOB may name it: the path, and what follows each '/'.
std::vector<std::string> fileNames(const std::set<std::string> &files) {
  std::vector<std::string> names;
  for (const std::string &f : files) {
    names.push_back(f);
    for (size_t at = f.find('/'); at != std::string::npos; at = f.find('/', at + 1))
      names.push_back(f.substr(at + 1));
  }
  return names;
}

// A monitor line that took no function of any TU scanned is said (per TU it
// cannot be known): with the nearest file or function it may have meant.
void checkRulesUse() {
  for (const auto &r : rulesUse)
    for (const tf::core::rules::match &m : r.second.monitors) {
      if (r.second.chosen.count(m.line)) continue;
      std::string hint = tf::core::did_you_mean(m.file_glob, fileNames(r.second.files));
      if (hint.empty() && m.fn_glob.find_first_of("*?[") == std::string::npos)
        hint = tf::core::did_you_mean(m.fn_glob, std::vector<std::string>(r.second.functions.begin(),
                                                                          r.second.functions.end()));
      llvm::errs() << r.first << ":" << m.line << ": warning: tf-scan: 'monitor " << m.group << " "
                   << m.file_glob << " " << m.fn_glob << "' took no function of the " << tus.size()
                   << " translation units scanned" << (hint.empty() ? "" : "; " + hint) << "\n";
    }
}

// ---- the project manifest ---------------------------------------------------

std::string indent(const std::string &text, const std::string &pad) {
  std::string out;
  for (size_t i = 0; i < text.size(); i++) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size()) out += pad;
  }
  return out;
}

int unmatchedCalls = 0;  // call lines that matched no call anywhere (prune.cpp)

std::string projectManifest(const std::map<std::string, std::vector<GroupSite>> &groups) {
  std::string o = "{\n  \"abi\": " + std::to_string(TF_TU_ABI) + ",\n  \"tool\": \"tf-scan\",\n  \"groups\": [";
  const char *sep = "";
  for (const auto &g : groups) {
    std::set<std::string> subs;
    for (const GroupSite &s : g.second) subs.insert(s.subgroups.begin(), s.subgroups.end());
    o += std::string(sep) + "\n    {\"name\": " + tf::core::json_string(g.first) + ", \"subgroups\": [";
    std::string list;
    for (const std::string &s : subs) list += (list.empty() ? "" : ", ") + tf::core::json_string(s);
    o += list + "], \"declared\": [";
    std::string at;
    for (const GroupSite &s : g.second)
      at += (at.empty() ? "" : ", ") + std::string("{\"file\": ") + tf::core::json_string(s.at.file) +
            ", \"line\": " + std::to_string(s.at.line) + "}";
    o += at + "]}";
    sep = ",";
  }
  o += "\n  ],\n  \"rules\": " + tf::rulesJson(tus, unmatchedCalls) + ",\n  \"tus\": [";
  for (size_t i = 0; i < tus.size(); i++) {
    std::string m = tus[i].manifestJson();
    while (!m.empty() && m.back() == '\n') m.pop_back();
    o += std::string(i ? "," : "") + "\n    " + indent(m, "    ");
  }
  return o + "\n  ]\n}\n";
}

int usage() {
  llvm::errs() << "usage: tf-scan [-o MANIFEST.json] [--rules FILE] [--question 'within F G'] "
                  "BUILD_DIR|compile_commands.json [SOURCE...]\n";
  return 2;
}

// A bad option: which, and the nearest one, before the usage.
int badOption(const std::string &a) {
  if (a == "-o" || a == "--rules") {
    llvm::errs() << "tf-scan: " << a << " needs a file after it\n";
    return usage();
  }
  std::string hint = tf::core::did_you_mean(a.substr(0, a.find('=')), {"-o", "--rules", "--help"});
  llvm::errs() << "tf-scan: unknown option '" << a << "'" << (hint.empty() ? "" : "; " + hint) << "\n";
  return usage();
}

}  // namespace

int main(int argc, char **argv) {
  std::string out, dbPath, question;
  std::vector<std::string> sources;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc)
      out = argv[++i];
    else if (a == "--rules" && i + 1 < argc)
      rulesFile = argv[++i];
    else if (a == "--question" && i + 1 < argc)
      question = argv[++i];
    else if (a == "-h" || a == "--help") {
      usage();
      return 0;
  } else if (!a.empty() && a[0] == '-')
      return badOption(a);
    else if (dbPath.empty())
      dbPath = a;
    else
      sources.push_back(a);
  }
  if (dbPath.empty()) return usage();
  std::string err;
  std::unique_ptr<tooling::CompilationDatabase> db;
  if (llvm::sys::fs::is_directory(dbPath))
    db = tooling::CompilationDatabase::loadFromDirectory(dbPath, err);
  else
    db = tooling::JSONCompilationDatabase::loadFromFile(dbPath, err, tooling::JSONCommandLineSyntax::AutoDetect);
  if (!db) {
    llvm::errs() << "tf-scan: " << err << "\n";
    return 2;
  }
  if (sources.empty()) sources = db->getAllFiles();
  int failed = 0;
  for (const std::string &src : sources) {  // one tool per TU: Session is per TU
    tuRules.clear();
    tooling::ClangTool tool(*db, {src});
    tool.appendArgumentsAdjuster(adjust);
    failed |= tool.run(tooling::newFrontendActionFactory<ScanAction>().get());
  }
  std::map<std::string, std::vector<GroupSite>> groups = collectGroups();
  checkSubgroupLists(groups);
  checkCycles(groups);
  checkInfoUse();
  checkRulesUse();
  std::string manifest = projectManifest(groups);
  if (!question.empty()) {
    std::string rules, why;
    if (!tf::answer(tus, question, rules, why)) {
      llvm::errs() << "tf-scan: --question: " << why << "\n";
      return 2;
    }
    llvm::outs() << rules;
  }
  if (out.empty() && question.empty()) {
    llvm::outs() << manifest;
  } else if (!out.empty()) {
    std::string why;
    if (!tf::core::write_manifest(out, manifest, why)) {
      llvm::errs() << "tf-scan: cannot write '" << tf::core::escaped(out) << "': " << why << "\n";
      return 1;
    }
  }
  if (failed) llvm::errs() << "tf-scan: some translation units did not compile\n";
  llvm::errs() << "tf-scan: " << tus.size() << " translation units, " << groups.size() << " groups, "
               << errors << " inconsistencies";
  if (unmatchedCalls) llvm::errs() << ", " << unmatchedCalls << " call line" << (unmatchedCalls > 1 ? "s" : "")
                                   << " matching no call";
  llvm::errs() << "\n";
  return failed || errors ? 1 : 0;
}
