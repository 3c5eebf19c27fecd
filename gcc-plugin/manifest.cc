/*
 * manifest.cc: -fplugin-arg-tf-manifest=FILE writes the TU's annotations as
 * JSON (the paper's tfannotations.properties): every group declared in the
 * TU with its subgroups, and the name table with ids, kinds, timing-point
 * types and source locations. One file per TU; tf-scan merges project-wide.
 */
#include "tf-plugin.h"

namespace tf {

static void put_string(FILE *f, const std::string &s)
{
    fputc('"', f);
    for (unsigned char c : s) {
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

std::string tu_base_name(void)
{
    std::string base = lbasename(main_input_filename);
    size_t dot = base.rfind('.');
    return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

static void put_groups(FILE *f)
{
    const char *sep = "";
    fputs("  \"groups\": [", f);
    for (const auto &it : groups) {
        const group_decl &g = it.second;
        expanded_location x = expand_location(g.loc);
        fprintf(f, "%s\n    {\"name\": ", sep);
        put_string(f, g.name);
        fputs(", \"subgroups\": [", f);
        for (size_t i = 0; i < g.subs.size(); i++) {
            fputs(i ? ", " : "", f);
            put_string(f, g.subs[i]);
        }
        bool used = std::binary_search(tu.used_groups.begin(), tu.used_groups.end(), g.name);
        fprintf(f, "], \"used\": %s, \"file\": ", used ? "true" : "false");
        put_string(f, x.file ? x.file : "");
        fprintf(f, ", \"line\": %d}", x.line);
        sep = ",";
    }
    fputs("\n  ],\n", f);
}

static void put_names(FILE *f)
{
    static const char *const tps[] = {"none", "enter", "exit"};
    fputs("  \"names\": [", f);
    for (size_t i = 0; i < tu.names.size(); i++) {
        const name_entry &n = tu.names[i];
        fprintf(f, "%s\n    {\"id\": %d, \"name\": ", i ? "," : "", (int)i);
        put_string(f, n.name);
        fprintf(f, ", \"kind\": \"%s\", \"flags\": %u, \"group\": ",
                n.flags & NAME_MONITOR ? "monitor" : "info", n.flags);
        if (n.group >= 0)
            put_string(f, n.group_name);
        else
            fputs("null", f);
        fputs(", \"tp\": [", f);
        const char *sep = "";
        for (int t = 0; t < 3; t++) {
            bool has = t == 0 ? (n.flags & NAME_INFO) && !(n.flags & (NAME_TP_ENTER | NAME_TP_EXIT))
                              : (n.flags & (t == 1 ? NAME_TP_ENTER : NAME_TP_EXIT)) != 0;
            if (has) {
                fprintf(f, "%s\"%s\"", sep, tps[t]);
                sep = ", ";
            }
        }
        fputs("], \"function\": ", f);
        put_string(f, n.function);
        fputs(", \"file\": ", f);
        put_string(f, n.file);
        fprintf(f, ", \"line\": %u}", n.line);
    }
    fputs("\n  ]\n", f);
}

void manifest_write(void)
{
    FILE *f = fopen(opts.manifest.c_str(), "w");
    if (!f) {
        error("tf: cannot write manifest %qs: %m", opts.manifest.c_str());
        return;
    }
    fputs("{\n  \"abi\": 1,\n  \"compiler\": \"gcc\",\n  \"file\": ", f);
    put_string(f, main_input_filename);
    fputs(",\n  \"tu\": ", f);
    put_string(f, tu_base_name());
    fputs(",\n", f);
    put_groups(f);
    put_names(f);
    fputs("}\n", f);
    if (fclose(f))
        error("tf: cannot write manifest %qs: %m", opts.manifest.c_str());
}

} // namespace tf
