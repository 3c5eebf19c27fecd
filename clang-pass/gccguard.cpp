// gccguard.cpp: tf-clang.so loaded by GCC (gcc -fplugin=tf-clang.so). GCC
// looks for plugin_is_GPL_compatible and plugin_init in any plugin; without
// them it said only "not licensed under a GPL-compatible license" (and
// "undefined symbol: plugin_is_GPL_compatible"). With them, plugin_init says
// which plugin GCC wants and fails the compilation (docs/design.md
// .silent.plugin). Clang never calls these.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
__attribute__((visibility("default"))) int plugin_is_GPL_compatible;
__attribute__((visibility("default"))) int plugin_init(void *info, void *version);
}

static void anchor() {}  // hidden: plugin_init may be interposed by another copy's

int plugin_init(void *, void *) {
  Dl_info me;
  std::string self = dladdr((void *)anchor, &me) && me.dli_fname ? me.dli_fname : "tf-clang.so";
  size_t slash = self.rfind('/');
  std::string dir = slash == std::string::npos ? "" : self.substr(0, slash + 1);
  std::string gcc = dir + "tf.so";                                       // installed: side by side
  if (access(gcc.c_str(), F_OK) != 0) gcc = dir + "../gcc-plugin/tf.so";  // the build tree
  if (char *real = realpath(gcc.c_str(), nullptr)) {
    gcc = real;
    free(real);
  }
  fprintf(stderr, "tf: %s is TF's plugin for Clang; for GCC use %s\n", self.c_str(), gcc.c_str());
  return 1;
}
