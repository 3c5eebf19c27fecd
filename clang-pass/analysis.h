// analysis.h: the front-end half of TF for Clang, shared by tf-clang.so and
// tf-scan. The attribute handlers (attrs.cpp) record TF attributes here; the
// consumer (analysis.cpp) checks docs/design.md .attr, builds the TuModel and,
// in the plugin, plants the marker call the pass instruments (see analysis.cpp).
#ifndef TF_CLANG_ANALYSIS_H
#define TF_CLANG_ANALYSIS_H

#include <map>
#include <memory>
#include <set>
#include <string>

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/SourceLocation.h"
#include "model.h"
#include "options.h"
#include "rules.h"
#include "size.h"

namespace clang {
class CompilerInstance;
class Decl;
class DiagnosticsEngine;
class FunctionDecl;
class Sema;
class SourceManager;
}  // namespace clang

namespace tf {

// The TF attributes seen on one function (merged over its redeclarations).
struct FnAttrs {
  std::string group;        // TF_MONITOR; empty when absent
  int tp = -1;              // TF_INFO; -1 when absent
  std::string tracingName;  // TF_TRACING_NAME; empty when absent
};

struct GroupSeen {
  GroupDecl decl;
  clang::SourceLocation loc;
  std::vector<clang::SourceLocation> subLocs;  // where each of decl.subgroups was first written
  std::vector<bool> subRuled;                  // ... in the rules file
};

// The plugin options (plugin-core's one table), and what tf-scan turns off.
struct Options : core::options {
  bool markers = true;  // plant marker calls (false in tf-scan)
};

// Everything one TU's analysis shares; one per compiler instance.
struct Session {
  Options opts;
  std::map<const clang::Decl *, FnAttrs> fnAttrs;  // per declaration
  std::vector<GroupSeen> groups;                   // TF_GROUPs in source order
  core::rules rules;
  bool rulesLoaded = false;
  clang::FileID rulesFid;
  std::unique_ptr<TuModel> model;

  // The current session (attribute handlers have no other way to find it).
  static Session &get();
  static void reset();

  const GroupSeen *findGroup(const std::string &name) const;
  // "; did you mean 'x'?" among the groups declared, or "".
  std::string groupHint(const std::string &want) const;
  // Each subgroup no TF_GROUP (or rules-file group line) of the TU declares
  // is an error where it was written (docs/design.md .silent.subgroup).
  void checkSubgroups(clang::DiagnosticsEngine &d) const;
  // The attributes of fd merged over its redeclarations (null: none).
  const FnAttrs *attrsOf(const clang::FunctionDecl *fd);
  // Reports redeclarations whose TF attributes disagree.
  void checkRedeclarations(clang::DiagnosticsEngine &d);

 private:
  std::map<const clang::Decl *, FnAttrs> merged;
};

// fd's body as plugin-core/size.h counts it (bodysize.cpp).
core::body_size bodySize(const clang::FunctionDecl *fd);

// A function as diagnostics name it (GCC's %qD): "f" in C, "int ns::f(int)" in C++.
std::string declName(const clang::FunctionDecl *fd);

// Reports through Clang's diagnostics: error/warning/note/remark with a message.
void report(clang::DiagnosticsEngine &d, clang::SourceLocation loc, const std::string &msg,
            int level = 0 /* 0 error, 1 warning, 2 note, 3 remark */);

// Declares a group, or adds the subgroups it did not have yet (a header seen
// twice, a group in both the rules file and the source); a subgroup that
// would close a cycle is reported at g.loc and left out.
void declareGroup(clang::DiagnosticsEngine &d, const clang::SourceManager &sm, Session &s, GroupSeen g);

// Loads the rules file named in opts into s.rules through the SourceManager,
// so its errors print as FILE:LINE:COL. Returns false after reporting errors.
bool loadRules(clang::CompilerInstance &ci, Session &s);

// The consumer that checks and models the TU (and plants markers when asked).
std::unique_ptr<clang::ASTConsumer> makeConsumer(clang::CompilerInstance &ci);

}  // namespace tf

#endif
