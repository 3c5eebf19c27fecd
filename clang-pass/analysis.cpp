// analysis.cpp: checks docs/design.md .attr on the AST, models the TU, and
// plants one marker call per instrumented function definition:
//
//     __tf_fn("<key>", &p1, &p2, ...);      first statement of the body
//
// <key> is the function's index in TuModel::functions; the operands are the
// addresses of the parameters (`this` itself, 0 for what has no address).
// CodeGen turns it into an ordinary call in the function's IR, which tells
// the pass (pass.cpp) which function it is and where each parameter lives,
// whatever the ABI did to the IR arguments and even with -fdiscard-value-names.
// The pass removes every marker; it never reaches the object file.
// GCC's -Wnonnull sees the visitors' bases() walk (LazyOffsetPtr::get through
// a null external source, a path it cannot rule out): a false warning, as in
// bodysize.cpp; reported in the header, so set before it.
#pragma GCC diagnostic ignored "-Wnonnull"

#include "analysis.h"
#include "describe.h"


#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/Builtins.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Sema/Sema.h"
#include "compat.h"
#include "output.h"
#include "policy.h"
#include "spelling.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace tf {

namespace {

// Finds misuse of info functions: a call from a function that is not
// monitored, or any use other than a direct call.
class InfoUseChecker : public RecursiveASTVisitor<InfoUseChecker> {
 public:
  InfoUseChecker(Session &s, DiagnosticsEngine &d, const std::set<const Decl *> &monitored)
      : s(s), diags(d), monitored(monitored) {}

  bool TraverseFunctionDecl(FunctionDecl *fd) { return traverseFn(fd, [&] {
      return RecursiveASTVisitor::TraverseFunctionDecl(fd); }); }
  bool TraverseCXXMethodDecl(CXXMethodDecl *fd) { return traverseFn(fd, [&] {
      return RecursiveASTVisitor::TraverseCXXMethodDecl(fd); }); }
  bool TraverseCXXConstructorDecl(CXXConstructorDecl *fd) { return traverseFn(fd, [&] {
      return RecursiveASTVisitor::TraverseCXXConstructorDecl(fd); }); }
  bool TraverseCXXDestructorDecl(CXXDestructorDecl *fd) { return traverseFn(fd, [&] {
      return RecursiveASTVisitor::TraverseCXXDestructorDecl(fd); }); }
  bool TraverseCXXConversionDecl(CXXConversionDecl *fd) { return traverseFn(fd, [&] {
      return RecursiveASTVisitor::TraverseCXXConversionDecl(fd); }); }
  bool TraverseLambdaExpr(LambdaExpr *e) {
    return traverseFn(e->getCallOperator(), [&] { return RecursiveASTVisitor::TraverseLambdaExpr(e); });
  }
  // A reference in a variable's initializer is reported at the variable, as GCC does.
  bool TraverseVarDecl(VarDecl *v) {
    const VarDecl *saved = currentVar;
    currentVar = v;
    bool r = RecursiveASTVisitor::TraverseVarDecl(v);
    currentVar = saved;
    return r;
  }
  bool TraverseBlockDecl(BlockDecl *b) {
    return traverseFn(nullptr, [&] { return RecursiveASTVisitor::TraverseBlockDecl(b); });
  }

  bool VisitCallExpr(CallExpr *call) {
    const FunctionDecl *callee = call->getDirectCallee();
    if (!callee || !isInfo(callee)) return true;
    // `(*info)(x)` and `(&info)(x)` are direct calls too, as in GCC.
    const Expr *e = call->getCallee()->IgnoreParenImpCasts();
    while (const auto *u = dyn_cast<UnaryOperator>(e)) {
      if (u->getOpcode() != UO_Deref && u->getOpcode() != UO_AddrOf) break;
      e = u->getSubExpr()->IgnoreParenImpCasts();
    }
    directCallees.insert(e);
    if (current && monitored.count(current->getCanonicalDecl())) return true;
    std::string where = current ? "'" + declName(current) + "'" : "code outside any function";
    report(diags, call->getBeginLoc(), "info function '" + declName(callee) + "' is called from " + where +
                                           ", which is not a monitored function");
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    const auto *fd = dyn_cast<FunctionDecl>(ref->getDecl());
    if (!fd || !isInfo(fd) || directCallees.count(ref)) return true;
    report(diags, currentVar ? currentVar->getLocation() : ref->getLocation(),
           "the address of info function '" + declName(fd) +
                                          "' is taken; info functions may only be called");
    return true;
  }

