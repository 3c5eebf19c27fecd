// describe.h: what the front end knows of a C/C++ type, as tf_value and
// tf_capture describe values (docs/code-shape.md): the Modeler turns a
// declared type into a ValueDesc (kind, size, how the pass loads it, the
// spelling of a struct, the enum table it adds to the model).
#ifndef TF_CLANG_DESCRIBE_H
#define TF_CLANG_DESCRIBE_H

#include <string>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "compat.h"
#include "llvm/ADT/APFloat.h"
#include "model.h"
#include "spelling.h"

namespace tf {

using namespace clang;

// The file of a location as diagnostics name it (the expansion point of a
// macro), and its line in *line.
inline std::string presumedFile(const SourceManager &sm, SourceLocation loc, unsigned *line) {
  PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(loc));
  if (!p.isValid()) return "";
  if (line) *line = p.getLine();
  return p.getFilename();
}

class Modeler {
 public:
  Modeler(ASTContext &ctx, TuModel &m) : ctx(ctx), model(m) {
    policy = new PrintingPolicy(ctx.getPrintingPolicy());
    policy->AnonymousTagLocations = false;
    policy->SuppressTagKeyword = ctx.getLangOpts().CPlusPlus;
  }
  ~Modeler() { delete policy; }
  Modeler(const Modeler &) = delete;
  Modeler &operator=(const Modeler &) = delete;

  ValueDesc describe(QualType declared, const std::string &name) {
    ValueDesc v;
    v.name = name;
    QualType t = declared.getCanonicalType().getUnqualifiedType();
    if (t->isVoidType()) return v;
    if (t->isReferenceType()) {  // its address; sizeof a reference is sizeof its referent
      QualType to = t->getPointeeType();
      v.kind = core::TF_K_PTR;
      v.size = to->isIncompleteType() || to->isFunctionType() ? 0
                                                              : unsigned(ctx.getTypeSizeInChars(to).getQuantity());
      v.load = L_ADDR;
      return v;
    }
    if (t->isIncompleteType() || t->isFunctionType()) return v;
    v.size = unsigned(ctx.getTypeSizeInChars(t).getQuantity());
    if (t->isBooleanType()) {
      v.kind = core::TF_K_BOOL, v.load = L_UINT;
    } else if (t->isEnumeralType() && v.size > 8) {  // `enum : __int128`: its number
      if (v.size == 16 && ctx.getIntWidth(t) == 128) {
        bool isSigned = t->castAs<clang::EnumType>()->getDecl()->getIntegerType()->isSignedIntegerType();
        v.kind = isSigned ? core::TF_K_INT128 : core::TF_K_UINT128, v.load = L_ADDR;
      }
    } else if (const auto *et = t->getAs<clang::EnumType>()) {
      v.kind = core::TF_K_ENUM;
      v.load = et->getDecl()->getIntegerType()->isSignedIntegerType() ? L_INT : L_UINT;
      v.enumIndex = enumIndex(et->getDecl(), t);
    } else if (t->isIntegerType() && v.size > 8) {
      // __int128 by address; a wider _BitInt is shown `?`, never cut
      if (v.size == 16 && ctx.getIntWidth(t) == 128)
        v.kind = t->isSignedIntegerType() ? core::TF_K_INT128 : core::TF_K_UINT128, v.load = L_ADDR;
    } else if (t->isIntegerType()) {
      v.kind = t->isSignedIntegerType() ? core::TF_K_INT : core::TF_K_UINT;
      v.load = v.kind == core::TF_K_INT ? L_INT : L_UINT;
    } else if (t->isRealFloatingType()) {
      v.fpBits = fpBits(t);
      if (v.fpBits) v.kind = core::TF_K_FLOAT, v.load = L_FP;
    } else if (const auto *ct = t->getAs<ComplexType>()) {
      // GCC's _Complex int is shown `?`, as the GCC plugin does
      if (ct->getElementType()->isRealFloatingType()) v.type = elementCode(ct->getElementType(), 2);
      if (!v.type.empty()) v.kind = core::TF_K_COMPLEX, v.load = L_ADDR;
    } else if (const auto *vt = t->getAs<VectorType>()) {
      v.type = elementCode(vt->getElementType(), vt->getNumElements());
      if (!v.type.empty()) v.kind = core::TF_K_VECTOR, v.load = L_ADDR;
    } else if (t->isPointerType()) {
      QualType pointee = t->getPointeeType().getCanonicalType().getUnqualifiedType();
      bool plainChar = pointee->isSpecificBuiltinType(BuiltinType::Char_S) ||
                       pointee->isSpecificBuiltinType(BuiltinType::Char_U);
      v.kind = plainChar ? core::TF_K_STR : core::TF_K_PTR;
      v.load = L_PTR;
    } else if (t->isBlockPointerType() || t->isNullPtrType() || t->isObjCObjectPointerType()) {
      v.kind = core::TF_K_PTR, v.load = L_PTR;
    } else if (t->isMemberPointerType()) {
      v.kind = core::TF_K_PTR, v.load = L_ZERO;
    } else if (t->isRecordType()) {
      v.kind = core::TF_K_STRUCT, v.load = L_ADDR;
      v.type = spelling(t);
    }
    return v;
  }

