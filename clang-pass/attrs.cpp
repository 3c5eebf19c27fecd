// attrs.cpp: the four attributes tf.h expands to once __TF_PLUGIN__ is defined
// (docs/code-shape.md section 1). Clang knows them only through these
// ParsedAttrInfo registrations; each handler checks its arguments and records
// the attribute in the Session (no Attr node is added, so nothing leaks into
// llvm.global.annotations).
#include <sstream>

#include "analysis.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "compat.h"
#include "spelling.h"

using namespace clang;

namespace tf {
namespace {

// The string literal argument i of A, or report and return false.
bool stringArg(Sema &S, const ParsedAttr &A, unsigned i, const char *macro, std::string &out) {
  const Expr *e = A.getNumArgs() > i ? A.getArgAsExpr(i) : nullptr;
  const auto *lit = e ? dyn_cast<StringLiteral>(e->IgnoreParenCasts()) : nullptr;
  if (!lit || !TF_IS_ORDINARY_STRING(lit)) {
    report(S.getDiagnostics(), e ? e->getExprLoc() : A.getLoc(),
           std::string(macro) + " needs a string literal argument");
    return false;
  }
  out = lit->getString().str();
  return true;
}

bool onlyFunctions(Sema &S, const ParsedAttr &A, const Decl *D, const char *macro) {
  if (isa<FunctionDecl>(D)) return true;
  report(S.getDiagnostics(), D->getLocation(), std::string("'") + macro + "' applies only to functions");
  return false;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct GroupAttr : public ParsedAttrInfo {
  GroupAttr() {
    NumArgs = 2;
    static constexpr Spelling S[] = {{ParsedAttr::AS_GNU, "tf_group"},
                                     {ParsedAttr::AS_CXX11, "tf::group"}};
    Spellings = S;
  }
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &A, const Decl *D) const override {
    if (isa<VarDecl>(D)) return true;
    report(S.getDiagnostics(), A.getLoc(), "tf_group is reserved for TF_GROUP");
    return false;
  }
  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &A) const override {
    std::string name, subs;
    if (!stringArg(S, A, 0, "TF_GROUP", name) || !stringArg(S, A, 1, "TF_GROUP", subs))
      return AttributeNotApplied;
    DiagnosticsEngine &diags = S.getDiagnostics();
    if (!core::is_identifier(name)) {
      report(diags, A.getLoc(), "group name '" + name + "' is not an identifier");
      return AttributeNotApplied;
    }
    GroupSeen g;
    g.decl.name = name;
    g.loc = A.getLoc();
    std::stringstream ss(subs);
    for (std::string item; std::getline(ss, item, ',');) {
      item = trim(item);
      if (item.empty()) continue;
      if (!core::is_identifier(item)) {
        report(diags, A.getLoc(), "subgroup name '" + item + "' of group '" + name + "' is not an identifier");
        return AttributeNotApplied;
      }
      g.decl.subgroups.push_back(item);
    }
    declareGroup(S.getDiagnostics(), S.getSourceManager(), Session::get(), g);
    return AttributeApplied;
  }
};


struct MonitorAttr : public ParsedAttrInfo {
  MonitorAttr() {
    NumArgs = 1;
    static constexpr Spelling S[] = {{ParsedAttr::AS_GNU, "tf_monitor"},
                                     {ParsedAttr::AS_CXX11, "tf::monitor"}};
    Spellings = S;
  }
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &A, const Decl *D) const override {
    return onlyFunctions(S, A, D, "TF_MONITOR");
  }
  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &A) const override {
    std::string group;
    if (!stringArg(S, A, 0, "TF_MONITOR", group)) return AttributeNotApplied;
    Session &s = Session::get();
    DiagnosticsEngine &diags = S.getDiagnostics();
    const auto *fd = cast<FunctionDecl>(D);
    if (!s.findGroup(group)) {
      report(diags, D->getLocation(), "group '" + group + "' of '" + declName(fd) +
                                          "' is not declared; add 'TF_GROUP(" + group + ")' before this use" +
                                          s.groupHint(group));
      return AttributeNotApplied;
    }
    FnAttrs &fa = s.fnAttrs[D];
    if (!fa.group.empty()) {
      report(diags, D->getLocation(), "'" + declName(fd) + "' has more than one 'TF_MONITOR'");
      return AttributeNotApplied;
    }
    fa.group = group;
    return AttributeApplied;
  }
};

