// pass.h: what the files of the LLVM pass share (private to them): the
// Instrumenter, whose members live in descriptor.cpp (the TU descriptor),
// hooks.cpp (the IR of each hook), clone.cpp (shape 3.1's fast path and
// traced clone) and pass.cpp (the pass itself). See README.md.
#ifndef TF_CLANG_PASS_H
#define TF_CLANG_PASS_H

#include <map>
#include <set>

#include "compat.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "model.h"
#include "policy.h"

// Only the four pass files include this header; they spell LLVM's names
// unqualified, as the one file they were did.
using namespace llvm;

namespace tf {

// What the pass knows about one instrumented function while it works.
struct Site {
  Function *fn = nullptr;
  CallBase *marker = nullptr;
  const FnDesc *model = nullptr;
  int id = -1;
  Value *mm = nullptr;
  llvm::Function *fast = nullptr;  // shape 3.1: f itself, when s.fn is its clone
};

class Instrumenter {
 public:
  Instrumenter(Module &m, const TuModel &tu, int verbose)
      : m(m), tu(tu), verbose(verbose), ctx(m.getContext()) {
    i8p = TF_PTR_TY(ctx);
    i32 = Type::getInt32Ty(ctx);
    i64 = Type::getInt64Ty(ctx);
    valueTy = record("tf_value");
    argsTy = record("tf_args");
    excTy = record("tf_exception");
  }

  void run(llvm::Function *markerFn);

 private:
  // ---- clone.cpp: shape 3.1, fast path and traced clone ------------------
  bool cloneable(llvm::Function *f) const;
  static bool forSpeed(const llvm::Function *f);
  void makeClone(Site &s);

  // ---- pass.cpp: the sites, monitored and info functions -----------------
  void collect(llvm::Function *markerFn);
  static int markerKey(CallBase *cb);
  void instrumentMonitored(Site &s);
  LoadInst *loadSlot(IRBuilder<> &b, const llvm::Function &f, int id);  // f's slot, as both shapes read it
  ResumeInst *unwindPad(llvm::Function *f, const std::vector<CallInst *> &calls);
  void rewriteInfo(Site &s);
  void rewriteInfoCalls(llvm::Function *old, llvm::Function *nf);
  const Site *siteOf(llvm::Function *f);

  // ---- descriptor.cpp: abi.def records, constants, the TU descriptor ----
  Type *shapeType(core::abi_shape shape);
  StructType *record(const char *name);
  Constant *str(const std::string &s);
  Constant *array(const std::string &name, Type *elt, const std::vector<Constant *> &items);
  Constant *enumType(int index);
  Constant *captureNode(const core::capture_node &n);
  Constant *captureRoot(int index);
  void emitDescriptor();
  llvm::Function *registrar(const char *name, const char *callee, GlobalVariable *tuVar);
  void noticeIfAbsent(IRBuilder<> &b, BasicBlock *done);
  Constant *ptr(Constant *c) { return ConstantExpr::getPointerCast(c, i8p); }
  Constant *u32(uint64_t v) { return ConstantInt::get(i32, v); }
  Constant *nullp() { return ConstantPointerNull::get(cast<PointerType>(i8p)); }

  // ---- hooks.cpp: building hook calls --------------------------------------
  // if (mm) { ...build(b)... } placed just before `at`.
  template <typename F>
  void ifMonitor(Value *mm, Instruction *at, F build) {
    IRBuilder<> b(at);
    Value *cond = b.CreateICmpNE(mm, nullp());
    MDNode *cold = MDBuilder(ctx).createBranchWeights(1, 2000);
    Instruction *then = SplitBlockAndInsertIfThen(cond, at, false, cold);
    IRBuilder<> tb(then);
    build(tb);
  }

  // Values are built only for monitors that read them, and the call is
  // emitted once: `p = mm->ops->flags & TF_OPS_NO_VALUES ? NULL : build();
  // op(..., p)`, where `at` is the position of p in `rest`.
  template <typename F>
  void callWithValues(IRBuilder<> &b, Value *mm, int op, std::vector<Value *> rest, size_t at, F build) {
    Value *ops = loadOps(b, mm);  // once, for the flags and the call (also at -O0)
    Value *flagsAddr = b.CreateConstInBoundsGEP1_32(b.getInt8Ty(), ops, OP_FLAGS);
    Value *flags = b.CreateAlignedLoad(i32, b.CreatePointerCast(flagsAddr, TF_PTR_TO(i32)), Align(4), "tf.flags");
    Value *wanted = b.CreateICmpEQ(b.CreateAnd(flags, u32(TF_OPS_NO_VALUES)), u32(0));
    Instruction *at_ = &*b.GetInsertPoint();
    BasicBlock *head = at_->getParent();
    Instruction *fillT = SplitBlockAndInsertIfThen(wanted, at_, false);
    IRBuilder<> wb(fillT);
    Value *built = build(wb);
    BasicBlock *filled = wb.GetInsertBlock();
    IRBuilder<> cb(at_);
    PHINode *p = cb.CreatePHI(i8p, 2, "tf.vals");
    p->addIncoming(nullp(), head);
    p->addIncoming(built, filled);
    rest[at] = p;
    callOp(cb, mm, op, rest, ops);
  }

  Value *loadOps(IRBuilder<> &b, Value *mm);
  CallInst *callOp(IRBuilder<> &b, Value *mm, int op, ArrayRef<Value *> rest, Value *ops = nullptr);
  AllocaInst *entryAlloca(llvm::Function *f, Type *ty, const char *name);
  Value *payloadFromAddress(IRBuilder<> &b, const ValueDesc &v, Value *addr);
  Value *widen(IRBuilder<> &b, Value *x, bool isSigned);
  Type *fpType(unsigned bits);
  Constant *typeOf(const ValueDesc &v);
  Constant *valueTemplate(const ValueDesc &v);
  FunctionCallee compactHook(bool enter);
  void compactEnter(IRBuilder<> &b, const Site &s, Value *mm, Value *id);
  void compactExit(IRBuilder<> &b, const Site &s, Value *mm, Value *id, ReturnInst *ret, AllocaInst *&payload,
                   Value *&tmpl);
  void storeValue(IRBuilder<> &b, Value *slot, const ValueDesc &v, Value *payload);
  Value *buildArgs(IRBuilder<> &b, const Site &s, AllocaInst *vals, AllocaInst *args);
  AllocaInst *valuesAlloca(llvm::Function *f, size_t n);
  std::string calleeName(CallBase *cb);
  Value *resultPayload(IRBuilder<> &b, const Site &s, ReturnInst *ret);

  Module &m;
  const TuModel &tu;
  int verbose;
  LLVMContext &ctx;
  Type *i8p, *i32, *i64;
  StructType *valueTy, *argsTy, *excTy;
  std::vector<Site> sites;
  std::map<std::string, Constant *> strings;
  std::map<int, Constant *> enums;
  std::map<int, Constant *> captures;  // TuModel::captures index -> its root tf_capture
  std::map<std::string, GlobalVariable *> holders;
  GlobalVariable *slots = nullptr;  // __tf_slots: each monitored function's monitor, by id (ABI 3)
  Constant *slotOf(int id) {
    return ConstantExpr::getInBoundsGetElementPtr(slots->getValueType(), slots,
                                                  ArrayRef<Constant *>{u32(0), u32(uint32_t(id))});
  }
  std::set<llvm::Function *> infoFns;
};

}  // namespace tf

#endif
