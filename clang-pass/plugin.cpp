// plugin.cpp: tf-clang.so's front-end entry: the plugin action "tf".
//
//   clang -fplugin=tf-clang.so [-fplugin-arg-tf-KEY=VALUE ...]
//
// The options (verbose=N, manifest=FILE, rules=FILE, off) are plugin-core's
// one table (plugin-core/options.cc), shared with tf.so.
//
// Runs before the main (code generation) action, so that it can predefine
// __TF_PLUGIN__ (tf.h then turns the macros into attributes), see every
// top-level declaration before CodeGen does, and add this very library to the
// pass plugins CodeGen loads: -fplugin= alone is enough.
#include <dlfcn.h>

#include "analysis.h"
#include "version.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang;

namespace tf {
namespace {

// The path this library was loaded from, which CodeGen's pass-plugin loader needs.
std::string selfPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&selfPath), &info) == 0 || !info.dli_fname) return "";
  return info.dli_fname;
}

}  // namespace
}  // namespace tf

// Exported so that a second copy of this library loaded into the same clang
// (another file name) can tell that it is not the first one.
extern "C" __attribute__((visibility("default"))) const char tf_clang_plugin_copy = 0;

namespace tf {
namespace {

// Clang uses the attribute handlers of the first copy loaded (registries keep
// load order), and dlsym finds the first copy's symbol: only that copy acts.
// (Our own reference to the symbol would be interposed too: compare modules.)
bool firstCopy() {
  void *first = dlsym(RTLD_DEFAULT, "tf_clang_plugin_copy");
  Dl_info theirs, ours;
  if (!first || !dladdr(first, &theirs) || !dladdr(reinterpret_cast<void *>(&selfPath), &ours)) return true;
  return theirs.dli_fbase == ours.dli_fbase;
}

class Action : public PluginASTAction {
 protected:
  bool ParseArgs(const CompilerInstance &ci, const std::vector<std::string> &args) override {
    if (!firstCopy()) return false;  // another copy of tf-clang.so does the work
    Session::reset();
    Options &o = Session::get().opts;
    DiagnosticsEngine &d = ci.getDiagnostics();
    for (const std::string &arg : args) {
      size_t eq = arg.find('=');
      std::string key = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
      std::string err = core::option_set(o, key, eq == std::string::npos ? nullptr : value.c_str());
      if (!err.empty()) d.Report(d.getCustomDiagID(DiagnosticsEngine::Error, "tf: %0")) << err;
    }
    setVerboseLevel(o.verbose);
    if (o.verbose) report(d, SourceLocation(), core::version_banner("tf-clang.so", "Clang " CLANG_VERSION_STRING), 3);
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci, StringRef) override {
    Session &s = Session::get();
    Preprocessor &pp = ci.getPreprocessor();
    pp.setPredefines(pp.getPredefines() + "#define __TF_PLUGIN__ 1\n");
    if (!s.opts.rules.empty()) loadRules(ci, s);
    if (!s.opts.off) {
      std::string self = selfPath();
      auto &plugins = ci.getCodeGenOpts().PassPlugins;
      if (!self.empty() && std::find(plugins.begin(), plugins.end(), self) == plugins.end())
        plugins.push_back(self);
    }
    return makeConsumer(ci);
  }
};

}  // namespace
}  // namespace tf

static FrontendPluginRegistry::Add<tf::Action> X("tf", "TF tracing facility: attributes and instrumentation");