struct InfoAttr : public ParsedAttrInfo {
  InfoAttr() {
    NumArgs = 1;
    static constexpr Spelling S[] = {{ParsedAttr::AS_GNU, "tf_info"},
                                     {ParsedAttr::AS_CXX11, "tf::info"}};
    Spellings = S;
  }
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &A, const Decl *D) const override {
    return onlyFunctions(S, A, D, "TF_INFO");
  }
  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &A) const override {
    std::string tpText;
    if (!stringArg(S, A, 0, "TF_INFO", tpText)) return AttributeNotApplied;
    DiagnosticsEngine &diags = S.getDiagnostics();
    int tp = core::tp_value(tpText);
    if (tp < 0) {
      report(diags, D->getLocation(), "'" + tpText +
                                          "' is not a timing-point type; use TF_TP_NONE, TF_TP_ENTER or TF_TP_EXIT");
      return AttributeNotApplied;
    }
    const auto *fd = cast<FunctionDecl>(D);
    bool ok = true;
    if (fd->getStorageClass() != SC_Static || isa<CXXMethodDecl>(fd)) {
      report(diags, fd->getLocation(), "info function '" + declName(fd) + "' must be static");
      ok = false;
    }
    if (!fd->getReturnType()->isVoidType()) {
      report(diags, fd->getLocation(), "info function '" + declName(fd) + "' must return void");
      ok = false;
    } else if (fd->isVariadic()) {  // its two trailing parameters could not follow `...`
      report(diags, fd->getLocation(), "info function '" + declName(fd) + "' must not be variadic");
      ok = false;
    }
    if (!ok) return AttributeNotApplied;
    FnAttrs &fa = Session::get().fnAttrs[D];
    if (fa.tp >= 0) {
      report(diags, D->getLocation(), "'" + declName(fd) + "' has more than one 'TF_INFO'");
      return AttributeNotApplied;
    }
    fa.tp = tp;
    // Its body is empty by design: its parameters are what the hook reports,
    // so -Wunused-parameter (given when the body ends) must not warn. A
    // definition's parameters are the ones here; a TF_INFO prototype's
    // later definition is not reached this way (GCC's plugin reaches both).
    for (ParmVarDecl *p : cast<FunctionDecl>(D)->parameters()) p->setReferenced();
    return AttributeApplied;
  }
};

struct TracingNameAttr : public ParsedAttrInfo {
  TracingNameAttr() {
    NumArgs = 1;
    static constexpr Spelling S[] = {{ParsedAttr::AS_GNU, "tf_tracing_name"},
                                     {ParsedAttr::AS_CXX11, "tf::tracing_name"}};
    Spellings = S;
  }
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &A, const Decl *D) const override {
    return onlyFunctions(S, A, D, "TF_TRACING_NAME");
  }
  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &A) const override {
    const Expr *e = A.getNumArgs() ? A.getArgAsExpr(0) : nullptr;
    const auto *lit = e ? dyn_cast<StringLiteral>(e->IgnoreParenCasts()) : nullptr;
    DiagnosticsEngine &diags = S.getDiagnostics();
    if (!lit || !TF_IS_ORDINARY_STRING(lit) || lit->getString().empty()) {
      report(diags, D->getLocation(), "'TF_TRACING_NAME' of '" + declName(cast<FunctionDecl>(D)) +
                                          "' takes a non-empty string literal");
      return AttributeNotApplied;
    }
    std::string name = lit->getString().str();
    FnAttrs &fa = Session::get().fnAttrs[D];
    if (!fa.tracingName.empty()) {
      report(diags, D->getLocation(), "'" + declName(cast<FunctionDecl>(D)) + "' has more than one 'TF_TRACING_NAME'");
      return AttributeNotApplied;
    }
    fa.tracingName = name;
    return AttributeApplied;
  }
};

}  // namespace
}  // namespace tf

static ParsedAttrInfoRegistry::Add<tf::GroupAttr> X1("tf_group", "TF_GROUP");
static ParsedAttrInfoRegistry::Add<tf::MonitorAttr> X2("tf_monitor", "TF_MONITOR");
static ParsedAttrInfoRegistry::Add<tf::InfoAttr> X3("tf_info", "TF_INFO");
static ParsedAttrInfoRegistry::Add<tf::TracingNameAttr> X4("tf_tracing_name", "TF_TRACING_NAME");
