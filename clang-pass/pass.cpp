// pass.cpp: the LLVM new-pass-manager pass that instruments a module exactly
// as docs/code-shape.md says. It runs at PipelineStartEP (before any inlining,
// at -O0 too) and works from the TuModel the front end left (model.h) and the
// marker calls it planted (analysis.cpp): the marker says which function it is
// in and where its parameters live.
//
// Debugging: clang -fplugin=tf-clang.so -emit-llvm -S -o - x.c shows the
// result; -fplugin-arg-tf-verbose=2 lists each function instrumented.
#include <map>
#include <set>

#include "compat.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "model.h"
#include "policy.h"
#include "version.h"
#include "spelling.h"

using namespace llvm;

namespace tf {
namespace {

// Where the hooks read through mm, from <tf/abi.def> (byte offsets).
enum {
  OP_ENTER = core::off_tf_monitor_ops_enter,
  OP_INFO = core::off_tf_monitor_ops_info,
  OP_EXIT = core::off_tf_monitor_ops_exit,
  OP_EXCEPTION = core::off_tf_monitor_ops_exception,
  OP_FLAGS = core::off_tf_monitor_ops_flags,
};

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

  void run(llvm::Function *markerFn) {
    if (markerFn) collect(markerFn);
    emitDescriptor();
    for (Site &s : sites)
      if (s.model->role == R_INFO) infoFns.insert(s.fn);
    for (Site &s : sites)
      if (s.model->role == R_MONITOR) {
        if (cloneable(s.fn)) makeClone(s);
        instrumentMonitored(s);
      }
    for (Site &s : sites)
      if (s.model->role == R_INFO) rewriteInfo(s);
    for (Site &s : sites) {
      s.fn->addFnAttr("tf-enhanced");
      if (s.fast) s.fast->addFnAttr("tf-enhanced");
    }
  }

