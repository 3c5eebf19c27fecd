/*
 * compat.h: every GCC header the plugin needs, and every difference between
 * GCC versions, in one place (the Linux gcc-common.h habit). The plugin is
 * built and tested against the system GCC 12; a port to another major version
 * should only touch this file.
 */
#ifndef TF_GCC_COMPAT_H
#define TF_GCC_COMPAT_H

/* Standard headers first: GCC's system.h poisons some libc names. */
#include <dlfcn.h>
#include <fnmatch.h>
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gcc-plugin.h"
#include "plugin-version.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "gimple-walk.h"
#include "gimplify.h"
#include "gimple-low.h"
#include "stringpool.h"
#include "attribs.h"
#include "cgraph.h"
#include "varasm.h"
#include "stor-layout.h"
#include "langhooks.h"
#include "diagnostic.h"
#include "intl.h" /* open_quote, close_quote: the quotes of %qs */
#include "tree-iterator.h"
#include "fold-const.h"
#include "builtins.h"
#include "cpplib.h"
#include "toplev.h"
#include "memmodel.h"
#include "except.h"

/* Built and tested with GCC 12 only (the CI's gcc-12-plugin-dev); another
 * version needs its differences added here first. */
#if GCCPLUGIN_VERSION_MAJOR != 12
#error "tf.so is written for GCC 12; adapt compat.h"
#endif

/* attribute_spec gained the `exclude` table in GCC 8 and keeps it through 13. */
#define TF_ATTRIBUTE(name, min, max, handler) \
    { name, min, max, false, false, false, false, handler, NULL }

/* The preprocessor of the C-family front ends. Weak: lto1 loads the plugin
 * too and has neither, so there they are null. */
extern cpp_reader *parse_in __attribute__((weak));
extern void cpp_define(cpp_reader *, const char *) __attribute__((weak));

/* build_string_literal takes the length including the NUL since GCC 4. */
static inline tree tf_compat_string_literal(const char *s)
{
    return build_string_literal(strlen(s) + 1, s);
}

#endif
