/*
 * manifest.h: the TU manifest (docs/design.md .manifest, the paper's
 * tfannotations.properties), one writer for tf.so, tf-clang.so and tf-scan,
 * so the two plugins' manifests of one source differ only in "compiler".
 */
#ifndef TF_CORE_MANIFEST_H
#define TF_CORE_MANIFEST_H

#include <string>
#include <vector>

#include "names.h"

namespace tf {
namespace core {

struct manifest_group {
    std::string name;
    std::vector<std::string> subgroups; /* in the order written */
    std::string file;
    unsigned line = 0;
};

/* A function a rules file matched that size.h left plain. */
struct manifest_small {
    std::string function, file;
    unsigned line = 0, ops = 0;
};

struct manifest_tu {
    std::string compiler; /* "gcc" or "clang" */
    std::string file;     /* main input file as given */
    std::string tu;       /* its base name */
    std::vector<manifest_group> groups; /* every group visible, sorted by name */
    bool rules = false;                 /* a rules file was read: min_size applies */
    unsigned min_size = 0;
    std::vector<manifest_small> too_small; /* any order; written sorted */
    /* With a rules file: its path as given, its monitor lines, and those that
     * took a function of this TU (a merged manifest or tf-scan says the lines
     * no TU of the build chose). */
    std::string rules_file;
    std::vector<unsigned> rules_monitors, rules_chosen;
};

/* The manifest as JSON, ending in a newline. */
std::string manifest_json(const manifest_tu &m, const name_table &names);


} // namespace core
} // namespace tf

#endif
