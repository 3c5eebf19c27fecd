// scan.cpp: tf-scan, the project-wide view of TF annotations (DESIGN section 5;
// the paper's tfannotations.properties).
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
//   - a group declared with different subgroups in different places;
//   - a subgroup cycle formed by declarations in different headers or TUs;
//   - info functions used inconsistently: one tracing name with different
//     timing-point types across TUs, or a TF_TP_ENTER without its TF_TP_EXIT.
// Errors are printed as FILE:LINE: error: ...; the exit status is 0 when the
// project is consistent, 1 otherwise (2 on bad usage).
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "analysis.h"
#include "groups.h"
#include "json.h"
#include "prune.h"
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

void checkSubgroupLists(const std::map<std::string, std::vector<GroupSite>> &groups) {
  for (const auto &g : groups) {
    const GroupSite &first = g.second.front();
    std::set<std::string> a(first.subgroups.begin(), first.subgroups.end());
    for (const GroupSite &other : g.second) {
      std::set<std::string> b(other.subgroups.begin(), other.subgroups.end());
      if (a == b) continue;
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
    else if (a == "-h" || a == "--help")
      return usage(), 0;
    else if (!a.empty() && a[0] == '-')
      return usage();
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
    std::ofstream f(out, std::ios::trunc);
    f << manifest;
    if (!f) {
      llvm::errs() << "tf-scan: cannot write " << out << "\n";
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