 private:
  template <typename F>
  bool traverseFn(const FunctionDecl *fd, F f) {
    const FunctionDecl *saved = current;
    current = fd;
    bool r = f();
    current = saved;
    return r;
  }
  bool isInfo(const FunctionDecl *fd) {
    const FnAttrs *a = s.attrsOf(fd);
    return a && a->tp >= 0;
  }

  Session &s;
  DiagnosticsEngine &diags;
  const std::set<const Decl *> &monitored;
  const FunctionDecl *current = nullptr;
  const VarDecl *currentVar = nullptr;
  std::set<const Expr *> directCallees;
};

class Consumer : public ASTConsumer {
 public:
  explicit Consumer(CompilerInstance &ci) : ci(ci), s(Session::get()) {}

  void Initialize(ASTContext &c) override {
    ctx = &c;
    s.model.reset(new TuModel);
    const SourceManager &sm = c.getSourceManager();
    if (auto fe = sm.getFileEntryForID(sm.getMainFileID())) s.model->file = fe->getName().str();
    if (s.model->file.empty()) s.model->file = ci.getFrontendOpts().Inputs.empty()
                                                   ? "" : ci.getFrontendOpts().Inputs[0].getFile().str();
    s.model->base = core::base_name(s.model->file);
    s.model->cplusplus = c.getLangOpts().CPlusPlus;
    modeler.reset(new Modeler(c, *s.model));
    callSites.reset(new CallSites(ci, c, s, *s.model, [this](const FunctionDecl *fd) { return defaultName(fd); }));
  }

  bool HandleTopLevelDecl(DeclGroupRef dg) override {
    for (Decl *d : dg) handleDecl(d);
    return true;
  }

  void HandleInlineFunctionDefinition(FunctionDecl *fd) override { handleFunction(fd); }

  void HandleTranslationUnit(ASTContext &c) override {
    DiagnosticsEngine &diags = c.getDiagnostics();
    bool anyInfo = false;
    for (const auto &kv : s.fnAttrs) anyInfo = anyInfo || kv.second.tp >= 0;
    if (anyInfo)  // a whole-TU walk only when there is something to find
      InfoUseChecker(s, diags, monitored).TraverseDecl(c.getTranslationUnitDecl());
    s.checkRedeclarations(diags);
    TuModel &m = *s.model;
    for (const GroupSeen &g : s.groups) m.decls.push_back(g.decl);
    m.rules = s.rulesLoaded;
    if (m.rules) m.rulesMonitors = s.rules.monitor_lines();
    m.minSize = s.opts.min_size >= 0 ? unsigned(s.opts.min_size) : s.rules.min_size;
    m.inplaceSize = s.opts.inplace_size;
    m.lightClones = s.opts.light_clones;
    m.calls = (s.rulesLoaded && !s.rules.calls.empty()) || !m.sites.empty();
    m.rulesFile = s.rulesLoaded ? s.opts.rules : "";
    callSites->rank();
    for (std::unique_ptr<CallWrapper> &w : callSites->wrappers) modelWrapper(*w);
    rankPlaces();
    for (const core::name_clash &x : m.finish()) reportClash(x.fn, x.other);
    warnUnusedTracingNames(diags);
    warnUnusedCaptures(diags);
    s.checkSubgroups(diags);
    checkRuleGroups(diags);
    if (diags.hasErrorOccurred()) return;
    warnIfPreprocessedWithoutPlugin(c);
    m.rulesChosen = s.rules.chosen;  // every function is handled by now
    if (!s.opts.manifest.empty()) writeManifest(diags);
    if (s.opts.verbose > 0) reportNames(diags, m);
    if (!s.opts.off && s.opts.markers) handWrappers(c);
    if (!s.opts.off && s.opts.markers && !m.empty()) handModelToPass(c, m);
  }

  // The wrappers the calls now call, given to CodeGen like the model below.
  void handWrappers(ASTContext &c) {
    for (std::unique_ptr<CallWrapper> &w : callSites->wrappers) {
      c.getTranslationUnitDecl()->addDecl(w->decl);
      if (ci.hasASTConsumer()) ci.getASTConsumer().HandleTopLevelDecl(DeclGroupRef(w->decl));
    }
  }

