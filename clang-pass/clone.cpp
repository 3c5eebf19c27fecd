// clone.cpp: code-shape 3.1 for Clang: which functions can be split, and the
// copy f.tf_traced(params..., mm) with f's fast path in front of its body.

#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"
#include "pass.h"

namespace tf {

// ---- shape 3.1: fast path and traced clone ---------------------------------
// Only a function optimised for speed gets a light clone (plugin-core/size.h,
// light_clone); the descriptor's TF_TU_LIGHT_CLONES says whether one may.
bool Instrumenter::forSpeed(const llvm::Function *f) { return !f->hasOptNone() && !f->hasOptSize(); }

// What cannot be forwarded or copied keeps the in-place shape 3.2.
bool Instrumenter::cloneable(llvm::Function *f) const {
  if (f->isVarArg() || f->hasFnAttribute(Attribute::Naked) || f->hasFnAttribute(Attribute::NoDuplicate) ||
      f->hasFnAttribute(Attribute::ReturnsTwice))
    return false;
  for (Argument &a : f->args())
    if (a.hasInAllocaAttr() || a.hasPreallocatedAttr() || a.hasSwiftErrorAttr() ||
        a.hasAttribute(Attribute::SwiftAsync))
      return false;
  for (BasicBlock &bb : *f) {
    if (bb.hasAddressTaken()) return false;
    for (Instruction &i : bb) {
      if (isa<IndirectBrInst>(&i) || isa<CallBrInst>(&i)) return false;
      auto *cb = dyn_cast<CallBase>(&i);
      if (!cb) continue;
      if (auto *ci = dyn_cast<CallInst>(cb))
        if (ci->isMustTailCall()) return false;
      if (cb->hasFnAttr(Attribute::ReturnsTwice) || cb->cannotDuplicate()) return false;
      if (llvm::Function *callee = cb->getCalledFunction()) {
        if (callee->hasFnAttribute(Attribute::ReturnsTwice)) return false;
        // A static function called only here: the copy would give it a second
        // caller and LLVM would no longer inline it as a static function's last
        // call (its large bonus), so with tracing off f would run slower than
        // without TF (SQLite, bench/README.md "What is left"). In place, f's one
        // body keeps the one call. (f's calls of info functions are removed.)
        if (callee != f && callee->hasLocalLinkage() && !callee->isDeclaration() && callee->hasOneUse() &&
            !infoFns.count(callee))
          return false;
        Intrinsic::ID iid = callee->getIntrinsicID();
        if (iid == Intrinsic::localescape || iid == Intrinsic::vastart || iid == Intrinsic::eh_sjlj_setjmp)
          return false;
        // In the clone they would be the clone's (its caller is f, unless
        // f's call of it becomes a jump), not f's.
        if (iid == Intrinsic::returnaddress || iid == Intrinsic::frameaddress ||
            iid == Intrinsic::addressofreturnaddress || iid == Intrinsic::sponentry)
          return false;
      }
    }
  }
  return true;
}

// Copies f (not yet instrumented) into f.tf_traced(params..., mm); the site
// moves to the clone, and f becomes: load the holder, branch unlikely to
// the clone, else its own body without info calls.
void Instrumenter::makeClone(Site &s) {
  llvm::Function *f = s.fn;
  std::vector<Type *> params(f->getFunctionType()->param_begin(), f->getFunctionType()->param_end());
  params.push_back(i8p);
  auto *fty = FunctionType::get(f->getReturnType(), params, false);
  auto *c = llvm::Function::Create(fty, GlobalValue::InternalLinkage, f->getAddressSpace(),
                                   f->getName() + ".tf_traced", &m);
  ValueToValueMapTy vmap;
  for (unsigned i = 0; i < f->arg_size(); i++) {
    vmap[f->getArg(i)] = c->getArg(i);
    c->getArg(i)->setName(f->getArg(i)->getName());
  }
  SmallVector<ReturnInst *, 8> rets;
  CloneFunctionInto(c, f, vmap, CloneFunctionChangeType::LocalChangesOnly, rets);
  c->setLinkage(GlobalValue::InternalLinkage);
  c->setVisibility(GlobalValue::DefaultVisibility);
  c->setDLLStorageClass(GlobalValue::DefaultStorageClass);
  // Not in f's COMDAT group: once f's fast path is inlined into a caller
  // outside the group, that caller calls this object's clone, and the
  // linker may discard this object's copy of the group. Each object keeps
  // its own clone, which hooks with its own ids; the copy of f the linker
  // keeps calls the clone of its own object.
  c->setComdat(nullptr);
  c->removeFnAttr(Attribute::AlwaysInline);
  c->removeFnAttr(Attribute::InlineHint);
  c->addFnAttr(Attribute::NoInline);
  // Cold, unless its body has a loop and clone-opt=full (plugin-core/size.h, hot_clone).
  if (!core::hot_clone(s.model->size, tu.lightClones))
    c->addFnAttr(Attribute::Cold);
  // Light (plugin-core/size.h, light_clone): optimised for size, which
  // leaves callees out of line in it, unless f itself is not for speed.
  if (core::light_clone(s.model->size, tu.lightClones) && forSpeed(f)) {
    c->addFnAttr(Attribute::OptimizeForSize);
    c->addFnAttr(Attribute::MinSize);
  }
  // -finstrument-functions: f's own entry and exit already cover a traced
  // call (they are added around f, fast path included, after this pass).
  for (const char *a : {"instrument-function-entry", "instrument-function-exit",
                        "instrument-function-entry-inlined", "instrument-function-exit-inlined"})
    c->removeFnAttr(a);
  // -fsanitize=function: f's prologue data (its signature for checked
  // indirect calls; prefix data or metadata in other LLVMs) holds an offset
  // from f; copied onto the clone, which lives in another section when
  // cold, it is unrepresentable. Only f is ever called indirectly.
  c->setPrologueData(nullptr);
  c->setPrefixData(nullptr);
  c->setMetadata("func_sanitize", nullptr);
  Argument *mm = c->getArg(f->arg_size());
  mm->setName("tf.mm");
  mm->addAttr(Attribute::NonNull);  // f calls the clone only with a monitor: no `if (mm)` left in it
  auto *cm = cast<CallBase>(vmap[s.marker]);

  // f: info calls removed (they only report, and only with a monitor).
  std::vector<CallBase *> infos;
  for (BasicBlock &bb : *f)
    for (Instruction &i : bb)
      if (auto *cb = dyn_cast<CallBase>(&i))
        if (cb->getCalledFunction() && infoFns.count(cb->getCalledFunction())) infos.push_back(cb);
  for (CallBase *cb : infos) {
    if (!cb->use_empty()) cb->replaceAllUsesWith(UndefValue::get(cb->getType()));
    if (auto *inv = dyn_cast<InvokeInst>(cb)) {
      BranchInst::Create(inv->getNormalDest(), inv);
      inv->getUnwindDest()->removePredecessor(inv->getParent());
    }
    cb->eraseFromParent();
  }

  // f's new entry: its static allocas, the load, the unlikely branch.
  BasicBlock *body = &f->getEntryBlock();
  BasicBlock *entry = BasicBlock::Create(ctx, "tf.entry", f, body);
  BasicBlock *traced = BasicBlock::Create(ctx, "tf.traced", f, body);
  std::vector<AllocaInst *> allocas;
  for (Instruction &i : *body)
    if (auto *a = dyn_cast<AllocaInst>(&i))
      if (a->isStaticAlloca()) allocas.push_back(a);
  IRBuilder<> b(entry);
  for (AllocaInst *a : allocas) a->moveBefore(*entry, entry->end());
  DebugLoc dl = s.marker->getDebugLoc();
  if (!dl && f->getSubprogram())
    dl = DILocation::get(ctx, f->getSubprogram()->getScopeLine(), 0, f->getSubprogram());
  b.SetCurrentDebugLocation(dl);
  LoadInst *load = loadSlot(b, *f, s.id);
  b.CreateCondBr(b.CreateICmpNE(load, nullp()), traced, body, MDBuilder(ctx).createBranchWeights(1, 2000));
  IRBuilder<> tb(traced);
  tb.SetCurrentDebugLocation(dl);
  std::vector<Value *> args;
  for (Argument &a : f->args()) args.push_back(&a);
  args.push_back(load);
  CallInst *call = tb.CreateCall(c, args);
  call->setCallingConv(c->getCallingConv());
  call->setAttributes(c->getAttributes());
  bool byval = false;
  for (Argument &a : f->args()) byval |= a.hasByValAttr();
  if (!byval) call->setTailCallKind(CallInst::TCK_Tail);
  if (f->getReturnType()->isVoidTy())
    tb.CreateRetVoid();
  else
    tb.CreateRet(call);

  s.fast = f;
  s.fn = c;
  s.marker = cm;
  s.mm = mm;
  if (verbose > 1) errs() << "tf: '" << s.model->function << "' gets the fast path and clone " << c->getName() << "\n";
}

}  // namespace tf
