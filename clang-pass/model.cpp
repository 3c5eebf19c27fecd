// model.cpp: the derived parts of a TuModel (the name table and manifest,
// both made by plugin-core) and the model's trip through the IR.
#include "model.h"

#include <algorithm>
#include <cstring>

#include "manifest.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace tf {

static int verbosity;
int verboseLevel() { return verbosity; }
void setVerboseLevel(int level) { verbosity = level; }

std::vector<core::name_clash> TuModel::finish() {
  std::vector<core::fn_candidate> cands;
  std::vector<size_t> from;  // candidate -> index in functions
  for (size_t i = 0; i < functions.size(); i++) {
    const FnDesc &f = functions[i];
    if (!f.defined) continue;
    core::fn_candidate c;
    c.name = f.tracingName;
    c.monitor = f.role == R_MONITOR;
    c.tp = f.tp;
    c.group = f.group;
    c.from_rules = f.fromRules;
    c.file = f.file;
    c.line = f.line;
    c.function = f.function;
    c.place = f.place;
    cands.push_back(c);
    from.push_back(i);
  }
  table = core::build_names(cands);
  for (size_t k = 0; k < cands.size(); k++) functions[from[k]].tracingName = cands[k].name;
  std::vector<core::name_clash> clashes;
  for (const core::name_clash &x : table.clashes) clashes.push_back({from[x.fn], from[x.other]});
  std::sort(decls.begin(), decls.end(),
            [](const GroupDecl &a, const GroupDecl &b) { return std::strcmp(a.name.c_str(), b.name.c_str()) < 0; });
  return clashes;
}

// The same bytes as gcc-plugin's manifest but for "compiler" (plugin-core).
std::string TuModel::manifestJson() const {
  core::manifest_tu m{"clang", file, base, {}, rules, minSize, tooSmall, rulesFile, rulesMonitors, rulesChosen};
  for (const GroupDecl &g : decls) m.groups.push_back({g.name, g.subgroups, g.file, g.line});
  return core::manifest_json(m, table);
}

// ---- the model as the front end hands it to the pass, inside the IR -------

static llvm::json::Value toJson(const ValueDesc &v) {
  return llvm::json::Object{{"n", v.name},   {"k", int64_t(v.kind)},  {"s", int64_t(v.size)},
                            {"l", int64_t(v.load)}, {"f", int64_t(v.fpBits)}, {"t", v.type},
                            {"e", int64_t(v.enumIndex)}};
}

std::string TuModel::serialize() const {
  llvm::json::Array fns, ds, es;
  for (const FnDesc &f : functions) {
    llvm::json::Array ps;
    for (const ValueDesc &p : f.params) ps.push_back(toJson(p));
    fns.push_back(llvm::json::Object{{"role", int64_t(f.role)}, {"name", f.tracingName},
                                     {"function", f.function}, {"group", f.group},
                                     {"tp", int64_t(f.tp)}, {"file", f.file},
                                     {"line", int64_t(f.line)}, {"defined", f.defined},
                                     {"params", std::move(ps)}, {"result", toJson(f.result)},
                                     {"void", f.isVoid}, {"rules", f.fromRules},
                                     {"place", int64_t(f.place)}});
  }
  for (const GroupDecl &d : decls) {
    llvm::json::Array subs;
    for (const std::string &x : d.subgroups) subs.push_back(x);
    ds.push_back(llvm::json::Object{{"name", d.name}, {"subs", std::move(subs)}, {"file", d.file},
                                    {"line", int64_t(d.line)}});
  }
  for (const EnumType &e : enums) {
    llvm::json::Array items;
    for (const auto &i : e.items) items.push_back(llvm::json::Array{i.first, i.second});
    es.push_back(llvm::json::Object{{"name", e.name}, {"items", std::move(items)}});
  }
  llvm::json::Object o{{"file", file}, {"base", base}, {"cxx", cplusplus}, {"functions", std::move(fns)},
                       {"decls", std::move(ds)}, {"enums", std::move(es)}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(o));
  os.flush();
  return out;
}

namespace {
std::string str(const llvm::json::Object *o, llvm::StringRef k) {
  if (!o) return "";
  auto v = o->getString(k);
  return v ? v->str() : "";
}
int64_t num(const llvm::json::Object *o, llvm::StringRef k) {
  if (!o) return 0;
  auto v = o->getInteger(k);
  return v ? *v : 0;
}
bool flag(const llvm::json::Object *o, llvm::StringRef k, bool otherwise) {
  if (!o) return otherwise;
  auto v = o->getBoolean(k);
  return v ? *v : otherwise;
}
ValueDesc valueFrom(const llvm::json::Object *o) {
  ValueDesc v;
  v.name = str(o, "n");
  v.kind = Kind(num(o, "k"));
  v.size = unsigned(num(o, "s"));
  v.load = Load(num(o, "l"));
  v.fpBits = unsigned(num(o, "f"));
  v.type = str(o, "t");
  v.enumIndex = int(num(o, "e"));
  return v;
}
}  // namespace

bool TuModel::deserialize(llvm::StringRef text, TuModel &m) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return false;
  }
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o) return false;
  m.file = str(o, "file");
  m.base = str(o, "base");
  m.cplusplus = flag(o, "cxx", false);
  if (const llvm::json::Array *fns = o->getArray("functions"))
    for (const llvm::json::Value &fv : *fns) {
      const llvm::json::Object *f = fv.getAsObject();
      FnDesc d;
      d.role = Role(num(f, "role"));
      d.tracingName = str(f, "name");
      d.function = str(f, "function");
      d.group = str(f, "group");
      d.tp = int(num(f, "tp"));
      d.file = str(f, "file");
      d.line = unsigned(num(f, "line"));
      d.defined = flag(f, "defined", false);
      d.isVoid = flag(f, "void", true);
      d.fromRules = flag(f, "rules", false);
      d.place = unsigned(num(f, "place"));
      d.result = valueFrom(f ? f->getObject("result") : nullptr);
      if (const llvm::json::Array *ps = f ? f->getArray("params") : nullptr)
        for (const llvm::json::Value &p : *ps) d.params.push_back(valueFrom(p.getAsObject()));
      m.functions.push_back(d);
    }
  if (const llvm::json::Array *ds = o->getArray("decls"))
    for (const llvm::json::Value &dv : *ds) {
      const llvm::json::Object *d = dv.getAsObject();
      GroupDecl g{str(d, "name"), {}, str(d, "file"), unsigned(num(d, "line"))};
      if (const llvm::json::Array *subs = d ? d->getArray("subs") : nullptr)
        for (const llvm::json::Value &x : *subs)
          if (auto sv = x.getAsString()) g.subgroups.push_back(sv->str());
      m.decls.push_back(g);
    }
  if (const llvm::json::Array *es = o->getArray("enums"))
    for (const llvm::json::Value &ev : *es) {
      const llvm::json::Object *e = ev.getAsObject();
      EnumType t;
      t.name = str(e, "name");
      if (const llvm::json::Array *items = e ? e->getArray("items") : nullptr)
        for (const llvm::json::Value &iv : *items) {
          const llvm::json::Array *pair = iv.getAsArray();
          if (!pair || pair->size() != 2) continue;
          auto value = (*pair)[0].getAsInteger();
          auto name = (*pair)[1].getAsString();
          t.items.push_back({value ? *value : 0, name ? name->str() : ""});
        }
      m.enums.push_back(t);
    }
  m.finish();
  return true;
}

}  // namespace tf
