// compat.h: the only place where LLVM/Clang version differences live.
#ifndef TF_CLANG_COMPAT_H
#define TF_CLANG_COMPAT_H

#include "llvm/Config/llvm-config.h"

#if LLVM_VERSION_MAJOR >= 15
#define TF_IS_ORDINARY_STRING(lit) ((lit)->isOrdinary())
#else
#define TF_IS_ORDINARY_STRING(lit) ((lit)->isAscii())
#endif

#if LLVM_VERSION_MAJOR >= 18
#define TF_STRING_KIND_ORDINARY clang::StringLiteralKind::Ordinary
#elif LLVM_VERSION_MAJOR >= 15
#define TF_STRING_KIND_ORDINARY clang::StringLiteral::Ordinary
#else
#define TF_STRING_KIND_ORDINARY clang::StringLiteral::Ascii
#endif

// ArrayType::ArraySizeModifier became an enum class in LLVM 18.
#if LLVM_VERSION_MAJOR >= 18
#define TF_ARRAY_NORMAL clang::ArraySizeModifier::Normal
#else
#define TF_ARRAY_NORMAL clang::ArrayType::Normal
#endif

// CompoundStmt::Create gained an FPOptionsOverride in LLVM 15.
#if LLVM_VERSION_MAJOR >= 15
#define TF_COMPOUND_CREATE(ctx, stmts, lb, rb) \
  clang::CompoundStmt::Create(ctx, stmts, clang::FPOptionsOverride(), lb, rb)
#else
#define TF_COMPOUND_CREATE(ctx, stmts, lb, rb) clang::CompoundStmt::Create(ctx, stmts, lb, rb)
#endif

// An untyped pointer type: i8* before opaque pointers, ptr after.
#if LLVM_VERSION_MAJOR >= 17
#define TF_PTR_TY(ctx) llvm::PointerType::getUnqual(ctx)
#else
#define TF_PTR_TY(ctx) llvm::Type::getInt8PtrTy(ctx)
#endif

#if LLVM_VERSION_MAJOR >= 16
#define TF_STARTS_WITH(s, p) (s).starts_with(p)
#else
#define TF_STARTS_WITH(s, p) (s).startswith(p)
#endif

#if LLVM_VERSION_MAJOR >= 18
#define TF_THIS_EXPR(ctx, loc, ty) clang::CXXThisExpr::Create(ctx, loc, ty, true)
#else
#define TF_THIS_EXPR(ctx, loc, ty) new (ctx) clang::CXXThisExpr(loc, ty, true)
#endif

// A pointer to ty (typed before LLVM 15's opaque pointers became the rule).
#if LLVM_VERSION_MAJOR >= 17
#define TF_PTR_TO(ty) llvm::PointerType::getUnqual((ty)->getContext())
#else
#define TF_PTR_TO(ty) (ty)->getPointerTo()
#endif

// Moving all blocks of one function into another.
#if LLVM_VERSION_MAJOR >= 16
#define TF_SPLICE_BODY(to, from) (to)->splice((to)->begin(), (from))
#else
#define TF_SPLICE_BODY(to, from) (to)->getBasicBlockList().splice((to)->begin(), (from)->getBasicBlockList())
#endif

#endif
