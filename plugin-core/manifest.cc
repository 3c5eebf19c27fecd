#include "manifest.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "abi.h"
#include "json.h"

namespace tf {
namespace core {

namespace {

std::string list(const std::vector<std::string> &items, bool quote)
{
    std::string out;
    for (size_t i = 0; i < items.size(); i++)
        out += (i ? ", " : "") + (quote ? json_string(items[i]) : items[i]);
    return out;
}

std::string group_json(const manifest_group &g, const name_table &t)
{
    bool used = std::find(t.used_groups.begin(), t.used_groups.end(), g.name) != t.used_groups.end();
    return "\n    {\"name\": " + json_string(g.name) + ", \"subgroups\": [" + list(g.subgroups, true) +
           "], \"used\": " + (used ? "true" : "false") + ", \"file\": " + json_string(g.file) +
           ", \"line\": " + std::to_string(g.line) + "}";
}

std::string tps(unsigned flags)
{
    std::vector<std::string> out;
    if ((flags & TF_NAME_INFO) && !(flags & (TF_NAME_TP_ENTER | TF_NAME_TP_EXIT)))
        out.push_back("\"none\"");
    if (flags & TF_NAME_TP_ENTER)
        out.push_back("\"enter\"");
    if (flags & TF_NAME_TP_EXIT)
        out.push_back("\"exit\"");
    return list(out, false);
}

std::string name_json(size_t id, const name_entry &n, const name_table &t)
{
    std::string group = n.group >= 0 ? json_string(t.used_groups[size_t(n.group)]) : "null";
    return "\n    {\"id\": " + std::to_string(id) + ", \"name\": " + json_string(n.name) + ", \"kind\": \"" +
           ((n.flags & TF_NAME_MONITOR) ? "monitor" : "info") + "\", \"flags\": " + std::to_string(n.flags) +
           ", \"group\": " + group + ", \"tp\": [" + tps(n.flags) + "], \"function\": " +
           json_string(n.function) + ", \"file\": " + json_string(n.file) + ", \"line\": " +
           std::to_string(n.line) + "}";
}

std::string small_json(const manifest_small &f)
{
    return "\n    {\"function\": " + json_string(f.function) + ", \"file\": " + json_string(f.file) +
           ", \"line\": " + std::to_string(f.line) + ", \"operations\": " + std::to_string(f.ops) + "}";
}

/* Only with a rules file, so manifests of annotated code stay as they were. */
std::string small_part(const manifest_tu &m)
{
    if (!m.rules)
        return "";
    std::vector<manifest_small> fs = m.too_small;
    std::sort(fs.begin(), fs.end(), [](const manifest_small &a, const manifest_small &b) {
        return a.file != b.file ? a.file < b.file : a.line != b.line ? a.line < b.line : a.function < b.function;
    });
    /* GCC sees a C++ constructor's clones as functions of one place. */
    fs.erase(std::unique(fs.begin(), fs.end(),
                         [](const manifest_small &a, const manifest_small &b) {
                             return a.file == b.file && a.line == b.line && a.function == b.function;
                         }),
             fs.end());
    std::string o = ",\n  \"min_size\": " + std::to_string(m.min_size) + ",\n  \"too_small\": [";
    for (size_t i = 0; i < fs.size(); i++)
        o += (i ? "," : "") + small_json(fs[i]);
    return o + (fs.empty() ? "]" : "\n  ]");
}

std::string numbers(const std::vector<unsigned> &v)
{
    std::string out;
    for (size_t i = 0; i < v.size(); i++)
        out += (i ? ", " : "") + std::to_string(v[i]);
    return out;
}

std::string rules_part(const manifest_tu &m)
{
    if (!m.rules)
        return "";
    return ",\n  \"rules\": {\"file\": " + json_string(m.rules_file) + ", \"monitor_lines\": [" +
           numbers(m.rules_monitors) + "], \"chosen\": [" + numbers(m.rules_chosen) + "]}";
}

} // namespace

std::string manifest_json(const manifest_tu &m, const name_table &t)
{
    std::string o = "{\n  \"abi\": " + std::to_string(TF_TU_ABI) + ",\n  \"compiler\": " +
                    json_string(m.compiler) + ",\n  \"file\": " + json_string(m.file) +
                    ",\n  \"tu\": " + json_string(m.tu) + ",\n  \"groups\": [";
    for (size_t i = 0; i < m.groups.size(); i++)
        o += (i ? "," : "") + group_json(m.groups[i], t);
    o += "\n  ],\n  \"names\": [";
    for (size_t i = 0; i < t.names.size(); i++)
        o += (i ? "," : "") + name_json(i, t.names[i], t);
    return o + "\n  ]" + small_part(m) + rules_part(m) + "\n}\n";
}

} // namespace core
} // namespace tf
