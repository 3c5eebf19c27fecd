// calls.cpp: call sites for Clang (docs/code-shape.md section 7, plugin-core
// call_sites.h). Each function body is searched for the calls a `call` rules
// line or the caller's TF_CALLS asks for; each one the policy lets through
// is made to call a wrapper,
//
//     static inline __attribute__((always_inline)) RET __tf_call.N(PARAMS)
//     { return CALLEE(PARAMS); }
//
// one per callee (per callee and argument types for a variadic one, whose
// extra arguments become parameters the hooks do not report), built as AST
// here. analysis.cpp then models each wrapper as a monitored function under
// the callee's name, so the pass instruments it as any other: the fast path,
// the traced clone, values, captures, unwinding. Inlined into its caller,
// the wrapper leaves one load and one branch at the site.
//
// The AST is where the calls the source wrote are: code generation turns
// some library builtins into instructions, and only calls every compiler
// computes itself are left out (builtin_expression, constant arguments), as
// GCC's plugin leaves them out (gcc-plugin/calls.cc).
#include "analysis.h"
#include "describe.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Builtins.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace tf {

namespace {

// The calls evaluated at run time in one body: not those in unevaluated
// operands (sizeof, decltype, noexcept, typeid of a non-polymorphic type,
// _Generic's other choices), constant expressions, lambdas and blocks
// (functions of their own) or local classes.
struct Finder : RecursiveASTVisitor<Finder> {
  std::vector<CallExpr *> calls;
  bool VisitCallExpr(CallExpr *c) {
    calls.push_back(c);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseBlockExpr(BlockExpr *) { return true; }
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) { return true; }
  bool TraverseCXXNoexceptExpr(CXXNoexceptExpr *) { return true; }
  bool TraverseConstantExpr(ConstantExpr *) { return true; }
  bool TraverseCXXTypeidExpr(CXXTypeidExpr *e) {
    return e->isPotentiallyEvaluated() ? RecursiveASTVisitor::TraverseCXXTypeidExpr(e) : true;
  }
  bool TraverseGenericSelectionExpr(GenericSelectionExpr *e) {
    return e->isResultDependent() || TraverseStmt(e->getResultExpr());
  }
  bool TraverseDecltypeTypeLoc(DecltypeTypeLoc) { return true; }
  bool TraverseTypeOfExprTypeLoc(TypeOfExprTypeLoc) { return true; }
  bool TraverseCXXRecordDecl(CXXRecordDecl *) { return true; }
  bool TraverseRecordDecl(RecordDecl *) { return true; }
  // None in a body; skipped so GCC does not instantiate (and warn about) the
  // base-class walk in clang's headers.
  bool TraverseClassTemplateSpecializationDecl(ClassTemplateSpecializationDecl *) { return true; }
  bool TraverseClassTemplatePartialSpecializationDecl(ClassTemplatePartialSpecializationDecl *) { return true; }
  bool TraverseStaticAssertDecl(StaticAssertDecl *) { return true; }
};

// C++ members, constructors, destructors, operators and conversions: no
// plugin counts them (call_sites.h).
bool cxxSpecial(const CallExpr *call, const FunctionDecl *fd) {
  if (isa<CXXOperatorCallExpr>(call) || isa<CXXMemberCallExpr>(call) || fd->isOverloadedOperator() ||
      fd->getDeclName().getNameKind() == DeclarationName::CXXLiteralOperatorName)
    return true;
  const auto *md = dyn_cast<CXXMethodDecl>(fd);
  return md && md->isInstance();
}

// A C++ object that is not trivially copyable, passed or returned by value
// (GCC: TREE_ADDRESSABLE): a wrapper would copy it once more.
bool objectByValue(const FunctionDecl *fd) {
  auto nonTrivial = [](QualType t) {
    const CXXRecordDecl *rd = t->getAsCXXRecordDecl();
    return rd && rd->hasDefinition() && !rd->canPassInRegisters();
  };
  if (nonTrivial(fd->getReturnType())) return true;
  for (const ParmVarDecl *p : fd->parameters())
    if (nonTrivial(p->getType())) return true;
  return false;
}

}  // namespace

bool CallSites::ignored(CallExpr *call, const FunctionDecl *fd, const std::string &name) {
  if (cxxSpecial(call, fd) || fd->isConsteval() || core::call_ignored(name)) return true;
  const FnAttrs *a = s.attrsOf(fd);
  if (a && a->tp >= 0) return true;  // an info function
  unsigned id = fd->getBuiltinID();
  if (!id) return false;
  if (!ctx.BuiltinInfo.isPredefinedLibFunction(id) || core::builtin_expression(name)) return true;
  // A library builtin of constant arguments is a constant, as GCC folds it.
  Expr::EvalResult r;
  return call->isPRValue() && call->EvaluateAsRValue(r, ctx) && !r.HasSideEffects;
}

