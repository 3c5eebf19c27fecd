/* dl_module: an instrumented library that a program without libtf of its own
 * dlopens (docs/design.md .reg): registers the iostream TU while loaded. */
#include "fake_tu.h"

__attribute__((constructor)) static void load(void)
{
    tf_tu_register(&iostream_tu);
}

__attribute__((destructor)) static void unload(void)
{
    tf_tu_unregister(&iostream_tu);
}

int module_call(int x)
{
    return read_int(x);
}