  // The calls asked for in fd's body (calls.cpp), made to call wrappers.
  void findCalls(FunctionDecl *fd, const FnAttrs *a) {
    if (!s.opts.markers && !fd->isConsteval()) {  // tf-scan: the whole call graph
      CallSites::Caller g;
      g.name = defaultName(fd);
      g.file = presumedFile(ctx->getSourceManager(), fd->getLocation(), nullptr);
      callSites->graph(fd, g);
      s.model->defined.push_back({g.name, g.file});
    }
    CallSites::Caller c;
    c.rules = s.rulesLoaded && !s.rules.calls.empty() ? &s.rules : nullptr;
    c.attr = a && a->hasCalls ? &a->calls : nullptr;
    if ((!c.rules && !c.attr) || (a && a->tp >= 0) || fd->isConsteval()) return;
    c.name = defaultName(fd);
    c.file = presumedFile(ctx->getSourceManager(), fd->getLocation(), nullptr);
    callSites->find(fd, c, s.opts.markers && !s.opts.off);
  }

  // A wrapper is monitored under its callee's name (a TF_NAME_CALL entry),
  // with the group, file and line of the callee's first site.
  void modelWrapper(CallWrapper &w) {
    const TuModel &m = *s.model;
    const core::call_site *first = nullptr;
    for (const core::call_site &site : m.sites)
      if (site.skip == core::call_skip::none && site.callee == w.name && (!first || site.place < first->place))
        first = &site;
    FnDesc f;
    f.role = R_MONITOR;
    f.call = true;
    f.tracingName = f.function = w.name;
    f.group = first->group;
    f.file = first->file;
    f.line = first->line;
    f.defined = true;
    for (size_t i = 0; i < w.declared; i++) {
      const ParmVarDecl *p = w.decl->getParamDecl(unsigned(i));
      f.params.push_back(modeler->describe(p->getType(), p->getName().empty() ? "arg" + std::to_string(i + 1)
                                                                              : p->getNameAsString()));
    }
    f.isVoid = w.decl->getReturnType()->isVoidType();
    f.result = modeler->describe(w.decl->getReturnType(), "");
    resolveCaptures(*ctx, s, *modeler, *s.model, w.decl, w.callee, f, w.declared);
    fromRule.push_back(false);
    firstLoc.push_back(w.decl->getLocation());
    declNames.push_back(w.name);
    s.model->functions.push_back(f);
    if (s.opts.markers && !s.opts.off) plantMarker(w.decl, s.model->functions.size() - 1);
    w.modeled = true;
  }

 private:
  void handleDecl(Decl *d) {
    if (auto *fd = dyn_cast<FunctionDecl>(d)) return handleFunction(fd);
    if (auto *v = dyn_cast<VarDecl>(d)) return handleLambdasIn(v->getInit());
    if (isa<NamespaceDecl>(d) || isa<LinkageSpecDecl>(d) || isa<ExportDecl>(d) ||
        (isa<CXXRecordDecl>(d) && !cast<CXXRecordDecl>(d)->isDependentContext()))
      for (Decl *inner : cast<DeclContext>(d)->decls()) handleDecl(inner);
  }

  // C: the identifier; C++: the qualified name with template arguments
  // ("ns::stack::push", "twice<int>"), as the GCC plugin names it.
  std::string defaultName(const FunctionDecl *fd) {
    if (!ctx->getLangOpts().CPlusPlus) return fd->getNameAsString();
    if (const auto *md = dyn_cast<CXXMethodDecl>(fd); md && md->getParent()->isLambda())
      return lambdaName(md->getParent());
    std::string name = fd->getQualifiedNameAsString();
    if (const TemplateArgumentList *args = fd->getTemplateSpecializationArgs()) {
      llvm::raw_string_ostream os(name);
      printTemplateArgumentList(os, args->asArray(), ctx->getPrintingPolicy());
      os.flush();
    }
    return name;
  }

  std::string lambdaName(const CXXRecordDecl *closure) {
    const SourceManager &sm = ctx->getSourceManager();
    PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(closure->getLocation()));
    std::string scope;
    const DeclContext *dc = closure->getDeclContext();
    if (const auto *outer = dyn_cast<FunctionDecl>(dc))
      scope = defaultName(outer);
    else if (const auto *nd = dyn_cast<NamedDecl>(dc))
      scope = nd->getQualifiedNameAsString();
    return core::lambda_name(scope, p.isValid() ? p.getLine() : 0, p.isValid() ? p.getColumn() : 0);
  }