  // As the GCC plugin spells a tag type: "struct point" in C, "ns::point" in
  // C++; an anonymous one by its typedef name, else "struct <anonymous>".
  std::string spelling(clang::QualType t) {
    const clang::TagDecl *tag = t->getAsTagDecl();
    if (tag && !tag->getIdentifier()) {
      if (const clang::TypedefNameDecl *td = tag->getTypedefNameForAnonDecl()) return td->getNameAsString();
      return std::string(tag->getKindName()) + " <anonymous>";
    }
    std::string name = t.getAsString(*policy);
    if (tag && !ctx.getLangOpts().CPlusPlus && !TF_STARTS_WITH(llvm::StringRef(name), tag->getKindName()))
      name = std::string(tag->getKindName()) + " " + name;
    return name;
  }

 private:
  unsigned fpBits(QualType t) {
    const llvm::fltSemantics &fs = ctx.getFloatTypeSemantics(t);
    return &fs == &llvm::APFloat::IEEEsingle()            ? 32
           : &fs == &llvm::APFloat::IEEEdouble()          ? 64
           : &fs == &llvm::APFloat::x87DoubleExtended()   ? 80
           : &fs == &llvm::APFloat::IEEEquad()            ? 128
                                                          : 0;
  }

  // The element code of a COMPLEX or VECTOR value (plugin-core).
  std::string elementCode(QualType e, unsigned count) {
    e = e.getCanonicalType().getUnqualifiedType();
    unsigned bytes = unsigned(ctx.getTypeSizeInChars(e).getQuantity());
    if (e->isIntegerType() && !e->isBooleanType() && !e->isEnumeralType())
      return core::element_code(e->isSignedIntegerType() ? core::elem_type::signed_int : core::elem_type::unsigned_int,
                                ctx.getIntWidth(e), bytes, count);
    if (e->isRealFloatingType()) return core::element_code(core::elem_type::real, fpBits(e), bytes, count);
    return "";
  }

  int enumIndex(const EnumDecl *ed, QualType t) {
    std::string name = spelling(t);
    for (size_t i = 0; i < model.enums.size(); i++)
      if (model.enums[i].name == name) return int(i);
    tf::EnumType e;
    e.name = name;
    bool isSigned = ed->getIntegerType()->isSignedIntegerType();
    for (const EnumConstantDecl *c : ed->enumerators()) {
      const llvm::APSInt &v = c->getInitVal();
      e.items.push_back({isSigned ? v.getSExtValue() : int64_t(v.getZExtValue()),
                         c->getNameAsString()});
    }
    model.enums.push_back(e);
    return int(model.enums.size() - 1);
  }

  ASTContext &ctx;
  TuModel &model;
  PrintingPolicy *policy;
};


}  // namespace tf

#endif
