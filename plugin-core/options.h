/*
 * options.h: the plugin options, one table for tf.so and tf-clang.so
 * (-fplugin-arg-tf-KEY[=VALUE]), parsed and validated here only.
 */
#ifndef TF_CORE_OPTIONS_H
#define TF_CORE_OPTIONS_H

#include <string>

#include "size.h"

namespace tf {
namespace core {

struct options {
    int verbose = 0;      /* verbose[=N]: 0-2 */
    std::string manifest; /* manifest=FILE */
    std::string rules;    /* rules=FILE */
    bool off = false;     /* off[=0|1]: parse and check, inject nothing */
    int min_size = -1;    /* min-size=N: overrides the rules file's; -1 unset */
    unsigned inplace_size = default_inplace_size; /* inplace-size=N (size.h) */
    bool light_clones = true; /* clone-opt=light|full (size.h, light_clone) */
};

/* Applies one option; value is NULL when the option has no `=`. Returns ""
 * or the error, naming the option as the user wrote it. */
std::string option_set(options &o, const std::string &key, const char *value);

/* The table as help lines ("  -fplugin-arg-tf-verbose=N  ...\n" each). */
std::string options_help(void);

} // namespace core
} // namespace tf

#endif