  // Lambdas are no top-level declarations: their call operators are found
  // in the bodies and initializers that hold them (nested ones too).
  struct LambdaFinder : RecursiveASTVisitor<LambdaFinder> {
    std::vector<CXXMethodDecl *> found;
    bool VisitLambdaExpr(LambdaExpr *e) {
      found.push_back(e->getCallOperator());
      return true;
    }
  };
  void handleLambdasIn(Stmt *code) {
    if (!code || !ctx->getLangOpts().CPlusPlus) return;
    LambdaFinder finder;
    finder.TraverseStmt(code);
    for (CXXMethodDecl *op : finder.found) handleFunction(op);
  }

  // An alias or ifunc written in the source has no body of its own.
  void warnMonitoredAlias(FunctionDecl *fd) {
    const FnAttrs *a = s.attrsOf(fd);
    if (!a || a->group.empty() || !(fd->hasAttr<AliasAttr>() || fd->hasAttr<IFuncAttr>())) return;
    core::skip why = fd->hasAttr<IFuncAttr>() ? core::skip::ifunc : core::skip::alias;
    report(ctx->getDiagnostics(), fd->getLocation(),
           "'" + declName(fd) + "' is not instrumented: " + core::skip_reason(why), 1);
  }

  // A function the rules file matched but plugin-core/size.h finds too
  // small: no hooks, but listed in the manifest and, with verbose, here.
  bool leftSmall(FunctionDecl *fd, const FnDesc &f) {
    unsigned min = s.opts.min_size >= 0 ? unsigned(s.opts.min_size) : s.rules.min_size;
    core::body_size size = bodySize(fd);
    if (!core::too_small(size, min)) return false;
    s.model->tooSmall.push_back({defaultName(fd), f.file, f.line, size.ops});
    if (s.opts.verbose > 0)
      report(ctx->getDiagnostics(), fd->getLocation(),
             "'" + defaultName(fd) + "' is not instrumented: " + core::too_small_text(size, min), 3);
    return true;
  }

