/*
 * loader.cc: tf.so itself, the loader of the GCC plugin proper (tf.gcc.so,
 * beside it; docs/design.md .silent.plugin). The plugin proper refers to
 * hundreds of GCC's own symbols, so loaded into another compiler (clang
 * -fplugin=tf.so) it was refused by the dynamic linker with the first one
 * missing ("undefined symbol: _Z25gt_ggc_mx_vec_tree_va_gc_Pv"). This file
 * refers to none of them: inside GCC it loads the plugin proper and hands it
 * GCC's call (the same arguments: the plugin is still named "tf", after this
 * file); anywhere else it says which plugin that compiler wants.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>

extern "C" {
__attribute__((visibility("default"))) int plugin_is_GPL_compatible;
__attribute__((visibility("default"))) int plugin_init(void *info, void *version);
}

/* This file's path (found by a hidden function: plugin_init may be another
 * copy's, interposed), and the path of name in its directory. */
static void anchor(void) {}

static std::string self_path(void)
{
    Dl_info me;
    return dladdr((void *)anchor, &me) && me.dli_fname ? me.dli_fname : "tf.so";
}

static std::string beside(const std::string &name)
{
    std::string self = self_path();
    size_t slash = self.rfind('/');
    return slash == std::string::npos ? name : self.substr(0, slash + 1) + name;
}

int plugin_init(void *info, void *version)
{
    std::string proper = beside("tf.gcc.so");
    void *h = dlopen(proper.c_str(), RTLD_NOW | RTLD_GLOBAL);
    int (*init)(void *, void *) = h ? (int (*)(void *, void *))dlsym(h, "plugin_init") : NULL;
    if (!init) {
        fprintf(stderr, "cc1: error: tf: cannot load the GCC plugin proper beside %s: %s\n",
                self_path().c_str(), dlerror());
        return 1;
    }
    return init(info, version);
}

/* GCC's compilers (cc1, cc1plus, lto1) export their plugin interface; a
 * compiler without it is not GCC: it is told which plugin it wants, and
 * stops (a compilation going on untraced would be silent). */
__attribute__((constructor)) static void in_gcc_only(void)
{
    if (dlsym(RTLD_DEFAULT, "register_callback"))
        return;
    std::string clang = beside("tf-clang.so");
    if (access(clang.c_str(), F_OK) != 0) /* the build tree: build/clang-pass/ */
        clang = beside("../clang-pass/tf-clang.so");
    char *real = realpath(clang.c_str(), NULL);
    if (real)
        clang = real;
    free(real);
    fprintf(stderr, "tf: %s is TF's plugin for GCC; for Clang use %s\n", self_path().c_str(),
            clang.c_str());
    _exit(1);
}
