// session.cpp: the state one TU's analysis shares (attributes seen, groups,
// rules) and the helpers every part reports through.
#include "analysis.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "compat.h"
#include "groups.h"
#include "spelling.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace clang;

namespace tf {

static Session *theSession;

Session &Session::get() {
  if (!theSession) theSession = new Session;
  return *theSession;
}

void Session::reset() {
  delete theSession;
  theSession = new Session;
}

const GroupSeen *Session::findGroup(const std::string &name) const {
  for (const GroupSeen &g : groups)
    if (g.decl.name == name) return &g;
  return nullptr;
}

std::string Session::groupHint(const std::string &want) const {
  std::vector<std::string> names;
  for (const GroupSeen &g : groups) names.push_back(g.decl.name);
  std::string hint = core::did_you_mean(want, names);
  return hint.empty() ? hint : "; " + hint;
}

void Session::checkSubgroups(DiagnosticsEngine &d) const {
  for (const GroupSeen &g : groups)
    for (size_t i = 0; i < g.decl.subgroups.size(); i++) {
      const std::string &sub = g.decl.subgroups[i];
      if (findGroup(sub)) continue;
      if (g.subRuled[i])
        report(d, g.subLocs[i], "tf: rules: subgroup '" + sub + "' of group '" + g.decl.name +
                                    "' is not declared (add a 'group " + sub + "' line)" + groupHint(sub));
      else
        report(d, g.subLocs[i], "tf: subgroup '" + sub + "' of group '" + g.decl.name +
                                    "' is not declared; add 'TF_GROUP(" + sub + ")' to this file" +
                                    groupHint(sub));
    }
}

const FnAttrs *Session::attrsOf(const FunctionDecl *fd) {
  FnAttrs m;
  bool any = false;
  for (const FunctionDecl *r : fd->redecls()) {
    auto it = fnAttrs.find(r);
    if (it == fnAttrs.end()) continue;
    const FnAttrs &a = it->second;
    any = true;
    if (m.group.empty()) m.group = a.group;
    if (m.tp < 0) m.tp = a.tp;
    if (m.tracingName.empty()) m.tracingName = a.tracingName;
  }
  if (!any) return nullptr;
  return &(merged[fd->getCanonicalDecl()] = m);
}

void Session::checkRedeclarations(DiagnosticsEngine &d) {
  std::map<const Decl *, const Decl *> first;  // canonical decl -> first with attributes
  for (const auto &kv : fnAttrs) {
    const Decl *canon = kv.first->getCanonicalDecl();
    if (!first.count(canon) || d.getSourceManager().isBeforeInTranslationUnit(kv.first->getLocation(),
                                                                              first[canon]->getLocation()))
      first[canon] = kv.first;
  }
  for (const auto &kv : fnAttrs) {
    const Decl *f = first[kv.first->getCanonicalDecl()];
    if (f == kv.first) continue;
    const FnAttrs &a = fnAttrs[f], &b = kv.second;
    std::string name = declName(cast<FunctionDecl>(kv.first));
    if (!a.group.empty() && !b.group.empty() && a.group != b.group)
      report(d, kv.first->getLocation(), "'" + name + "' has more than one 'TF_MONITOR' ('" + a.group +
                                             "' and '" + b.group + "')");
    if (a.tp >= 0 && b.tp >= 0 && a.tp != b.tp)
      report(d, kv.first->getLocation(), "'" + name + "' has more than one 'TF_INFO'");
    if (!a.tracingName.empty() && !b.tracingName.empty() && a.tracingName != b.tracingName)
      report(d, kv.first->getLocation(), "'" + name + "' has more than one 'TF_TRACING_NAME' ('" +
                                             a.tracingName + "' and '" + b.tracingName + "')");
  }
}

std::string declName(const FunctionDecl *fd) {
  const ASTContext &c = fd->getASTContext();
  if (!c.getLangOpts().CPlusPlus) return fd->getNameAsString();
  PrintingPolicy pp(c.getLangOpts());
  pp.SuppressTagKeyword = true;
  std::string s;
  if (!isa<CXXConstructorDecl>(fd) && !isa<CXXDestructorDecl>(fd))
    s = fd->getReturnType().getAsString(pp) + " ";
  s += fd->getQualifiedNameAsString() + "(";
  for (unsigned i = 0; i < fd->getNumParams(); i++)
    s += (i ? ", " : "") + fd->getParamDecl(i)->getType().getAsString(pp);
  return s + ")";
}

void report(DiagnosticsEngine &d, SourceLocation loc, const std::string &msg, int level) {
  DiagnosticsEngine::Level l = level == 0   ? DiagnosticsEngine::Error
                               : level == 1 ? DiagnosticsEngine::Warning
                               : level == 2 ? DiagnosticsEngine::Note
                                            : DiagnosticsEngine::Remark;
  d.Report(loc, d.getCustomDiagID(l, "%0")) << (TF_STARTS_WITH(llvm::StringRef(msg), "tf: ") ? msg : "tf: " + msg);
}

void declareGroup(DiagnosticsEngine &d, const SourceManager &sm, Session &s, GroupSeen g) {
  std::vector<std::string> subs = g.decl.subgroups;
  std::vector<SourceLocation> subLocs = g.subLocs;
  bool ruled = !subLocs.empty();
  GroupSeen *known = const_cast<GroupSeen *>(s.findGroup(g.decl.name));
  if (!known) {
    PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(g.loc));
    g.decl.file = p.isValid() ? p.getFilename() : "";
    g.decl.line = p.isValid() ? p.getLine() : 0;
    g.decl.subgroups.clear();
    g.subLocs.clear();
    g.subRuled.clear();
    s.groups.push_back(g);
    known = &s.groups.back();
  }
  for (size_t i = 0; i < subs.size(); i++) {
    const std::string &sub = subs[i];
    std::vector<std::string> &have = known->decl.subgroups;
    if (std::find(have.begin(), have.end(), sub) != have.end()) continue;
    auto subsOf = [&s](const std::string &name) -> const std::vector<std::string> * {
      const GroupSeen *known = s.findGroup(name);
      return known ? &known->decl.subgroups : nullptr;
    };
    if (core::closes_cycle(subsOf, g.decl.name, sub)) {
      report(d, g.loc, "tf: subgroup cycle: group '" + g.decl.name + "' would contain itself through '" +
                           sub + "'");
      continue;
    }
    have.push_back(sub);
    known->subLocs.push_back(i < subLocs.size() ? subLocs[i] : g.loc);
    known->subRuled.push_back(ruled);
  }
}

