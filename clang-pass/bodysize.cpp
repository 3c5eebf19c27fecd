// bodysize.cpp: a function body's size as plugin-core/size.h defines it,
// counted on Clang's AST (gcc-plugin/bodysize.cc counts the same things in
// GCC's GENERIC, so the two plugins and tf-scan decide alike).
// GCC's -Wnonnull sees the visitor's bases() walk (LazyOffsetPtr::get
// through a null external source, a path it cannot rule out): a false
// warning, as in capture.cpp; reported in the header, so set before it.
#pragma GCC diagnostic ignored "-Wnonnull"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "analysis.h"

using namespace clang;

namespace tf {

namespace {

struct Sizer : RecursiveASTVisitor<Sizer> {
  core::body_size size;

  // Their bodies are functions of their own; sizeof and friends are not run.
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseBlockExpr(BlockExpr *) { return true; }
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) { return true; }

  bool VisitCallExpr(CallExpr *) { return call(); }
  bool VisitCXXConstructExpr(CXXConstructExpr *) { return call(); }
  bool VisitCXXNewExpr(CXXNewExpr *) { return call(); }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *) { return call(); }
  bool VisitBinaryOperator(BinaryOperator *e) {
    return e->isAssignmentOp() || e->isLogicalOp() ? count() : true;
  }
  bool VisitUnaryOperator(UnaryOperator *e) { return e->isIncrementDecrementOp() ? count() : true; }
  bool VisitVarDecl(VarDecl *v) { return v->hasLocalStorage() && v->hasInit() ? count() : true; }
  bool VisitIfStmt(IfStmt *) { return count(); }
  bool VisitAbstractConditionalOperator(AbstractConditionalOperator *) { return count(); }
  bool VisitSwitchStmt(SwitchStmt *) { return count(); }

  bool VisitForStmt(ForStmt *) { return loop(); }
  bool VisitWhileStmt(WhileStmt *) { return loop(); }
  bool VisitDoStmt(DoStmt *) { return loop(); }
  bool VisitCXXForRangeStmt(CXXForRangeStmt *) { return loop(); }
  bool VisitGotoStmt(GotoStmt *) { return count(); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return count(); }

  bool count() {
    size.ops++;
    return true;
  }
  bool call() {
    size.calls++;
    return count();
  }
  bool loop() {
    size.loops++;
    return count();
  }
};

}  // namespace

core::body_size bodySize(const FunctionDecl *fd) {
  Sizer s;
  // A constructor's member initialisers run in its body as GCC sees it.
  if (const auto *ctor = dyn_cast<CXXConstructorDecl>(fd))
    for (const CXXCtorInitializer *init : ctor->inits())
      if (init->isWritten()) s.TraverseStmt(init->getInit());
  s.TraverseStmt(fd->getBody());
  return s.size;
}

}  // namespace tf
