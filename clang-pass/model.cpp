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
    if (!f.defined || f.call) continue;  // a wrapper takes its callee's name, below
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
    c.rule = f.rule;
    cands.push_back(c);
    from.push_back(i);
  }
  size_t own = cands.size();
  core::add_call_candidates(sites, cands);
  table = core::build_names(cands);
  core::assign_call_ids(sites, table);
  for (size_t k = 0; k < own; k++) functions[from[k]].tracingName = cands[k].name;
  std::vector<core::name_clash> clashes;
  for (const core::name_clash &x : table.clashes) clashes.push_back({from[x.fn], from[x.other]});
  std::sort(decls.begin(), decls.end(),
            [](const GroupDecl &a, const GroupDecl &b) { return std::strcmp(a.name.c_str(), b.name.c_str()) < 0; });
  return clashes;
}

// The same bytes as gcc-plugin's manifest but for "compiler" (plugin-core).
std::string TuModel::manifestJson() const {
  core::manifest_tu m;
  m.compiler = "clang";
  m.file = file;
  m.tu = base;
  m.rules = rules;
  m.min_size = minSize;
  m.too_small = tooSmall;
  m.rules_file = rulesFile;
  m.rules_monitors = rulesMonitors;
  m.rules_chosen = rulesChosen;
  m.calls = calls;
  m.sites = sites;
  m.captures = captured;
  for (const GroupDecl &g : decls) m.groups.push_back({g.name, g.subgroups, g.file, g.line});
  return core::manifest_json(m, table);
}

// ---- the model as the front end hands it to the pass, inside the IR -------

static llvm::json::Value toJson(const ValueDesc &v) {
  return llvm::json::Object{{"n", v.name},   {"k", int64_t(v.kind)},  {"s", int64_t(v.size)},
                            {"l", int64_t(v.load)}, {"f", int64_t(v.fpBits)}, {"t", v.type},
                            {"e", int64_t(v.enumIndex)}, {"c", int64_t(v.capture)}};
}

static llvm::json::Value toJson(const core::capture_node &n) {
  llvm::json::Array fields;
  for (const core::capture_node &f : n.fields) fields.push_back(toJson(f));
  return llvm::json::Object{{"n", n.name},          {"k", int64_t(n.shape.kind)}, {"s", int64_t(n.shape.size)},
                            {"t", n.shape.type},     {"e", int64_t(n.shape.enum_index)},
                            {"o", int64_t(n.offset)}, {"f", int64_t(n.flags)},  {"l", int64_t(n.length)},
                            {"c", int64_t(n.count)}, {"m", int64_t(n.limit)},   {"x", std::move(fields)}};
}

static llvm::json::Value toJson(const core::call_site &c) {
  return llvm::json::Object{{"callee", c.callee}, {"group", c.group}, {"file", c.file},
                            {"line", int64_t(c.line)}, {"place", int64_t(c.place)}, {"rule", int64_t(c.rule)},
                            {"skip", int64_t(c.skip)}};
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
                                     {"rule", int64_t(f.rule)}, {"place", int64_t(f.place)}, {"call", f.call},
                                     {"ops", int64_t(f.size.ops)}, {"calls", int64_t(f.size.calls)},
                                     {"loops", int64_t(f.size.loops)}});
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
  llvm::json::Array ss, cs;
  for (const core::call_site &c : sites) ss.push_back(toJson(c));
  for (const core::capture_node &c : captures) cs.push_back(toJson(c));
  llvm::json::Object o{{"file", file},          {"base", base},          {"cxx", cplusplus},
                       {"inplace", int64_t(inplaceSize)}, {"light", lightClones},
                       {"functions", std::move(fns)}, {"decls", std::move(ds)}, {"enums", std::move(es)},
                       {"sites", std::move(ss)}, {"captures", std::move(cs)}};
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
  v.capture = o && o->getInteger("c") ? int(num(o, "c")) : -1;
  return v;
}
core::capture_node nodeFrom(const llvm::json::Object *o) {
  core::capture_node n;
  n.name = str(o, "n");
  n.shape.kind = int(num(o, "k"));
  n.shape.size = unsigned(num(o, "s"));
  n.shape.type = str(o, "t");
  n.shape.enum_index = int(num(o, "e"));
  n.offset = unsigned(num(o, "o"));
  n.flags = unsigned(num(o, "f"));
  n.length = int(num(o, "l"));
  n.count = unsigned(num(o, "c"));
  n.limit = unsigned(num(o, "m"));
  if (const llvm::json::Array *fs = o ? o->getArray("x") : nullptr)
    for (const llvm::json::Value &f : *fs) n.fields.push_back(nodeFrom(f.getAsObject()));
  return n;
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
  m.inplaceSize = unsigned(num(o, "inplace"));
  m.lightClones = flag(o, "light", true);
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
      d.rule = unsigned(num(f, "rule"));
      d.call = flag(f, "call", false);
      d.size.ops = unsigned(num(f, "ops"));
      d.size.calls = unsigned(num(f, "calls"));
      d.size.loops = unsigned(num(f, "loops"));
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
  if (const llvm::json::Array *ss = o->getArray("sites"))
    for (const llvm::json::Value &sv : *ss) {
      const llvm::json::Object *c = sv.getAsObject();
      core::call_site site;
      site.callee = str(c, "callee");
      site.group = str(c, "group");
      site.file = str(c, "file");
      site.line = unsigned(num(c, "line"));
      site.place = unsigned(num(c, "place"));
      site.rule = unsigned(num(c, "rule"));
      site.skip = core::call_skip(num(c, "skip"));
      m.sites.push_back(site);
    }
  if (const llvm::json::Array *cs = o->getArray("captures"))
    for (const llvm::json::Value &cv : *cs) m.captures.push_back(nodeFrom(cv.getAsObject()));
  m.finish();
  return true;
}

}  // namespace tf