bool loadRules(CompilerInstance &ci, Session &s) {
  const std::string &path = s.opts.rules;
  DiagnosticsEngine &diags = ci.getDiagnostics();
  std::string text, why;
  // plugin-core reads it (a FIFO or directory is refused, never read); the
  // SourceManager gets a copy, so errors quote the line under its path.
  if (!core::rules::read(path, text, why)) {
    report(diags, SourceLocation(), why);
    return false;
  }
  SourceManager &sm = ci.getSourceManager();
  FileID fid = sm.createFileID(llvm::MemoryBuffer::getMemBufferCopy(text, path), SrcMgr::C_User);
  std::vector<core::rule_error> errors;
  bool ok = s.rules.parse(text, errors);
  for (const core::rule_error &e : errors)
    report(diags, sm.translateLineCol(fid, e.line, e.column), "tf: rules: " + e.message);
  for (const core::rules::group &g : s.rules.groups) {
    GroupSeen seen;
    seen.decl.name = g.name;
    seen.decl.subgroups = g.subgroups;
    seen.loc = sm.translateLineCol(fid, g.line, g.column);
    for (unsigned column : g.subgroup_columns) seen.subLocs.push_back(sm.translateLineCol(fid, g.line, column));
    declareGroup(diags, sm, s, seen);
  }
  s.rulesFid = fid;
  s.rulesLoaded = ok;
  return ok;
}

}  // namespace tf
