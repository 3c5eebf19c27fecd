// hooks.cpp: the IR of each hook: `if (mm)` blocks, calls through
// mm->ops, the tf_value/tf_args records filled from parameters and results,
// and the callee names of exception hooks.

#include "llvm/Demangle/Demangle.h"
#include "pass.h"
#include "spelling.h"

namespace tf {

// ---- building hook calls ---------------------------------------------------
Value *Instrumenter::loadOps(IRBuilder<> &b, Value *mm) {
  Value *at = b.CreateConstInBoundsGEP1_32(b.getInt8Ty(), b.CreatePointerCast(mm, TF_PTR_TO(b.getInt8Ty())),
                                           core::off_tf_monitor_ops);
  return b.CreateAlignedLoad(i8p, b.CreatePointerCast(at, TF_PTR_TO(i8p)), Align(8), "tf.ops");
}

// mm->ops->op(mm, rest...); `ops` if the caller loaded mm->ops already.
CallInst *Instrumenter::callOp(IRBuilder<> &b, Value *mm, int op, ArrayRef<Value *> rest, Value *ops) {
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

AllocaInst *Instrumenter::entryAlloca(llvm::Function *f, Type *ty, const char *name) {
  IRBuilder<> b(&*f->getEntryBlock().getFirstInsertionPt());
  AllocaInst *a = b.CreateAlloca(ty, nullptr, name);
  a->setAlignment(Align(8));
  return a;
}

// The 64-bit payload of a value read through addr (a parameter's address).
Value *Instrumenter::payloadFromAddress(IRBuilder<> &b, const ValueDesc &v, Value *addr) {
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

Value *Instrumenter::widen(IRBuilder<> &b, Value *x, bool isSigned) {
  if (x->getType()->getIntegerBitWidth() > 64) return b.CreateTrunc(x, i64);
  return isSigned ? b.CreateSExt(x, i64) : b.CreateZExt(x, i64);
}

Type *Instrumenter::fpType(unsigned bits) {
  switch (bits) {
    case 32: return Type::getFloatTy(ctx);
    case 80: return Type::getX86_FP80Ty(ctx);
    case 128: return Type::getFP128Ty(ctx);
    default: return Type::getDoubleTy(ctx);
  }
}

Constant *Instrumenter::typeOf(const ValueDesc &v) {
  if (v.kind == core::TF_K_PTR && v.capture >= 0) return captureRoot(v.capture);
  if (v.kind == core::TF_K_ENUM) return enumType(v.enumIndex);
  if (v.kind == core::TF_K_STRUCT || v.kind == core::TF_K_COMPLEX || v.kind == core::TF_K_VECTOR) return str(v.type);
  return nullp();
}

void Instrumenter::storeValue(IRBuilder<> &b, Value *slot, const ValueDesc &v, Value *payload) {
  b.CreateStore(v.name.empty() ? nullp() : str(v.name), b.CreateStructGEP(valueTy, slot, 0));
  b.CreateStore(u32(v.kind), b.CreateStructGEP(valueTy, slot, 1));
  b.CreateStore(u32(v.size), b.CreateStructGEP(valueTy, slot, 2));
  b.CreateStore(payload, b.CreateStructGEP(valueTy, slot, 3));
  b.CreateStore(typeOf(v), b.CreateStructGEP(valueTy, slot, 4));
}

// Fills tf_args (and its tf_value array) from the marker's operands; returns &args.
Value *Instrumenter::buildArgs(IRBuilder<> &b, const Site &s, AllocaInst *vals, AllocaInst *args) {
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

// ---- the compact in-place hooks (code-shape.md 3.2) -------------------------
// The constant part of a value: name, kind, size and type, payload 0.
Constant *Instrumenter::valueTemplate(const ValueDesc &v) {
  return ConstantStruct::get(valueTy, {v.name.empty() ? nullp() : str(v.name), u32(v.kind), u32(v.size),
                                       ConstantInt::get(i64, 0), typeOf(v)});
}

// libtf's tf_hook_enter / tf_hook_exit (runtime/hooks.c), weak as
// tf_tu_register is (code-shape.md section 6): called only with mm not
// NULL, so only where libtf is.
FunctionCallee Instrumenter::compactHook(bool enter) {
  auto *fty = enter ? FunctionType::get(Type::getVoidTy(ctx), {i8p, i32, i32, i8p, i8p}, false)
                    : FunctionType::get(Type::getVoidTy(ctx), {i8p, i32, i8p, i8p}, false);
  FunctionCallee fn = m.getOrInsertFunction(enter ? "tf_hook_enter" : "tf_hook_exit", fty);
  auto *decl = cast<llvm::Function>(fn.getCallee()->stripPointerCasts());
  decl->setLinkage(GlobalValue::ExternalWeakLinkage);
  decl->setDoesNotThrow();
  return fn;
}

// tf_hook_enter(mm, id, P, template, payloads): the payloads stored into a
// local array from the marker's operands, the rest in a static template.
void Instrumenter::compactEnter(IRBuilder<> &b, const Site &s, Value *mm, Value *id) {
  const auto &ps = s.model->params;
  Value *tmpl = nullp(), *raw = nullp();
  if (!ps.empty()) {
    std::vector<Constant *> items;
    AllocaInst *payloads = entryAlloca(s.fn, ArrayType::get(i64, ps.size()), "tf.payloads");
    for (size_t i = 0; i < ps.size(); i++) {
      Value *slot = b.CreateConstInBoundsGEP2_32(payloads->getAllocatedType(), payloads, 0, unsigned(i));
      b.CreateStore(payloadFromAddress(b, ps[i], s.marker->getArgOperand(unsigned(i + 1))), slot);
      items.push_back(valueTemplate(ps[i]));
    }
    tmpl = array("__tf_tmpl", valueTy, items);
    raw = b.CreatePointerCast(payloads, i8p);
  }
  b.CreateCall(compactHook(true), {mm, id, u32(ps.size()), tmpl, raw})->setDoesNotThrow();
}

// tf_hook_exit(mm, id, template, &payload) for the value returned at `ret`;
// the payload's slot and the template are made at the first return and
// shared by the others.
void Instrumenter::compactExit(IRBuilder<> &b, const Site &s, Value *mm, Value *id, ReturnInst *ret,
                               AllocaInst *&payload, Value *&tmpl) {
  if (!payload) payload = entryAlloca(s.fn, i64, "tf.payload");
  if (!tmpl) tmpl = array("__tf_tmpl", valueTy, {valueTemplate(s.model->result)});
  b.CreateStore(resultPayload(b, s, ret), payload);
  b.CreateCall(compactHook(false), {mm, id, tmpl, b.CreatePointerCast(payload, i8p)})->setDoesNotThrow();
}

AllocaInst *Instrumenter::valuesAlloca(llvm::Function *f, size_t n) {
  return n ? entryAlloca(f, ArrayType::get(valueTy, n), "tf.values") : nullptr;
}

// ---- what the hooks report of a call --------------------------------------
// As the GCC plugin names it: the C identifier, the qualified C++ name,
// the builtin an intrinsic stands for (plugin-core/policy.h).
std::string Instrumenter::calleeName(CallBase *cb) {
  if (!cb->getCalledFunction()) return "(indirect call)";
  std::string n = cb->getCalledFunction()->getName().str();
  std::string builtin = core::builtin_spelling(n);
  if (!builtin.empty()) return builtin;
  if (!TF_STARTS_WITH(StringRef(n), "_Z")) return n;
  return core::without_parameters(llvm::demangle(n));
}

// The payload of the result at `ret` (code-shape section 3).
Value *Instrumenter::resultPayload(IRBuilder<> &b, const Site &s, ReturnInst *ret) {
  const ValueDesc &v = s.model->result;
  Value *rv = ret->getReturnValue();
  if (v.load == L_ADDR && v.kind != core::TF_K_PTR) {  // struct, __int128, complex, vector: by address
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

}  // namespace tf
