// descriptor.cpp: the TU descriptor of docs/code-shape.md section 2 as LLVM
// globals: the records of <tf/abi.def> as literal structs (checked against
// LLVM's layout), the strings and arrays, holders, names, groups, enum
// tables, and the constructor/destructor that register the TU.

#include <algorithm>
#include <cstring>

#include "llvm/IR/Constants.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "nolibtf.h"
#include "pass.h"
#include "version.h"

namespace tf {

// ---- the records of <tf/abi.def> -----------------------------------------
Type *Instrumenter::shapeType(core::abi_shape shape) {
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
StructType *Instrumenter::record(const char *name) {
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
Constant *Instrumenter::str(const std::string &s) {
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

Constant *Instrumenter::array(const std::string &name, Type *elt, const std::vector<Constant *> &items) {
  if (items.empty()) return nullp();
  ArrayType *at = ArrayType::get(elt, items.size());
  auto *gv = new GlobalVariable(m, at, true, GlobalValue::InternalLinkage,
                                ConstantArray::get(at, items), name);
  gv->setAlignment(Align(8));
  return ptr(gv);
}

Constant *Instrumenter::enumType(int index) {
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

// ---- captures (code-shape section 8) ----------------------------------------
// One tf_capture record, its fields first (a static array).
Constant *Instrumenter::captureNode(const core::capture_node &n) {
  StructType *ty = record("tf_capture");
  std::vector<Constant *> fields;
  for (const core::capture_node &f : n.fields) fields.push_back(captureNode(f));
  Constant *info = nullp();
  if (n.shape.kind == core::TF_K_ENUM)
    info = enumType(n.shape.enum_index);
  else if (!n.shape.type.empty())
    info = str(n.shape.type);
  return ConstantStruct::get(ty, {str(n.name), u32(uint32_t(n.shape.kind)), u32(n.shape.size), u32(n.offset),
                                  u32(n.flags), info, array("__tf_capf", ty, fields), u32(n.fields.size()),
                                  u32(uint32_t(n.length)), u32(n.count), u32(n.limit)});
}

Constant *Instrumenter::captureRoot(int index) {
  auto it = captures.find(index);
  if (it != captures.end()) return it->second;
  Constant *init = captureNode(tu.captures[size_t(index)]);
  auto *gv = new GlobalVariable(m, init->getType(), true, GlobalValue::InternalLinkage, init, "__tf_cap");
  gv->setAlignment(Align(8));
  return captures[index] = ptr(gv);
}

// ---- the TU descriptor (code-shape section 2) ------------------------------
void Instrumenter::emitDescriptor() {
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
  ArrayType *slotsTy = ArrayType::get(i8p, t.names.size());
  slots = new GlobalVariable(m, slotsTy, false, GlobalValue::InternalLinkage,
                             ConstantAggregateZero::get(slotsTy), "__tf_slots");
  slots->setAlignment(Align(8));
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
  bool light = tu.lightClones && std::any_of(sites.begin(), sites.end(), [](const Site &s) {
                 return s.model->role == R_MONITOR && forSpeed(s.fn);
               });
  StructType *tuTy = record("tf_tu");
  Constant *init = ConstantStruct::get(
      tuTy, {u32(TF_TU_ABI), u32(core::size_tf_tu), str(tu.file), str(tu.base), u32(names.size()), u32(groups.size()),
             u32(decls.size()), u32(light ? TF_TU_LIGHT_CLONES : 0), array("__tf_names", nameTy, names),
             array("__tf_groups", groupTy, groups), array("__tf_decls", declTy, decls), str(core::tf_version),
             ptr(slots)});
  auto *tuVar = new GlobalVariable(m, tuTy, false, GlobalValue::InternalLinkage, init, "__tf_tu");
  tuVar->setAlignment(Align(8));
  appendToGlobalCtors(m, registrar("__tf_ctor", "tf_tu_register", tuVar), 65535);
  appendToGlobalDtors(m, registrar("__tf_dtor", "tf_tu_unregister", tuVar), 65535);
}

llvm::Function *Instrumenter::registrar(const char *name, const char *callee, GlobalVariable *tuVar) {
  auto *fty = FunctionType::get(Type::getVoidTy(ctx), false);
  auto *f = llvm::Function::Create(fty, GlobalValue::InternalLinkage, name, m);
  f->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", f));
  // Weak (code-shape.md section 6): without libtf the object still links,
  // the function's address is null and the TU runs untraced.
  FunctionCallee reg = m.getOrInsertFunction(callee, Type::getVoidTy(ctx), i8p);
  cast<llvm::Function>(reg.getCallee()->stripPointerCasts())->setLinkage(GlobalValue::ExternalWeakLinkage);
  BasicBlock *call = BasicBlock::Create(ctx, "linked", f), *done = BasicBlock::Create(ctx, "done", f);
  BasicBlock *absent = done;
  if (!strcmp(callee, "tf_tu_register")) absent = BasicBlock::Create(ctx, "absent", f);
  b.CreateCondBr(b.CreateIsNotNull(reg.getCallee()), call, absent);
  b.SetInsertPoint(call);
  b.CreateCall(reg, {ptr(tuVar)});
  b.CreateBr(done);
  if (absent != done) {
    b.SetInsertPoint(absent);
    noticeIfAbsent(b, done);
  }
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return f;
}

// The constructor's branch when libtf is absent (plugin-core/nolibtf.h):
// if (!flag && (getenv("TF_MONITORS") || ...)) { flag = 1; write(2, msg, len); }
void Instrumenter::noticeIfAbsent(IRBuilder<> &b, BasicBlock *done) {
  llvm::Function *f = b.GetInsertBlock()->getParent();
  GlobalVariable *flag = m.getGlobalVariable(core::nolibtf_flag);
  if (!flag)  // weak and public: every instrumented object of the program shares one
    flag = new GlobalVariable(m, i32, false, GlobalValue::WeakAnyLinkage, ConstantInt::get(i32, 0),
                              core::nolibtf_flag);
  BasicBlock *env = BasicBlock::Create(ctx, "tf.env", f), *say = BasicBlock::Create(ctx, "tf.say", f);
  b.CreateCondBr(b.CreateICmpEQ(b.CreateLoad(i32, flag), ConstantInt::get(i32, 0)), env, done);
  FunctionCallee getenv = m.getOrInsertFunction("getenv", i8p, i8p);
  size_t nvars = sizeof core::nolibtf_vars / sizeof core::nolibtf_vars[0];
  for (size_t i = 0; i < nvars; i++) {
    b.SetInsertPoint(env);
    Value *set = b.CreateIsNotNull(b.CreateCall(getenv, {str(core::nolibtf_vars[i])}));
    env = i + 1 < nvars ? BasicBlock::Create(ctx, "tf.env", f) : done;
    b.CreateCondBr(set, say, env);
  }
  b.SetInsertPoint(say);
  b.CreateStore(ConstantInt::get(i32, 1), flag);
  FunctionCallee write = m.getOrInsertFunction("write", i64, i32, i8p, i64);
  b.CreateCall(write, {ConstantInt::get(i32, 2), str(core::nolibtf_message),
                       ConstantInt::get(i64, sizeof core::nolibtf_message - 1)});
  b.CreateBr(done);
}

}  // namespace tf