void CallSites::record(CallExpr *call, const Caller &c, const std::string &callee, core::call_skip skip,
                       const std::string &group, unsigned rule) {
  const SourceManager &sm = ctx.getSourceManager();
  core::call_site site;
  site.caller = c.name;
  site.callee = callee;
  site.file = presumedFile(sm, call->getBeginLoc(), &site.line);
  site.group = group;
  site.rule = rule;
  site.skip = skip;
  model.sites.push_back(site);
  locs.push_back(sm.getExpansionLoc(call->getBeginLoc()));
}

// The wrapper's parameter types: the callee's declared ones, then the types
// of the extra arguments of a variadic (or unprototyped) call, as promoted.
std::vector<QualType> CallSites::paramTypes(const FunctionDecl *fd, const CallExpr *call, size_t &declared) {
  std::vector<QualType> types;
  const auto *proto = fd->getType()->getAs<FunctionProtoType>();
  if (proto)
    for (QualType t : proto->getParamTypes()) types.push_back(t);
  declared = types.size();
  for (unsigned i = unsigned(types.size()); i < call->getNumArgs(); i++)
    types.push_back(call->getArg(i)->getType().getUnqualifiedType());
  if (!proto) declared = types.size();
  return types;
}

// `p` as an argument: a prvalue of its value, an xvalue for an rvalue reference.
Expr *CallSites::argument(ParmVarDecl *p) {
  QualType t = p->getType();
  Expr *ref = DeclRefExpr::Create(ctx, NestedNameSpecifierLoc(), SourceLocation(), p, false, p->getLocation(),
                                  t.getNonReferenceType(), VK_LValue);
  if (t->isLValueReferenceType()) return ref;
  if (t->isRValueReferenceType())
    return ImplicitCastExpr::Create(ctx, t.getNonReferenceType(), CK_NoOp, ref, nullptr, VK_XValue,
                                    FPOptionsOverride());
  return ImplicitCastExpr::Create(ctx, t, CK_LValueToRValue, ref, nullptr, VK_PRValue, FPOptionsOverride());
}

// A reference to fd as a callee: the function decayed to its pointer.
Expr *CallSites::calleeRef(FunctionDecl *fd, SourceLocation loc) {
  Expr *ref = DeclRefExpr::Create(ctx, NestedNameSpecifierLoc(), SourceLocation(), fd, false, loc, fd->getType(),
                                  ctx.getLangOpts().CPlusPlus ? VK_LValue : VK_PRValue);
  return ImplicitCastExpr::Create(ctx, ctx.getPointerType(fd->getType()), CK_FunctionToPointerDecay, ref, nullptr,
                                  VK_PRValue, FPOptionsOverride());
}

FunctionDecl *CallSites::makeWrapper(const FunctionDecl *fd, const std::vector<QualType> &types, size_t declared,
                                     SourceLocation loc) {
  QualType ret = fd->getReturnType();
  FunctionProtoType::ExtProtoInfo epi;
  const auto *proto = fd->getType()->getAs<FunctionProtoType>();
  if (ctx.getLangOpts().CPlusPlus && proto && proto->isNothrow()) epi.ExceptionSpec.Type = EST_BasicNoexcept;
  QualType type = ctx.getFunctionType(ret, types, epi);
  std::string name = "__tf_call." + std::to_string(wrappers.size());
  auto *w = FunctionDecl::Create(ctx, ctx.getTranslationUnitDecl(), loc, loc, &ctx.Idents.get(name), type,
                                 ctx.getTrivialTypeSourceInfo(type), SC_Static, false, true);
  std::vector<ParmVarDecl *> params;
  std::vector<Expr *> args;
  for (size_t i = 0; i < types.size(); i++) {
    IdentifierInfo *id = i < declared && i < fd->getNumParams() ? fd->getParamDecl(unsigned(i))->getIdentifier()
                                                               : nullptr;
    auto *p = ParmVarDecl::Create(ctx, w, loc, loc, id, types[i], ctx.getTrivialTypeSourceInfo(types[i]), SC_None,
                                  nullptr);
    p->setScopeInfo(0, unsigned(i));
    params.push_back(p);
    args.push_back(argument(p));
  }
  w->setParams(params);
  Expr *call = CallExpr::Create(ctx, calleeRef(const_cast<FunctionDecl *>(fd), loc), args,
                                ret.getNonReferenceType(), Expr::getValueKindForType(ret), loc, FPOptionsOverride());
  Stmt *body = ret->isVoidType() ? static_cast<Stmt *>(call) : ReturnStmt::Create(ctx, loc, call, nullptr);
  w->setBody(TF_COMPOUND_CREATE(ctx, llvm::ArrayRef<Stmt *>(body), loc, loc));
  w->addAttr(AlwaysInlineAttr::CreateImplicit(ctx));
  // -finstrument-functions: the call is the caller's, not a function of its
  // own (as with GCC's wrapper).
  w->addAttr(NoInstrumentFunctionAttr::CreateImplicit(ctx));
  w->addAttr(AsmLabelAttr::CreateImplicit(ctx, name, /*LiteralLabel=*/false));
  if (fd->hasAttr<NoThrowAttr>()) w->addAttr(NoThrowAttr::CreateImplicit(ctx));
  w->setImplicit();
  return w;
}