  void handleFunction(FunctionDecl *fd) {
    warnMonitoredAlias(fd);
    if (fd->doesThisDeclarationHaveABody() && !fd->isDependentContext()) handleLambdasIn(fd->getBody());
    if (!fd->doesThisDeclarationHaveABody() || fd->isImplicit() || !done.insert(fd).second) return;
    const SourceManager &sm = ctx->getSourceManager();
    DiagnosticsEngine &diags = ctx->getDiagnostics();
    // A template is instrumented in its instantiations, with the pattern's attributes.
    if (fd->isDependentContext()) return;
    const FnAttrs *a = s.attrsOf(fd);
    if (!a && fd->getTemplateInstantiationPattern()) a = s.attrsOf(fd->getTemplateInstantiationPattern());
    findCalls(fd, a);
    std::string group = a ? a->group : "";
    int tp = a ? a->tp : -1;
    FnDesc f;
    f.file = presumedFile(sm, fd->getLocation(), &f.line);
    bool fromRules = false;
    // Rules skip what -finstrument-functions would skip (and naked functions);
    // constructors, destructors and operators have names too (as with GCC).
    if (group.empty() && tp < 0 && s.rulesLoaded && !fd->getDeclName().isEmpty() &&
        !(fd->getIdentifier() && TF_STARTS_WITH(fd->getName(), "__tf_")) &&
        !fd->hasAttr<NoInstrumentFunctionAttr>() &&
        !fd->hasAttr<NakedAttr>()) {
      unsigned line = 0;
      group = s.rules.group_for(f.file, defaultName(fd), &line);
      fromRules = !group.empty();
      if (fromRules) s.rules.choose(line);  // it took the function, instrumented or left small
      if (fromRules && leftSmall(fd, f)) return;
    }
    if (group.empty() && tp < 0) return;
    if (!group.empty() && (fd->hasAttr<ConstructorAttr>() || fd->hasAttr<DestructorAttr>()))
      report(diags, fd->getLocation(),
             "'" + declName(fd) + "' " + core::run_at_load_text(fd->hasAttr<DestructorAttr>()), 1);
    if (fd->hasAttr<NakedAttr>()) {
      report(diags, fd->getLocation(), "'" + declName(fd) + "' is 'naked': it has no frame to add hooks to");
      return;
    }
    if (!group.empty() && tp >= 0) {
      report(diags, fd->getLocation(), "'" + declName(fd) + "' is both 'TF_MONITOR' and 'TF_INFO'");
      return;
    }
    if (tp >= 0) {
      const auto *body = dyn_cast_or_null<CompoundStmt>(fd->getBody());
      if (!body || !body->body_empty()) {
        report(diags, body && !body->body_empty() ? body->body_front()->getBeginLoc() : fd->getLocation(),
               "info function '" + declName(fd) + "' must have an empty body");
        return;
      }
    }
    f.role = tp >= 0 ? R_INFO : R_MONITOR;
    f.group = group;
    f.tp = tp < 0 ? 0 : tp;
    f.tracingName = a && !a->tracingName.empty() ? a->tracingName : defaultName(fd);
    f.function = defaultName(fd);
    f.defined = true;
    if (const auto *md = dyn_cast<CXXMethodDecl>(fd); md && md->isInstance() && !md->getParent()->isLambda()) {
      ValueDesc self;
      self.name = "this", self.kind = core::TF_K_PTR, self.load = L_ADDR;
      self.size = unsigned(ctx->getTypeSizeInChars(ctx->VoidPtrTy).getQuantity());
      f.params.push_back(self);
    }
    unsigned n = 0;
    for (const ParmVarDecl *p : fd->parameters()) {
      n++;
      std::string name = p->getName().empty() ? "arg" + std::to_string(n) : p->getNameAsString();
      // `register` too: the marker is built past Sema, and CodeGen gives every
      // parameter a stack slot before optimisation.
      f.params.push_back(modeler->describe(p->getType(), name));
    }
    f.isVoid = fd->getReturnType()->isVoidType();
    f.result = modeler->describe(fd->getReturnType(), "");
    f.rule = fromRules ? s.rules.monitor_for(f.file, f.function)->line : 0;
    if (f.role == R_MONITOR) f.size = bodySize(fd);
    if (f.role == R_MONITOR) resolveCaptures(*ctx, s, *modeler, *s.model, fd, fd, f, fd->getNumParams());
    if (f.role == R_MONITOR) monitored.insert(fd->getCanonicalDecl());
    if (fromRules) ruleMonitored.insert(fd->getCanonicalDecl());
    fromRule.push_back(fromRules);
    firstLoc.push_back(fd->getLocation());
    declNames.push_back(declName(fd));
    s.model->functions.push_back(f);
    if (s.opts.markers && !s.opts.off) plantMarker(fd, s.model->functions.size() - 1);
  }

