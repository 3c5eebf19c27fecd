/*
 * manifest.cc: -fplugin-arg-tf-manifest=FILE: the TU's groups and names,
 * written by plugin-core's manifest writer (the same bytes as tf-clang.so's).
 */
#include "tf-plugin.h"

#include "manifest.h"
#include "output.h"
#include "spelling.h"

namespace tf {

std::string tu_base_name(void)
{
    return core::base_name(main_input_filename);
}

void manifest_write(void)
{
    core::manifest_tu m;
    m.compiler = "gcc";
    m.file = main_input_filename;
    m.tu = tu_base_name();
    for (const auto &it : groups) {
        expanded_location x = expand_location(it.second.loc);
        m.groups.push_back({it.first, it.second.subs, x.file ? x.file : "", unsigned(x.line)});
    }
    m.rules = !opts.rules.empty();
    m.min_size = rules_min_size();
    m.too_small = tu.too_small;
    m.rules_file = opts.rules;
    if (m.rules)
        rules_lines(m.rules_monitors, m.rules_chosen);
    std::string why;
    if (!core::write_manifest(opts.manifest, core::manifest_json(m, tu.table), why))
        error("tf: cannot write manifest %qs: %s", core::escaped(opts.manifest).c_str(), why.c_str());
}

} // namespace tf
