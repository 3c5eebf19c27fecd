/*
 * manifest.cc: -fplugin-arg-tf-manifest=FILE: the TU's groups and names,
 * written by plugin-core's manifest writer (the same bytes as tf-clang.so's).
 */
#include "tf-plugin.h"

#include "manifest.h"
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
    const core::rules *r = rules_early();
    m.calls = (r && !r->calls.empty()) || !calls.sites.empty();
    m.sites = calls.sites;
    m.captures = tu.captures;
    std::string text = core::manifest_json(m, tu.table);
    FILE *f = fopen(opts.manifest.c_str(), "w");
    bool ok = f && fputs(text.c_str(), f) >= 0;
    if (f && fclose(f))
        ok = false;
    if (!ok)
        error("tf: cannot write manifest %qs: %m", opts.manifest.c_str());
}

} // namespace tf