  // FnDesc::place: the rank of each function's location; one location, one
  // rank (plugin-core merges what is one function seen twice).
  void rankPlaces() {
    std::vector<FnDesc> &fs = s.model->functions;
    const SourceManager &sm = ctx->getSourceManager();
    std::vector<size_t> order(fs.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    auto at = [&](size_t i) { return sm.getExpansionLoc(firstLoc[i]); };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return sm.isBeforeInTranslationUnit(at(x), at(y)); });
    for (size_t k = 0; k < order.size(); k++) {
      fs[order[k]].place = k && at(order[k]) == at(order[k - 1]) ? fs[order[k - 1]].place : unsigned(k);
      fs[order[k]].fromRules = fromRule[order[k]];
    }
  }

  // Two functions may share a tracing name only as a TF_TP_ENTER/TF_TP_EXIT pair.
  void reportClash(size_t i, size_t j) {
    DiagnosticsEngine &diags = ctx->getDiagnostics();
    report(diags, firstLoc[i], "tracing name '" + s.model->functions[i].tracingName + "' of '" + declNames[i] +
                                   "' is already used by '" + declNames[j] + "' in this translation unit");
    report(diags, firstLoc[j], "'" + declNames[j] + "' is here; give one of them a distinct 'TF_TRACING_NAME'", 2);
  }

  void warnUnusedTracingNames(DiagnosticsEngine &diags) {
    std::set<const Decl *> warned;
    for (const auto &kv : s.fnAttrs) {
      const auto *fd = dyn_cast<FunctionDecl>(kv.first);
      const FnAttrs *a = fd ? s.attrsOf(fd) : nullptr;
      if (a && !a->tracingName.empty() && a->group.empty() && a->tp < 0 && !ruleMonitored.count(fd->getCanonicalDecl()) &&
          warned.insert(fd->getCanonicalDecl()).second)
        report(diags, fd->getLocation(), "'TF_TRACING_NAME' on '" + declName(fd) +
                                             "', which is neither monitored nor an info function", 1);
    }
  }

  // TF_CAPTURE on a function defined here that is neither monitored nor
  // called through a call site here would capture nothing, silently.
  void warnUnusedCaptures(DiagnosticsEngine &diags) {
    std::set<const Decl *> warned;
    for (const auto &kv : s.fnAttrs) {
      const auto *fd = dyn_cast<FunctionDecl>(kv.first);
      const FnAttrs *a = fd ? s.attrsOf(fd) : nullptr;
      const FunctionDecl *def = fd ? fd->getDefinition() : nullptr;
      if (!a || a->capture.empty() || !def || monitored.count(fd->getCanonicalDecl()) ||
          !warned.insert(fd->getCanonicalDecl()).second)
        continue;
      bool called = false;
      for (const std::unique_ptr<CallWrapper> &w : callSites->wrappers)
        called |= w->callee->getCanonicalDecl() == fd->getCanonicalDecl() && s.model->table.id_of(w->name) >= 0 &&
                  (s.model->table.names[size_t(s.model->table.id_of(w->name))].flags & TF_NAME_CALL);
      if (!called)
        report(diags, def->getLocation(), "'TF_CAPTURE' on '" + declName(def) +
                                              "', which is neither monitored nor called through a call site here", 1);
    }
  }

  // verbose=N: the name table, one note per entry at its (first) function.
  void reportNames(DiagnosticsEngine &diags, const TuModel &m) {
    const core::name_table &t = m.table;
    for (size_t i = 0; i < t.names.size(); i++) {
      const core::name_entry &n = t.names[i];
      size_t f = 0;
      while (f < m.functions.size() && m.functions[f].tracingName != n.name) f++;
      std::string group = n.group >= 0 ? t.used_groups[size_t(n.group)] : "";
      report(diags, f < firstLoc.size() ? firstLoc[f] : SourceLocation(),
             "id " + std::to_string(i) + " '" + n.name + "' flags " + std::to_string(n.flags) + " group '" +
                 group + "'",
             3);
    }
  }

  // clang -E (and so -save-temps) runs no plugin action: tf.h then expands to
  // nothing, and compiling its output would silently trace nothing.
  void warnIfPreprocessedWithoutPlugin(ASTContext &c) {
    const auto &inputs = ci.getFrontendOpts().Inputs;
    if (inputs.empty() || !inputs[0].getKind().isPreprocessed() || !s.groups.empty()) return;
    const SourceManager &sm = c.getSourceManager();
    if (sm.getBufferData(sm.getMainFileID()).find("tf/tf.h\"") == llvm::StringRef::npos) return;
    report(c.getDiagnostics(), sm.getLocForStartOfFile(sm.getMainFileID()),
           "this preprocessed input includes tf/tf.h but was preprocessed without __TF_PLUGIN__ "
           "(clang -E does not run the plugin, e.g. with -save-temps): it is not instrumented",
           1);
  }

  // A monitor or call line must name a group declared somewhere (rules file
  // or source); said in line order, as GCC does.
  void checkRuleGroups(DiagnosticsEngine &diags) {
    if (s.rulesFid.isInvalid()) return;
    std::vector<std::pair<unsigned, std::pair<std::string, unsigned>>> used;
    for (const core::rules::match &m : s.rules.monitors) used.push_back({m.line, {m.group, m.group_column}});
    for (const core::rules::call &c : s.rules.calls) used.push_back({c.line, {c.group, c.group_column}});
    std::sort(used.begin(), used.end());
    for (const auto &u : used)
      if (!s.findGroup(u.second.first))
        report(diags, ctx->getSourceManager().translateLineCol(s.rulesFid, u.first, u.second.second),
               "tf: rules: group '" + u.second.first + "' is not declared (add a 'group' line)" +
                   s.groupHint(u.second.first));
  }

  void plantMarker(FunctionDecl *fd, size_t key) {
    ASTContext &c = *ctx;
    Stmt *whole = fd->getBody();
    auto *body = dyn_cast_or_null<CompoundStmt>(whole);
    // A function-try-block of a plain function is its try-block wrapped in a
    // compound statement; a constructor's also covers its initialisers.
    if (!body && isa_and_nonnull<CXXTryStmt>(whole) && !isa<CXXConstructorDecl>(fd) &&
        !isa<CXXDestructorDecl>(fd)) {
      Stmt *only[] = {whole};
      body = TF_COMPOUND_CREATE(c, only, whole->getBeginLoc(), whole->getEndLoc());
    }
    if (!body) {
      core::skip why = isa<CoroutineBodyStmt>(whole) ? core::skip::coroutine : core::skip::ctor_try_block;
      report(c.getDiagnostics(), fd->getLocation(), "'" + declName(fd) + "' is not instrumented: " + core::skip_reason(why), 1);
      return;
    }
    SourceLocation loc = body->getLBracLoc();
    std::vector<Expr *> args;
    std::string keyText = std::to_string(key);
    QualType litTy = c.getStringLiteralArrayType(c.CharTy, unsigned(keyText.size()));
    Expr *lit = StringLiteral::Create(c, keyText, TF_STRING_KIND_ORDINARY, false, litTy, loc);
    Expr *decayed = ImplicitCastExpr::Create(c, c.getPointerType(litTy->getAsArrayTypeUnsafe()->getElementType()),
                                             CK_ArrayToPointerDecay, lit, nullptr, VK_PRValue,
                                             FPOptionsOverride());
    args.push_back(ImplicitCastExpr::Create(c, c.getPointerType(c.CharTy.withConst()), CK_NoOp, decayed,
                                            nullptr, VK_PRValue, FPOptionsOverride()));
    const FnDesc &f = s.model->functions[key];
    size_t pi = 0;
    if (const auto *md = dyn_cast<CXXMethodDecl>(fd); md && md->isInstance() && !md->getParent()->isLambda())
      args.push_back(TF_THIS_EXPR(c, loc, md->getThisType())), pi++;
    for (ParmVarDecl *p : fd->parameters()) {
      if (pi == f.params.size()) break;  // a call wrapper's extra arguments
      const ValueDesc &v = f.params[pi++];
      if (v.load == L_NONE || v.load == L_ZERO) {
        args.push_back(IntegerLiteral::Create(c, llvm::APInt(32, 0), c.IntTy, loc));
        continue;
      }
      QualType t = p->getType().getNonReferenceType();
      Expr *ref = DeclRefExpr::Create(c, NestedNameSpecifierLoc(), SourceLocation(), p, false, loc, t,
                                      VK_LValue);
      args.push_back(UnaryOperator::Create(c, ref, UO_AddrOf, c.getPointerType(t), VK_PRValue,
                                           OK_Ordinary, loc, false, FPOptionsOverride()));
    }
    FunctionDecl *marker = markerDecl();
    Expr *callee = DeclRefExpr::Create(c, NestedNameSpecifierLoc(), SourceLocation(), marker, false, loc,
                                       marker->getType(), c.getLangOpts().CPlusPlus ? VK_LValue : VK_PRValue);
    callee = ImplicitCastExpr::Create(c, c.getPointerType(marker->getType()), CK_FunctionToPointerDecay,
                                      callee, nullptr, VK_PRValue, FPOptionsOverride());
    Stmt *call = CallExpr::Create(c, callee, args, c.VoidTy, VK_PRValue, loc, FPOptionsOverride());
    if (fd->isConsteval()) return;  // never runs outside constant evaluation
    if (fd->isConstexpr()) call = unlessConstantEvaluated(call, loc);
    std::vector<Stmt *> stmts{call};
    stmts.insert(stmts.end(), body->body_begin(), body->body_end());
    fd->setBody(TF_COMPOUND_CREATE(c, stmts, body->getLBracLoc(), body->getRBracLoc()));
  }

  // if (!__builtin_is_constant_evaluated()) then: a constexpr function must
  // stay usable in constant expressions, where the marker cannot be called.
  Stmt *unlessConstantEvaluated(Stmt *then, SourceLocation loc) {
    ASTContext &c = *ctx;
    Sema &sema = ci.getSema();
    auto *builtin = cast<FunctionDecl>(sema.LazilyCreateBuiltin(
        &c.Idents.get("__builtin_is_constant_evaluated"), Builtin::BI__builtin_is_constant_evaluated,
        sema.TUScope, false, loc));
    Expr *ref = DeclRefExpr::Create(c, NestedNameSpecifierLoc(), SourceLocation(), builtin, false, loc,
                                    builtin->getType(), VK_PRValue);
    ref = ImplicitCastExpr::Create(c, c.getPointerType(builtin->getType()), CK_BuiltinFnToFnPtr, ref, nullptr,
                                   VK_PRValue, FPOptionsOverride());
    Expr *test = CallExpr::Create(c, ref, {}, c.BoolTy, VK_PRValue, loc, FPOptionsOverride());
    Expr *unless = UnaryOperator::Create(c, test, UO_LNot, c.BoolTy, VK_PRValue, OK_Ordinary, loc, false,
                                         FPOptionsOverride());
    return IfStmt::Create(c, loc, IfStatementKind::Ordinary, nullptr, nullptr, unless, loc, loc, then);
  }

  // extern const char __tf_model[] __attribute__((weak)) = "<model JSON>";
  // given to every consumer, CodeGen included: CodeGen has not finished the
  // module yet, so the definition lands in the IR the pass will see.
  void handModelToPass(ASTContext &c, const TuModel &m) {
    std::string text = m.serialize();
    // As Sema does for `const char a[] = "..."`: the literal is a prvalue of the array's type.
    QualType ty = c.getConstantArrayType(c.CharTy.withConst(), llvm::APInt(32, text.size() + 1), nullptr,
                                         TF_ARRAY_NORMAL, 0);
    auto *lit = StringLiteral::Create(c, text, TF_STRING_KIND_ORDINARY, false, ty, SourceLocation());
    lit->setValueKind(VK_PRValue);
    auto *var = VarDecl::Create(c, c.getTranslationUnitDecl(), SourceLocation(), SourceLocation(),
                                &c.Idents.get(kModelSymbol), ty, nullptr, SC_Extern);
    var->setInit(lit);
    var->setImplicit();
    var->addAttr(WeakAttr::CreateImplicit(c));
    c.getTranslationUnitDecl()->addDecl(var);
    if (ci.hasASTConsumer()) ci.getASTConsumer().HandleTopLevelDecl(DeclGroupRef(var));
  }

  // void __tf_fn(const char *, ...) nothrow, named "__tf_fn" in IR in C and C++.
  FunctionDecl *markerDecl() {
    if (marker) return marker;
    ASTContext &c = *ctx;
    FunctionProtoType::ExtProtoInfo epi;
    epi.Variadic = true;
    QualType fnTy = c.getFunctionType(c.VoidTy, {c.getPointerType(c.CharTy.withConst())}, epi);
    marker = FunctionDecl::Create(c, c.getTranslationUnitDecl(), SourceLocation(), SourceLocation(),
                                  DeclarationName(&c.Idents.get("__tf_fn")), fnTy, nullptr, SC_Extern);
    ParmVarDecl *key = ParmVarDecl::Create(c, marker, SourceLocation(), SourceLocation(), nullptr,
                                           c.getPointerType(c.CharTy.withConst()), nullptr, SC_None,
                                           nullptr);
    marker->setParams({key});
    marker->setImplicit();
    marker->addAttr(NoThrowAttr::CreateImplicit(c));
    marker->addAttr(AsmLabelAttr::CreateImplicit(c, "__tf_fn", /*LiteralLabel=*/false));
    return marker;
  }

  void writeManifest(DiagnosticsEngine &diags) {
    std::string why;
    if (!tf::core::write_manifest(s.opts.manifest, s.model->manifestJson(), why))
      diags.Report(diags.getCustomDiagID(DiagnosticsEngine::Error, "TF manifest '%0' cannot be written: %1"))
          << tf::core::escaped(s.opts.manifest) << why;
  }

  CompilerInstance &ci;
  Session &s;
  ASTContext *ctx = nullptr;
  std::unique_ptr<Modeler> modeler;
  std::unique_ptr<CallSites> callSites;
  std::set<const Decl *> done;
  std::set<const Decl *> monitored;
  std::set<const Decl *> ruleMonitored;
  std::vector<bool> fromRule;            // per model function: monitored by the rules file
  std::vector<SourceLocation> firstLoc;  // per model function
  std::vector<std::string> declNames;    // per model function, as diagnostics name it
  FunctionDecl *marker = nullptr;
};

}  // namespace

std::unique_ptr<ASTConsumer> makeConsumer(CompilerInstance &ci) {
  return std::make_unique<Consumer>(ci);
}

}  // namespace tf
