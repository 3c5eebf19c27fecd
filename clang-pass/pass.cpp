// pass.cpp: the LLVM new-pass-manager pass that instruments a module exactly
// as docs/code-shape.md says. It runs at PipelineStartEP (before any inlining,
// at -O0 too) and works from the TuModel the front end left (model.h) and the
// marker calls it planted (analysis.cpp): the marker says which function it is
// in and where its parameters live.
//
// Debugging: clang -fplugin=tf-clang.so -emit-llvm -S -o - x.c shows the
// result; -fplugin-arg-tf-verbose=2 lists each function instrumented.
//
// descriptor.cpp, hooks.cpp and clone.cpp hold the rest of the Instrumenter
// (pass.h).

#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Local.h"
#include "pass.h"

namespace tf {

void Instrumenter::run(llvm::Function *markerFn) {
  if (markerFn) collect(markerFn);
  emitDescriptor();
  for (Site &s : sites)
    if (s.model->role == R_INFO) infoFns.insert(s.fn);
  for (Site &s : sites)
    if (s.model->role == R_MONITOR) {
      // A call wrapper keeps the hooks in place, as with GCC (calls.cpp).
      // One large enough that calls others keeps them in place too
      // (plugin-core/size.h): its clone would double a body whose off path
      // pays a small part of its call for the check.
      if (!s.model->call && !core::hooks_in_place(s.model->size, tu.inplaceSize) && cloneable(s.fn))
        makeClone(s);
      instrumentMonitored(s);
    }
  for (Site &s : sites)
    if (s.model->role == R_INFO) rewriteInfo(s);
  for (Site &s : sites) {
    s.fn->addFnAttr("tf-enhanced");
    if (s.fast) s.fast->addFnAttr("tf-enhanced");
  }
}

// ---- finding the sites ---------------------------------------------------
void Instrumenter::collect(llvm::Function *markerFn) {
  std::vector<CallBase *> markers;
  for (User *u : markerFn->users())
    if (auto *cb = dyn_cast<CallBase>(u)) markers.push_back(cb);
  for (CallBase *cb : markers) {
    int key = markerKey(cb);
    llvm::Function *f = cb->getFunction();
    if (key < 0 || size_t(key) >= tu.functions.size() || f->hasFnAttribute("tf-enhanced")) {
      cb->eraseFromParent();
      continue;
    }
    Site s;
    s.fn = f;
    s.marker = cb;
    s.model = &tu.functions[size_t(key)];
    s.id = tu.table.id_of(s.model->tracingName);
    // A call wrapper whose callee's name a function of this TU has stays a
    // plain forwarder: that function's events trace the call.
    if (s.model->call && (s.id < 0 || !(tu.table.names[size_t(s.id)].flags & TF_NAME_CALL))) {
      cb->eraseFromParent();
      continue;
    }
    sites.push_back(s);
  }
}

/* The slot is read with a monotonic (relaxed) load, as GCC's plugin reads it
 * with a volatile one: the hooks only dereference what it returns, so the
 * address dependency orders the monitor's fields after it (the kernel's
 * READ_ONCE / rcu_dereference idiom; true on every target but Alpha). An
 * acquire load is an ordering point LLVM may not move later memory accesses
 * above, which costs where many monitored functions are inlined into one hot
 * function (speedtest1, every function through rules: 1.107x the plain
 * build's instructions with acquire, 1.082x with monotonic; bench/README.md).
 * Under -fsanitize=thread it stays an acquire load, so TSan sees the pairing
 * with the registry's release store. */
LoadInst *Instrumenter::loadSlot(IRBuilder<> &b, const llvm::Function &f, int id) {
  LoadInst *load = b.CreateAlignedLoad(i8p, slotOf(id), Align(8), "tf.mm");
  load->setAtomic(f.hasFnAttribute(Attribute::SanitizeThread) ? AtomicOrdering::Acquire
                                                              : AtomicOrdering::Monotonic);
  return load;
}

int Instrumenter::markerKey(CallBase *cb) {
  auto *gv = dyn_cast<GlobalVariable>(cb->getArgOperand(0)->stripPointerCasts());
  if (!gv || !gv->hasInitializer()) return -1;
  auto *data = dyn_cast<ConstantDataArray>(gv->getInitializer());
  if (!data || !data->isCString()) return -1;
  int key = -1;
  if (data->getAsCString().getAsInteger(10, key)) return -1;
  return key;
}

// ---- monitored functions (code-shape section 3 and 5) ---------------------
void Instrumenter::instrumentMonitored(Site &s) {
  llvm::Function *f = s.fn;
  std::vector<ReturnInst *> rets;
  std::vector<ResumeInst *> resumes;
  std::vector<CallInst *> mayThrow;
  std::vector<CallBase *> throws, noreturns;
  for (BasicBlock &bb : *f)
    for (Instruction &i : bb) {
      if (auto *r = dyn_cast<ReturnInst>(&i)) rets.push_back(r);
      if (auto *r = dyn_cast<ResumeInst>(&i)) resumes.push_back(r);
      if (auto *lp = dyn_cast<LandingPadInst>(&i)) lp->setCleanup(true);
      auto *cb = dyn_cast<CallBase>(&i);
      if (!cb || cb == s.marker) continue;
      llvm::Function *callee = cb->getCalledFunction();
      std::string name = callee ? callee->getName().str() : "";
      core::call_hook hook = cb->isInlineAsm() ? core::call_hook::none
                                               : core::hook_for_call(name, cb->doesNotReturn());
      if (hook == core::call_hook::throw_typed || hook == core::call_hook::rethrow)
        throws.push_back(cb);
      else if (hook == core::call_hook::noreturn)
        noreturns.push_back(cb);
      auto *ci = dyn_cast<CallInst>(cb);
      if (ci && !ci->doesNotThrow() && !ci->isInlineAsm() && !ci->isMustTailCall() &&
          !(callee && callee->isIntrinsic()))
        mayThrow.push_back(ci);
    }

  // mm: loaded once, at entry, for the whole call (3.1: f loaded it and passed it).
  // In place, and in the clone of a function of compact_clone_size operations
  // or more, the hooks that report values take their compact form (3.2).
  Value *mm = s.mm;
  bool compact = !mm || core::compact_clone(s.model->size);
  if (!mm) {
    IRBuilder<> eb(&*f->getEntryBlock().getFirstInsertionPt());
    s.mm = mm = loadSlot(eb, *f, s.id);
  }
  Value *id = u32(uint32_t(s.id));

  AllocaInst *vals = compact ? nullptr : valuesAlloca(f, s.model->params.size());
  AllocaInst *args = compact ? nullptr : entryAlloca(f, argsTy, "tf.args");
  ifMonitor(mm, s.marker, [&](IRBuilder<> &b) {
    if (compact) return compactEnter(b, s, mm, id);
    callWithValues(b, mm, OP_ENTER, {id, nullptr}, 1, [&](IRBuilder<> &vb) { return buildArgs(vb, s, vals, args); });
  });

  AllocaInst *exc = nullptr;
  auto excArg = [&](IRBuilder<> &b, int kind, Value *name, Value *data) {
    if (!exc) exc = entryAlloca(f, excTy, "tf.exc");
    b.CreateStore(u32(uint32_t(kind)), b.CreateStructGEP(excTy, exc, 0));
    b.CreateStore(u32(0), b.CreateStructGEP(excTy, exc, 1));
    b.CreateStore(name, b.CreateStructGEP(excTy, exc, 2));
    b.CreateStore(b.CreatePointerCast(data, i8p), b.CreateStructGEP(excTy, exc, 3));
    return b.CreatePointerCast(exc, i8p);
  };
  for (CallBase *t : throws)
    ifMonitor(mm, t, [&](IRBuilder<> &b) {
      Value *ti = t->arg_size() >= 2 ? t->getArgOperand(1) : static_cast<Value *>(nullp());
      callOp(b, mm, OP_EXCEPTION, {id, excArg(b, core::TF_EXC_THROW, nullp(), ti)});
    });
  for (CallBase *n : noreturns)
    ifMonitor(mm, n, [&](IRBuilder<> &b) {
      callOp(b, mm, OP_EXCEPTION, {id, excArg(b, core::TF_EXC_NORETURN, str(calleeName(n)), nullp())});
    });

  AllocaInst *result = nullptr;
  AllocaInst *resultSlot = nullptr;  // compact: the result's payload slot
  Value *resultTmpl = nullptr;       // and its template
  for (ReturnInst *r : rets) {
    // Nothing may come between a musttail call and its ret: exit before the call.
    auto *tail = dyn_cast_or_null<CallInst>(r->getPrevNode());
    bool must = tail && tail->isMustTailCall();
    ifMonitor(mm, must ? static_cast<Instruction *>(tail) : r, [&](IRBuilder<> &b) {
      if (s.model->isVoid || must) {
        callOp(b, mm, OP_EXIT, {id, nullp()});
        return;
      }
      if (compact) return compactExit(b, s, mm, id, r, resultSlot, resultTmpl);
      if (!result) result = entryAlloca(f, valueTy, "tf.result");
      callWithValues(b, mm, OP_EXIT, {id, nullptr}, 1, [&](IRBuilder<> &vb) {
        storeValue(vb, result, s.model->result, resultPayload(vb, s, r));
        return vb.CreatePointerCast(result, i8p);
      });
    });
  }

  if (!f->hasFnAttribute(Attribute::NoUnwind) && !mayThrow.empty()) {
    ResumeInst *ours = unwindPad(f, mayThrow);
    resumes.push_back(ours);
  }
  for (ResumeInst *r : resumes)
    ifMonitor(mm, r, [&](IRBuilder<> &b) {
      Value *obj = b.CreateExtractValue(r->getValue(), {0});
      callOp(b, mm, OP_EXCEPTION, {id, excArg(b, core::TF_EXC_UNWIND, nullp(), obj)});
      callOp(b, mm, OP_EXIT, {id, nullp()});
    });
  if (verbose > 1) {
    errs() << "tf: instrumented '" << s.model->function << "' as monitor id " << s.id;
    if (!s.model->call && core::hooks_in_place(s.model->size, tu.inplaceSize))
      errs() << " (hooks in place: " << core::in_place_text(s.model->size, tu.inplaceSize) << ")";
    errs() << "\n";
  }
}

// Turns every call that may throw into an invoke of one cleanup pad that
// resumes; returns its resume (instrumented like every other).
ResumeInst *Instrumenter::unwindPad(llvm::Function *f, const std::vector<CallInst *> &calls) {
  if (!f->hasPersonalityFn()) {
    const char *name = tu.cplusplus ? "__gxx_personality_v0" : "__gcc_personality_v0";
    FunctionCallee p = m.getOrInsertFunction(name, FunctionType::get(i32, true));
    f->setPersonalityFn(cast<Constant>(p.getCallee()));
  }
  BasicBlock *pad = BasicBlock::Create(ctx, "tf.unwind", f);
  IRBuilder<> b(pad);
  LandingPadInst *lp = b.CreateLandingPad(StructType::get(ctx, {i8p, i32}), 0);
  lp->setCleanup(true);
  ResumeInst *r = b.CreateResume(lp);
  for (CallInst *c : calls) changeToInvokeAndSplitBasicBlock(c, pad);
  return r;
}

// ---- info functions (code-shape section 4) ---------------------------------
void Instrumenter::rewriteInfo(Site &s) {
  llvm::Function *old = s.fn;
  std::vector<Type *> params(old->getFunctionType()->param_begin(), old->getFunctionType()->param_end());
  params.push_back(i8p);
  params.push_back(i32);
  auto *fty = FunctionType::get(old->getReturnType(), params, false);
  auto *nf = llvm::Function::Create(fty, old->getLinkage(), old->getAddressSpace(), "", &m);
  nf->copyAttributesFrom(old);
  nf->takeName(old);
  SmallVector<std::pair<unsigned, MDNode *>, 4> mds;
  old->getAllMetadata(mds);
  for (auto &md : mds) nf->addMetadata(md.first, *md.second);
  old->clearMetadata();
  TF_SPLICE_BODY(nf, old);
  for (unsigned i = 0; i < old->arg_size(); i++) {
    old->getArg(i)->replaceAllUsesWith(nf->getArg(i));
    nf->getArg(i)->takeName(old->getArg(i));
  }
  Value *mm = nf->getArg(old->arg_size());
  Value *callerId = nf->getArg(old->arg_size() + 1);
  mm->setName("tf.mm");
  callerId->setName("tf.caller");
  s.fn = nf;
  AllocaInst *vals = valuesAlloca(nf, s.model->params.size());
  AllocaInst *args = entryAlloca(nf, argsTy, "tf.args");
  ifMonitor(mm, s.marker, [&](IRBuilder<> &b) {
    callWithValues(b, mm, OP_INFO, {nullptr, callerId, u32(uint32_t(s.id)), u32(uint32_t(s.model->tp))}, 0,
                   [&](IRBuilder<> &vb) { return buildArgs(vb, s, vals, args); });
  });
  rewriteInfoCalls(old, nf);
  old->eraseFromParent();
  if (verbose > 1) errs() << "tf: instrumented '" << s.model->function << "' as info id " << s.id << "\n";
}

void Instrumenter::rewriteInfoCalls(llvm::Function *old, llvm::Function *nf) {
  std::vector<User *> users(old->user_begin(), old->user_end());
  for (User *u : users) {
    auto *cb = dyn_cast<CallBase>(u);
    if (!cb || cb->getCalledOperand() != old) {
      u->replaceUsesOfWith(old, ConstantExpr::getPointerCast(nf, old->getType()));
      continue;
    }
    const Site *caller = siteOf(cb->getFunction());
    std::vector<Value *> args(cb->arg_begin(), cb->arg_end());
    args.push_back(caller && caller->mm ? caller->mm : static_cast<Value *>(nullp()));
    args.push_back(u32(uint32_t(caller ? caller->id : -1)));
    CallBase *nc;
    if (auto *inv = dyn_cast<InvokeInst>(cb))
      nc = InvokeInst::Create(nf->getFunctionType(), nf, inv->getNormalDest(), inv->getUnwindDest(), args, "", cb);
    else
      nc = CallInst::Create(nf->getFunctionType(), nf, args, "", cb);
    nc->setCallingConv(cb->getCallingConv());
    nc->setAttributes(cb->getAttributes());
    nc->setDebugLoc(cb->getDebugLoc());
    cb->eraseFromParent();
  }
}

const Site *Instrumenter::siteOf(llvm::Function *f) {
  for (const Site &s : sites)
    if (s.fn == f && s.model->role == R_MONITOR) return &s;
  return nullptr;
}

namespace {

struct TfPass : PassInfoMixin<TfPass> {
  PreservedAnalyses run(Module &m, ModuleAnalysisManager &) {
    if (m.getNamedMetadata("tf.enhanced")) return PreservedAnalyses::all();
    llvm::Function *marker = m.getFunction("__tf_fn");
    GlobalVariable *carrier = m.getGlobalVariable(kModelSymbol);
    if (!marker && !carrier) return PreservedAnalyses::all();
    TuModel tu;
    if (carrier && readModel(carrier, tu) && !tu.table.names.empty()) {
      Instrumenter(m, tu, verboseLevel()).run(marker);
      m.getOrInsertNamedMetadata("tf.enhanced");
    }
    if (carrier) carrier->eraseFromParent();
    if (marker) removeMarkers(marker);
    return PreservedAnalyses::none();
  }