// The wrapper for calls of fd with these parameter types, made once.
CallWrapper &CallSites::wrapperFor(const FunctionDecl *fd, CallExpr *call, const std::string &name) {
  size_t declared;
  std::vector<QualType> types = paramTypes(fd, call, declared);
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(fd->getCanonicalDecl()));
  for (QualType t : types)
    key += "," + std::to_string(reinterpret_cast<uintptr_t>(t.getCanonicalType().getAsOpaquePtr()));
  auto it = byKey.find(key);
  if (it != byKey.end()) return *wrappers[it->second];
  byKey[key] = wrappers.size();
  wrappers.push_back(std::make_unique<CallWrapper>());
  CallWrapper &w = *wrappers.back();
  w.decl = makeWrapper(fd, types, declared, call->getBeginLoc());
  w.callee = fd;
  w.name = name;
  w.declared = declared;
  return w;
}

// Makes the call call the wrapper. A constexpr callee stays the callee in
// constant evaluation: `(__builtin_is_constant_evaluated() ? callee :
// wrapper)(args)`, which code generation folds to a direct call.
void CallSites::rewrite(CallExpr *call, const FunctionDecl *fd, FunctionDecl *w) {
  SourceLocation loc = call->getBeginLoc();
  Expr *to = calleeRef(w, loc);
  if (fd->isConstexpr() && !fd->isVariadic() && ctx.hasSameType(fd->getType(), w->getType())) {
    Sema &sema = ci.getSema();
    auto *builtin = cast<FunctionDecl>(sema.LazilyCreateBuiltin(&ctx.Idents.get("__builtin_is_constant_evaluated"),
                                                               Builtin::BI__builtin_is_constant_evaluated,
                                                               sema.TUScope, false, loc));
    Expr *bref = DeclRefExpr::Create(ctx, NestedNameSpecifierLoc(), SourceLocation(), builtin, false, loc,
                                     builtin->getType(), VK_PRValue);
    bref = ImplicitCastExpr::Create(ctx, ctx.getPointerType(builtin->getType()), CK_BuiltinFnToFnPtr, bref, nullptr,
                                    VK_PRValue, FPOptionsOverride());
    Expr *test = CallExpr::Create(ctx, bref, {}, ctx.BoolTy, VK_PRValue, loc, FPOptionsOverride());
    to = new (ctx) ConditionalOperator(test, loc, calleeRef(const_cast<FunctionDecl *>(fd), loc), loc, to,
                                       to->getType(), VK_PRValue, OK_Ordinary);
  }
  call->setCallee(to);
}

void CallSites::find(FunctionDecl *caller, const Caller &c, bool rewriteCalls) {
  if (!c.rules && !c.attr) return;
  Finder finder;
  finder.TraverseStmt(caller->getBody());
  for (CallExpr *call : finder.calls) {
    std::string group;
    unsigned rule;
    const FunctionDecl *fd = call->getDirectCallee();
    if (!fd) {
      if (!isa<CXXPseudoDestructorExpr>(call->getCallee()->IgnoreParens()) && !isa<CUDAKernelCallExpr>(call) &&
          core::call_wanted(c.rules, c.attr, c.file, c.name, "", group, rule))
        record(call, c, "", core::call_skip::indirect, group, rule);
      continue;
    }
    std::string name = nameOf(fd);
    if (ignored(call, fd, name) || !core::call_wanted(c.rules, c.attr, c.file, c.name, name, group, rule)) continue;
    core::callee_facts f;
    f.name = name;
    f.noreturn = fd->isNoReturn();
    unsigned id = fd->getBuiltinID();
    f.returns_twice = fd->hasAttr<ReturnsTwiceAttr>() || (id && ctx.BuiltinInfo.isReturnsTwice(id));
    f.object_by_value = objectByValue(fd);
    for (const Expr *arg : call->arguments()) f.variable_size |= arg->getType()->isVariablyModifiedType();
    core::call_skip skip = core::call_policy(f);
    record(call, c, name, skip, group, rule);
    if (skip != core::call_skip::none) continue;
    CallWrapper &w = wrapperFor(fd, call, name);
    w.sites.push_back(model.sites.size() - 1);
    if (rewriteCalls) rewrite(call, fd, w.decl);
  }
}

void CallSites::graph(FunctionDecl *caller, const Caller &c) {
  Finder finder;
  finder.TraverseStmt(caller->getBody());
  const SourceManager &sm = ctx.getSourceManager();
  for (CallExpr *call : finder.calls) {
    const FunctionDecl *fd = call->getDirectCallee();
    std::string name = fd ? nameOf(fd) : "";
    if (!fd || ignored(call, fd, name)) continue;
    core::call_site site;
    site.caller = c.name;
    site.callee = name;
    site.file = presumedFile(sm, call->getBeginLoc(), &site.line);
    model.graph.push_back(site);
  }
}

void CallSites::rank() {
  const SourceManager &sm = ctx.getSourceManager();
  std::vector<size_t> order(locs.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sm.isBeforeInTranslationUnit(locs[a], locs[b]); });
  for (size_t k = 0; k < order.size(); k++) model.sites[order[k]].place = unsigned(k);
}

}  // namespace tf