 private:
  // ---- shape 3.1: fast path and traced clone ---------------------------------
  // What cannot be forwarded or copied keeps the in-place shape 3.2.
  static bool cloneable(llvm::Function *f) {
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
  void makeClone(Site &s) {
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
    c->addFnAttr(Attribute::Cold);
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
    LoadInst *load = b.CreateAlignedLoad(i8p, holders[s.model->group], Align(8), "tf.mm");
    // Acquire, not GCC's volatile load: in LLVM's memory model a racing
    // volatile load promises no ordering, and LLVM still optimises f as the
    // uninstrumented function around an acquire load (fib(25), callgrind, no
    // monitor: the same instruction count with either).
    load->setAtomic(AtomicOrdering::Acquire);
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

  // ---- finding the sites ---------------------------------------------------
  void collect(llvm::Function *markerFn) {
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
      sites.push_back(s);
    }
  }

  static int markerKey(CallBase *cb) {
    auto *gv = dyn_cast<GlobalVariable>(cb->getArgOperand(0)->stripPointerCasts());
    if (!gv || !gv->hasInitializer()) return -1;
    auto *data = dyn_cast<ConstantDataArray>(gv->getInitializer());
    if (!data || !data->isCString()) return -1;
    int key = -1;
    if (data->getAsCString().getAsInteger(10, key)) return -1;
    return key;
  }

  // ---- the records of <tf/abi.def> -----------------------------------------
  Type *shapeType(core::abi_shape shape) {
    switch (shape) {
      case core::ABI_U32:
      case core::ABI_I32: return i32;
      case core::ABI_I64:
      case core::ABI_U64:
      case core::ABI_PAYLOAD: return i64;  // the union, built as its 64-bit payload
      case core::ABI_F64: return Type::getDoubleTy(ctx);
      case core::ABI_STR:
      case core::ABI_PTR: return i8p;
    }
    return nullptr;
  }

  // A literal struct with the record's fields; its size and offsets are
  // checked against the table (a mismatch would be silent bad data).
  StructType *record(const char *name) {
    std::vector<Type *> fields;
    std::vector<unsigned> offsets;
    for (const core::abi_field_spec &f : core::abi_fields)
      if (!std::strcmp(f.record, name)) fields.push_back(shapeType(f.shape)), offsets.push_back(f.offset);
    StructType *t = StructType::get(ctx, fields);
    const StructLayout *layout = m.getDataLayout().getStructLayout(t);
    for (const core::abi_record_spec &r : core::abi_records)
      if (!std::strcmp(r.name, name) && layout->getSizeInBytes() != r.size)
        report_fatal_error(Twine("tf: abi.def: size of ") + name + " does not match LLVM's layout");
    for (size_t i = 0; i < offsets.size(); i++)
      if (layout->getElementOffset(unsigned(i)) != offsets[i])
        report_fatal_error(Twine("tf: abi.def: an offset in ") + name + " does not match LLVM's layout");
    return t;
  }

  // ---- constants -------------------------------------------------------------
  Constant *str(const std::string &s) {
    auto it = strings.find(s);
    if (it != strings.end()) return it->second;
    Constant *init = ConstantDataArray::getString(ctx, s);
    auto *gv = new GlobalVariable(m, init->getType(), true, GlobalValue::PrivateLinkage, init, ".tf.str");
    gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    gv->setAlignment(Align(1));
    Constant *p = ConstantExpr::getPointerCast(gv, i8p);
    strings[s] = p;
    return p;
  }

  Constant *ptr(Constant *c) { return ConstantExpr::getPointerCast(c, i8p); }
  Constant *u32(uint64_t v) { return ConstantInt::get(i32, v); }
  Constant *nullp() { return ConstantPointerNull::get(cast<PointerType>(i8p)); }

  Constant *array(const std::string &name, Type *elt, const std::vector<Constant *> &items) {
    if (items.empty()) return nullp();
    ArrayType *at = ArrayType::get(elt, items.size());
    auto *gv = new GlobalVariable(m, at, true, GlobalValue::InternalLinkage,
                                  ConstantArray::get(at, items), name);
    gv->setAlignment(Align(8));
    return ptr(gv);
  }

  Constant *enumType(int index) {
    if (index < 0) return nullp();
    auto it = enums.find(index);
    if (it != enums.end()) return it->second;
    const EnumType &e = tu.enums[size_t(index)];
    StructType *itemTy = record("tf_enumerator");
    std::vector<Constant *> items;
    for (const auto &item : e.items)
      items.push_back(ConstantStruct::get(itemTy, {ConstantInt::get(i64, uint64_t(item.first)), str(item.second)}));
    Constant *arr = array("__tf_enum_items", itemTy, items);
    StructType *ty = record("tf_enum_type");
    auto *gv = new GlobalVariable(m, ty, true, GlobalValue::InternalLinkage,
                                  ConstantStruct::get(ty, {str(e.name), u32(e.items.size()), u32(0), arr}),
                                  "__tf_enum");
    gv->setAlignment(Align(8));
    return enums[index] = ptr(gv);
  }

  // ---- the TU descriptor (code-shape section 2) ------------------------------
  void emitDescriptor() {
    const core::name_table &t = tu.table;
    StructType *groupTy = record("tf_tu_group");
    std::vector<Constant *> groups;
    for (const std::string &g : t.used_groups) {
      auto *h = new GlobalVariable(m, i8p, false, GlobalValue::InternalLinkage,
                                   nullp(), "__tf_holder_" + g);
      h->setAlignment(Align(8));
      holders[g] = h;
      groups.push_back(ConstantStruct::get(groupTy, {str(g), ptr(h)}));
    }
    StructType *nameTy = record("tf_name");
    std::vector<Constant *> names;
    for (const core::name_entry &n : t.names)
      names.push_back(ConstantStruct::get(nameTy, {str(n.name), u32(n.flags), u32(uint32_t(n.group)),
                                                   str(n.file), u32(n.line), u32(0)}));
    StructType *declTy = record("tf_group_decl");
    std::vector<Constant *> decls;
    for (const GroupDecl &d : tu.decls) {
      std::vector<Constant *> subs;
      for (const std::string &s : d.subgroups) subs.push_back(str(s));
      decls.push_back(ConstantStruct::get(
          declTy, {str(d.name), array("__tf_sub_" + d.name, i8p, subs), u32(subs.size()), u32(0)}));
    }
    StructType *tuTy = record("tf_tu");
    Constant *init = ConstantStruct::get(
        tuTy, {u32(TF_TU_ABI), u32(core::size_tf_tu), str(tu.file), str(tu.base), u32(names.size()), u32(groups.size()),
               u32(decls.size()), u32(0), array("__tf_names", nameTy, names),
               array("__tf_groups", groupTy, groups), array("__tf_decls", declTy, decls), str(core::tf_version)});
    auto *tuVar = new GlobalVariable(m, tuTy, false, GlobalValue::InternalLinkage, init, "__tf_tu");
    tuVar->setAlignment(Align(8));
    appendToGlobalCtors(m, registrar("__tf_ctor", "tf_tu_register", tuVar), 65535);
    appendToGlobalDtors(m, registrar("__tf_dtor", "tf_tu_unregister", tuVar), 65535);
  }

  llvm::Function *registrar(const char *name, const char *callee, GlobalVariable *tuVar) {
    auto *fty = FunctionType::get(Type::getVoidTy(ctx), false);
    auto *f = llvm::Function::Create(fty, GlobalValue::InternalLinkage, name, m);
    f->addFnAttr(Attribute::NoUnwind);
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", f));
    // Weak (code-shape.md section 6): without libtf the object still links,
    // the function's address is null and the TU runs untraced.
    FunctionCallee reg = m.getOrInsertFunction(callee, Type::getVoidTy(ctx), i8p);
    cast<llvm::Function>(reg.getCallee()->stripPointerCasts())->setLinkage(GlobalValue::ExternalWeakLinkage);
    BasicBlock *call = BasicBlock::Create(ctx, "linked", f), *done = BasicBlock::Create(ctx, "done", f);
    b.CreateCondBr(b.CreateIsNotNull(reg.getCallee()), call, done);
    b.SetInsertPoint(call);
    b.CreateCall(reg, {ptr(tuVar)});
    b.CreateBr(done);
    b.SetInsertPoint(done);
    b.CreateRetVoid();
    return f;
  }

  // ---- building hook calls ---------------------------------------------------
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

  Value *loadOps(IRBuilder<> &b, Value *mm) {
    Value *at = b.CreateConstInBoundsGEP1_32(b.getInt8Ty(), b.CreatePointerCast(mm, TF_PTR_TO(b.getInt8Ty())),
                                             core::off_tf_monitor_ops);
    return b.CreateAlignedLoad(i8p, b.CreatePointerCast(at, TF_PTR_TO(i8p)), Align(8), "tf.ops");
  }

  // mm->ops->op(mm, rest...); `ops` if the caller loaded mm->ops already.
  CallInst *callOp(IRBuilder<> &b, Value *mm, int op, ArrayRef<Value *> rest, Value *ops = nullptr) {
    if (!ops) ops = loadOps(b, mm);
    Value *slot = b.CreateConstInBoundsGEP1_32(b.getInt8Ty(), b.CreatePointerCast(ops, TF_PTR_TO(b.getInt8Ty())),
                                               unsigned(op));
    Value *fn = b.CreateAlignedLoad(i8p, b.CreatePointerCast(slot, TF_PTR_TO(i8p)), Align(8), "tf.hook");
    std::vector<Type *> params{i8p};
    std::vector<Value *> args{mm};
    for (Value *v : rest) params.push_back(v->getType()), args.push_back(v);
    auto *fty = FunctionType::get(Type::getVoidTy(ctx), params, false);
    CallInst *call = b.CreateCall(fty, b.CreatePointerCast(fn, TF_PTR_TO(fty)), args);
    call->setDoesNotThrow();
    return call;
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

  AllocaInst *entryAlloca(llvm::Function *f, Type *ty, const char *name) {
    IRBuilder<> b(&*f->getEntryBlock().getFirstInsertionPt());
    AllocaInst *a = b.CreateAlloca(ty, nullptr, name);
    a->setAlignment(Align(8));
    return a;
  }

  // The 64-bit payload of a value read through addr (a parameter's address).
  Value *payloadFromAddress(IRBuilder<> &b, const ValueDesc &v, Value *addr) {
    switch (v.load) {
      case L_INT:
      case L_UINT: {
        Type *it = IntegerType::get(ctx, v.size * 8);
        Value *x = b.CreateAlignedLoad(it, b.CreatePointerCast(addr, TF_PTR_TO(it)), Align(1));
        return widen(b, x, v.load == L_INT);
      }
      case L_FP: {
        Type *ft = fpType(v.fpBits);
        Value *x = b.CreateAlignedLoad(ft, b.CreatePointerCast(addr, TF_PTR_TO(ft)), Align(1));
        return b.CreateBitCast(b.CreateFPCast(x, b.getDoubleTy()), i64);
      }
      case L_PTR: {
        Value *x = b.CreateAlignedLoad(i8p, b.CreatePointerCast(addr, TF_PTR_TO(i8p)), Align(1));
        return b.CreatePtrToInt(x, i64);
      }
      case L_ADDR:
        return b.CreatePtrToInt(addr, i64);
      default:
        return ConstantInt::get(i64, 0);
    }
  }

  Value *widen(IRBuilder<> &b, Value *x, bool isSigned) {
    if (x->getType()->getIntegerBitWidth() > 64) return b.CreateTrunc(x, i64);
    return isSigned ? b.CreateSExt(x, i64) : b.CreateZExt(x, i64);
  }

  Type *fpType(unsigned bits) {
    switch (bits) {
      case 32: return Type::getFloatTy(ctx);
      case 80: return Type::getX86_FP80Ty(ctx);
      case 128: return Type::getFP128Ty(ctx);
      default: return Type::getDoubleTy(ctx);
    }
  }

  Constant *typeOf(const ValueDesc &v) {
    if (v.kind == core::TF_K_ENUM) return enumType(v.enumIndex);
    if (v.kind == core::TF_K_STRUCT) return str(v.type);
    return nullp();
  }

  void storeValue(IRBuilder<> &b, Value *slot, const ValueDesc &v, Value *payload) {
    b.CreateStore(v.name.empty() ? nullp() : str(v.name), b.CreateStructGEP(valueTy, slot, 0));
    b.CreateStore(u32(v.kind), b.CreateStructGEP(valueTy, slot, 1));
    b.CreateStore(u32(v.size), b.CreateStructGEP(valueTy, slot, 2));
    b.CreateStore(payload, b.CreateStructGEP(valueTy, slot, 3));
    b.CreateStore(typeOf(v), b.CreateStructGEP(valueTy, slot, 4));
  }

  // Fills tf_args (and its tf_value array) from the marker's operands; returns &args.
  Value *buildArgs(IRBuilder<> &b, const Site &s, AllocaInst *vals, AllocaInst *args) {
    const auto &ps = s.model->params;
    for (size_t i = 0; i < ps.size(); i++) {
      Value *slot = b.CreateConstInBoundsGEP2_32(vals->getAllocatedType(), vals, 0, unsigned(i));
      storeValue(b, slot, ps[i], payloadFromAddress(b, ps[i], s.marker->getArgOperand(unsigned(i + 1))));
    }
    b.CreateStore(u32(ps.size()), b.CreateStructGEP(argsTy, args, 0));
    b.CreateStore(u32(0), b.CreateStructGEP(argsTy, args, 1));
    b.CreateStore(vals ? b.CreatePointerCast(vals, i8p) : nullp(), b.CreateStructGEP(argsTy, args, 2));
    return b.CreatePointerCast(args, i8p);
  }

  AllocaInst *valuesAlloca(llvm::Function *f, size_t n) {
    return n ? entryAlloca(f, ArrayType::get(valueTy, n), "tf.values") : nullptr;
  }

  // ---- monitored functions (code-shape section 3 and 5) ---------------------
  void instrumentMonitored(Site &s) {
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
    Value *mm = s.mm;
    if (!mm) {
      IRBuilder<> eb(&*f->getEntryBlock().getFirstInsertionPt());
      LoadInst *load = eb.CreateAlignedLoad(i8p, holders[s.model->group], Align(8), "tf.mm");
      load->setAtomic(AtomicOrdering::Acquire);
      s.mm = mm = load;
    }
    Value *id = u32(uint32_t(s.id));

    AllocaInst *vals = valuesAlloca(f, s.model->params.size());
    AllocaInst *args = entryAlloca(f, argsTy, "tf.args");
    ifMonitor(mm, s.marker, [&](IRBuilder<> &b) {
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
    for (ReturnInst *r : rets) {
      // Nothing may come between a musttail call and its ret: exit before the call.
      auto *tail = dyn_cast_or_null<CallInst>(r->getPrevNode());
      bool must = tail && tail->isMustTailCall();
      ifMonitor(mm, must ? static_cast<Instruction *>(tail) : r, [&](IRBuilder<> &b) {
        if (s.model->isVoid || must) {
          callOp(b, mm, OP_EXIT, {id, nullp()});
          return;
        }
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
    if (verbose > 1) errs() << "tf: instrumented '" << s.model->function << "' as monitor id " << s.id << "\n";
  }

  // As the GCC plugin names it: the C identifier, the qualified C++ name,
  // the builtin an intrinsic stands for (plugin-core/policy.h).
  std::string calleeName(CallBase *cb) {
    if (!cb->getCalledFunction()) return "(indirect call)";
    std::string n = cb->getCalledFunction()->getName().str();
    std::string builtin = core::builtin_spelling(n);
    if (!builtin.empty()) return builtin;
    if (!TF_STARTS_WITH(StringRef(n), "_Z")) return n;
    return core::without_parameters(llvm::demangle(n));
  }

  // The payload of the result at `ret` (code-shape section 3).
  Value *resultPayload(IRBuilder<> &b, const Site &s, ReturnInst *ret) {
    const ValueDesc &v = s.model->result;
    Value *rv = ret->getReturnValue();
    if (v.kind == core::TF_K_STRUCT) {
      for (Argument &a : s.fn->args())
        if (a.hasStructRetAttr()) return b.CreatePtrToInt(&a, i64);
      if (!rv) return ConstantInt::get(i64, 0);
      AllocaInst *copy = entryAlloca(s.fn, rv->getType(), "tf.retcopy");
      b.CreateStore(rv, copy);
      return b.CreatePtrToInt(copy, i64);
    }
    if (!rv || v.load == L_NONE || v.load == L_ZERO) return ConstantInt::get(i64, 0);
    Type *t = rv->getType();
    if (t->isIntegerTy() && (v.load == L_INT || v.load == L_UINT)) return widen(b, rv, v.load == L_INT);
    if (t->isFloatingPointTy() && v.load == L_FP) return b.CreateBitCast(b.CreateFPCast(rv, b.getDoubleTy()), i64);
    if (t->isPointerTy() && (v.load == L_PTR || v.load == L_ADDR)) return b.CreatePtrToInt(rv, i64);
    // The ABI coerced the result ({i64, i64} for __int128, ...): its bytes in
    // memory are the declared type's, so read it back as a parameter is read.
    AllocaInst *copy = entryAlloca(s.fn, t, "tf.retcopy");
    copy->setAlignment(Align(16));
    b.CreateStore(rv, copy);
    return payloadFromAddress(b, v, copy);
  }

  // Turns every call that may throw into an invoke of one cleanup pad that
  // resumes; returns its resume (instrumented like every other).
  ResumeInst *unwindPad(llvm::Function *f, const std::vector<CallInst *> &calls) {
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
  void rewriteInfo(Site &s) {
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

  void rewriteInfoCalls(llvm::Function *old, llvm::Function *nf) {
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

  const Site *siteOf(llvm::Function *f) {
    for (const Site &s : sites)
      if (s.fn == f && s.model->role == R_MONITOR) return &s;
    return nullptr;
  }

  Module &m;
  const TuModel &tu;
  int verbose;
  LLVMContext &ctx;
  Type *i8p, *i32, *i64;
  StructType *valueTy, *argsTy, *excTy;
  std::vector<Site> sites;
  std::map<std::string, Constant *> strings;
  std::map<int, Constant *> enums;
  std::map<std::string, GlobalVariable *> holders;
  std::set<llvm::Function *> infoFns;
};

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
