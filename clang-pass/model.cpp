// model.cpp: the derived parts of a TuModel (sorted name table, groups used)
// and its manifest JSON.
#include "model.h"

#include <algorithm>
#include <cstring>

#include <cstdio>

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace tf {

static int verbosity;
int verboseLevel() { return verbosity; }
void setVerboseLevel(int level) { verbosity = level; }

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string b = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = b.find_last_of('.');
  if (dot != std::string::npos && dot != 0) b.resize(dot);
  return b;
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

static bool byStrcmp(const std::string &a, const std::string &b) {
  return std::strcmp(a.c_str(), b.c_str()) < 0;
}

// tf_name.flags of one function (types.h TF_NAME_*).
static unsigned nameFlags(const FnDesc &f) {
  if (f.role == R_MONITOR) return 1u;
  return f.tp == 1 ? 2u | 4u : f.tp == 2 ? 2u | 8u : 2u;
}

void TuModel::finish() {
  usedGroups.clear();
  for (const FnDesc &f : functions)
    if (f.role == R_MONITOR && f.defined &&
        std::find(usedGroups.begin(), usedGroups.end(), f.group) == usedGroups.end())
      usedGroups.push_back(f.group);
  std::sort(usedGroups.begin(), usedGroups.end(), byStrcmp);

  names.clear();
  for (const FnDesc &f : functions) {
    if (!f.defined) continue;
    auto same = std::find_if(names.begin(), names.end(),
                             [&](const NameEntry &n) { return n.name == f.tracingName; });
    if (same != names.end()) {  // the ENTER/EXIT info pair: one entry, both bits
      same->flags |= nameFlags(f);
      continue;
    }
    NameEntry n;
    n.name = f.tracingName;
    n.flags = nameFlags(f);
    if (f.role == R_MONITOR)
      n.group = int(std::lower_bound(usedGroups.begin(), usedGroups.end(), f.group, byStrcmp) -
                    usedGroups.begin());
    n.file = f.file;
    n.line = f.line;
    n.function = f.function;
    names.push_back(n);
  }
  std::sort(names.begin(), names.end(),
            [](const NameEntry &a, const NameEntry &b) { return byStrcmp(a.name, b.name); });
  std::sort(decls.begin(), decls.end(),
            [](const GroupDecl &a, const GroupDecl &b) { return byStrcmp(a.name, b.name); });
}

int TuModel::idOf(const std::string &tracingName) const {
  for (size_t i = 0; i < names.size(); i++)
    if (names[i].name == tracingName) return int(i);
  return -1;
}

// A JSON string as the GCC plugin writes it (manifest.cc), byte for byte.
static std::string jstr(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

// The same layout as gcc-plugin/manifest.cc, so the two compare equal.
std::string TuModel::manifestJson() const {
  std::string o = "{\n  \"abi\": 1,\n  \"compiler\": \"clang\",\n  \"file\": " + jstr(file) +
                  ",\n  \"tu\": " + jstr(base) + ",\n  \"groups\": [";
  const char *sep = "";
  for (const GroupDecl &g : decls) {
    o += std::string(sep) + "\n    {\"name\": " + jstr(g.name) + ", \"subgroups\": [";
    for (size_t i = 0; i < g.subgroups.size(); i++) o += (i ? ", " : "") + jstr(g.subgroups[i]);
    bool used = std::find(usedGroups.begin(), usedGroups.end(), g.name) != usedGroups.end();
    o += std::string("], \"used\": ") + (used ? "true" : "false") + ", \"file\": " + jstr(g.file) +
         ", \"line\": " + std::to_string(g.line) + "}";
    sep = ",";
  }
  o += "\n  ],\n  \"names\": [";
  for (size_t i = 0; i < names.size(); i++) {
    const NameEntry &n = names[i];
    o += std::string(i ? "," : "") + "\n    {\"id\": " + std::to_string(i) + ", \"name\": " + jstr(n.name) +
         ", \"kind\": \"" + ((n.flags & 1u) ? "monitor" : "info") + "\", \"flags\": " +
         std::to_string(n.flags) + ", \"group\": " + (n.group >= 0 ? jstr(usedGroups[size_t(n.group)]) : "null") +
         ", \"tp\": [";
    std::vector<std::string> tps;
    if ((n.flags & 2u) && !(n.flags & 12u)) tps.push_back("\"none\"");
    if (n.flags & 4u) tps.push_back("\"enter\"");
    if (n.flags & 8u) tps.push_back("\"exit\"");
    for (size_t t = 0; t < tps.size(); t++) o += (t ? ", " : "") + tps[t];
    o += "], \"function\": " + jstr(n.function) + ", \"file\": " + jstr(n.file) +
         ", \"line\": " + std::to_string(n.line) + "}";
  }
  o += "\n  ]\n}\n";
  return o;
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
                                     {"void", f.isVoid}});
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