  static bool readModel(GlobalVariable *carrier, TuModel &tu) {
    auto *data = carrier->hasInitializer() ? dyn_cast<ConstantDataArray>(carrier->getInitializer()) : nullptr;
    if (!data || !data->isString()) return false;
    StringRef text = data->getAsString();
    return TuModel::deserialize(text.rtrim(StringRef("\0", 1)), tu);
  }
  static bool isRequired() { return true; }

  static void removeMarkers(llvm::Function *marker) {
    std::vector<User *> users(marker->user_begin(), marker->user_end());
    for (User *u : users)
      if (auto *cb = dyn_cast<CallBase>(u)) {
        Value *key = cb->getArgOperand(0)->stripPointerCasts();
        cb->eraseFromParent();
        if (auto *gv = dyn_cast<GlobalVariable>(key)) {
          gv->removeDeadConstantUsers();
          if (gv->use_empty() && gv->hasPrivateLinkage()) gv->eraseFromParent();
        }
      }
    if (marker->use_empty()) marker->eraseFromParent();
  }
};

}  // namespace
}  // namespace tf

// The entry point LLVM looks up in a pass plugin; tf-clang.so adds its own
// path to the code-generation options, so clang -fplugin= alone loads it here.
extern "C" LLVM_ATTRIBUTE_WEAK __attribute__((visibility("default"))) PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "tf", "0.1", [](PassBuilder &pb) {
            pb.registerPipelineStartEPCallback([](ModulePassManager &mpm, OptimizationLevel) {
              mpm.addPass(tf::TfPass());
            });
            pb.registerPipelineParsingCallback(
                [](StringRef name, ModulePassManager &mpm, ArrayRef<PassBuilder::PipelineElement>) {
                  if (name != "tf") return false;
                  mpm.addPass(tf::TfPass());
                  return true;
                });
          }};
}
