// capture.cpp: field capture for Clang (docs/code-shape.md section 8,
// plugin-core capture.h). plugin-core resolves a SPEC against the declared
// types through capture_types, answered here from Clang's AST; the resolved
// trees go into the TuModel, and the pass emits them as tf_capture records
// (descriptor.cpp) whose address the hooks put in tf_value.type.
#include "analysis.h"
#include "describe.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecordLayout.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace tf {

namespace {

QualType qt(core::ctype t) { return QualType::getFromOpaquePtr(t); }
core::ctype ct(QualType t) { return t.getCanonicalType().getUnqualifiedType().getAsOpaquePtr(); }

class ClangTypes : public core::capture_types {
 public:
  ClangTypes(ASTContext &ctx, Modeler &m) : ctx(ctx), m(m) {}

  core::value_shape shape(core::ctype t) override {
    ValueDesc v = m.describe(qt(t), "");
    core::value_shape s;
    s.kind = v.kind;
    s.size = v.size;
    s.type = v.type;
    s.enum_index = v.enumIndex;
    return s;
  }
  core::ctype pointee(core::ctype t) override {
    QualType q = qt(t);
    if (!(q->isPointerType() || q->isReferenceType()) || q->getPointeeType()->isFunctionType()) return nullptr;
    return ct(q->getPointeeType());
  }
  core::ctype array_element(core::ctype t, unsigned &count) override {
    const ConstantArrayType *a = ctx.getAsConstantArrayType(qt(t));
    if (!a) return nullptr;
    count = unsigned(a->getSize().getZExtValue());
    return ct(a->getElementType());
  }
  bool is_record(core::ctype t) override {
    const RecordDecl *rd = qt(t)->getAsRecordDecl();
    return rd && rd->getDefinition() && !qt(t)->isIncompleteType();
  }
  bool is_void(core::ctype t) override { return qt(t)->isVoidType(); }
  bool is_plain_char(core::ctype t) override {
    return qt(t)->isSpecificBuiltinType(BuiltinType::Char_S) || qt(t)->isSpecificBuiltinType(BuiltinType::Char_U);
  }
  // GCC's -Wnonnull sees clang's lazy base list (LazyOffsetPtr::get) call
  // through a null external source, a path it cannot rule out, in every
  // bases() walk: a false warning.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnonnull"
  // Members as GCC lists them: bases first (non-virtual ones, at their
  // offsets), then fields; anonymous members are looked into.
  bool field(core::ctype record, const std::string &name, core::ctype &type, unsigned &offset,
             bool &bitfield) override {
    const RecordDecl *rd = qt(record)->getAsRecordDecl()->getDefinition();
    const ASTRecordLayout &layout = ctx.getASTRecordLayout(rd);
    if (const auto *crd = dyn_cast<CXXRecordDecl>(rd))
      for (const CXXBaseSpecifier &b : crd->bases()) {
        const CXXRecordDecl *base = b.getType()->getAsCXXRecordDecl();
        if (b.isVirtual() || !base || !field(ct(b.getType()), name, type, offset, bitfield)) continue;
        offset += unsigned(layout.getBaseClassOffset(base).getQuantity());
        return true;
      }
    for (const FieldDecl *f : rd->fields()) {
      unsigned at = unsigned(ctx.toCharUnitsFromBits(layout.getFieldOffset(f->getFieldIndex())).getQuantity());
      if (f->isAnonymousStructOrUnion() && field(ct(f->getType()), name, type, offset, bitfield)) {
        offset += at;
        return true;
      }
      if (f->getIdentifier() && f->getName() == name) {
        type = ct(f->getType());
        offset = at;
        bitfield = f->isBitField();
        return true;
      }
    }
    return false;
  }
  std::vector<std::string> field_names(core::ctype record) override {
    std::vector<std::string> names;
    const RecordDecl *rd = qt(record)->getAsRecordDecl()->getDefinition();
    if (const auto *crd = dyn_cast<CXXRecordDecl>(rd))
      for (const CXXBaseSpecifier &b : crd->bases())
        if (!b.isVirtual() && b.getType()->getAsCXXRecordDecl()) {
          std::vector<std::string> inner = field_names(ct(b.getType()));
          names.insert(names.end(), inner.begin(), inner.end());
        }
    for (const FieldDecl *f : rd->fields()) {
      if (f->isAnonymousStructOrUnion()) {
        std::vector<std::string> inner = field_names(ct(f->getType()));
        names.insert(names.end(), inner.begin(), inner.end());
      } else if (f->getIdentifier()) {
        names.push_back(f->getName().str());
      }
    }
    return names;
  }
#pragma GCC diagnostic pop
  std::string spelling(core::ctype t) override { return m.spelling(qt(t)); }

 private:
  ASTContext &ctx;
  Modeler &m;
};

}  // namespace

void resolveCaptures(ASTContext &ctx, Session &s, Modeler &m, TuModel &model, const FunctionDecl *fd,
                     const FunctionDecl *attrOn, FnDesc &f, size_t declared) {
  DiagnosticsEngine &d = ctx.getDiagnostics();
  const FnAttrs *a = s.attrsOf(attrOn);
  std::string attr = a ? a->capture : "";
  const core::rules::capture *line = attr.empty() && s.rulesLoaded ? s.rules.capture_for(f.file, f.function) : nullptr;
  if (attr.empty() && !line) return;
  core::capture_spec spec;
  unsigned column = 0;
  core::parse_capture_spec(attr.empty() ? line->spec : attr, spec, column);  // checked where written
  std::vector<core::capture_root> roots;
  size_t p = 0;
  if (const auto *md = dyn_cast<CXXMethodDecl>(fd); md && md->isInstance() && !md->getParent()->isLambda())
    roots.push_back({"this", ct(md->getThisType())}), p++;
  for (unsigned i = 0; i < fd->getNumParams() && i < declared; i++, p++)
    roots.push_back({f.params[p].name, ct(fd->getParamDecl(i)->getType())});
  roots.push_back({"return", fd->getReturnType()->isVoidType() ? nullptr : ct(fd->getReturnType())});
  ClangTypes types(ctx, m);
  std::vector<core::capture_resolved> out;
  std::string why = core::resolve_capture(spec, f.function, roots, types, out, column);
  if (!why.empty()) {
    if (line)
      report(d, ctx.getSourceManager().translateLineCol(s.rulesFid, line->line, line->spec_column + column - 1),
             "rules: capture for '" + f.function + "': " + why);
    else
      report(d, attrOn->getLocation(), "'TF_CAPTURE' of '" + f.function + "': " + why);
    return;
  }
  for (const core::capture_resolved &x : out) {
    model.captures.push_back(x.node);
    ValueDesc &v = x.root == roots.size() - 1 ? f.result : f.params[x.root];
    v.capture = int(model.captures.size() - 1);
    v.kind = core::TF_K_PTR;  // char * too: shown as what it points to
  }
  model.captured.push_back({f.function, f.file, f.line, attr.empty() ? line->spec : attr, line ? line->line : 0});
}

}  // namespace tf
