#include "names.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "abi.h"
#include "call_sites.h"

namespace tf {
namespace core {

namespace {

bool by_strcmp(const std::string &a, const std::string &b) { return strcmp(a.c_str(), b.c_str()) < 0; }

unsigned tp_bit(const fn_candidate &c)
{
    return c.monitor ? 0 : c.tp == 1 ? TF_NAME_TP_ENTER : c.tp == 2 ? TF_NAME_TP_EXIT : 0;
}

unsigned flags_of(const fn_candidate &c)
{
    return (c.monitor ? TF_NAME_MONITOR : TF_NAME_INFO) | tp_bit(c) | (c.call ? TF_NAME_CALL : 0);
}

/* Functions monitored by a rules file cannot be given a TF_TRACING_NAME. */
void rename_rule_clashes(std::vector<fn_candidate> &cands)
{
    std::map<std::string, std::vector<fn_candidate *>> by_name;
    for (fn_candidate &c : cands)
        if (!c.call)
            by_name[c.name].push_back(&c);
    for (auto &it : by_name) {
        std::vector<fn_candidate *> &v = it.second;
        std::stable_sort(v.begin(), v.end(), [](fn_candidate *a, fn_candidate *b) { return a->place < b->place; });
        int n = 1;
        for (size_t i = 1; i < v.size(); i++)
            if (v[i]->from_rules && v[i]->place != v[0]->place)
                v[i]->name += "#" + std::to_string(++n);
    }
}

/* c joins entry e (made from `first`): one function seen twice, or the other
 * half of an ENTER/EXIT pair. */
bool joins(name_entry &e, const fn_candidate &first, const fn_candidate &c)
{
    if (c.place == first.place && c.monitor == first.monitor)
        return true;
    unsigned bit = tp_bit(c), pair = TF_NAME_TP_ENTER | TF_NAME_TP_EXIT;
    if (!bit || (e.flags & TF_NAME_MONITOR) || !(e.flags & pair) || (e.flags & bit))
        return false;
    e.flags |= bit;
    return true;
}

} // namespace

int name_table::id_of(const std::string &tracing_name) const
{
    for (size_t i = 0; i < names.size(); i++)
        if (names[i].name == tracing_name)
            return int(i);
    return -1;
}

name_table build_names(std::vector<fn_candidate> &cands)
{
    rename_rule_clashes(cands);
    name_table t;
    std::set<std::string, bool (*)(const std::string &, const std::string &)> used(by_strcmp);
    for (const fn_candidate &c : cands)
        if (c.monitor)
            used.insert(c.group);
    t.used_groups.assign(used.begin(), used.end());
    std::vector<size_t> order(cands.size());
    for (size_t i = 0; i < order.size(); i++)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        int c = strcmp(cands[a].name.c_str(), cands[b].name.c_str());
        return c < 0 || (c == 0 && cands[a].place < cands[b].place);
    });
    t.ids.assign(cands.size(), -1);
    std::set<std::string> functions;
    for (const fn_candidate &c : cands)
        if (!c.call)
            functions.insert(c.name);
    for (size_t i : order) {
        const fn_candidate &c = cands[i];
        if (c.call && functions.count(c.name))
            continue;
        if (!t.names.empty() && t.names.back().name == c.name) {
            name_entry &e = t.names.back();
            if (joins(e, cands[e.first], c))
                t.ids[i] = int(t.names.size() - 1);
            else
                t.clashes.push_back({i, e.first});
            continue;
        }
        name_entry e;
        e.name = c.name;
        e.flags = flags_of(c);
        if (c.monitor)
            e.group = int(std::lower_bound(t.used_groups.begin(), t.used_groups.end(), c.group, by_strcmp) -
                          t.used_groups.begin());
        e.file = c.file;
        e.line = c.line;
        e.function = c.function;
        e.first = i;
        e.rule = c.rule;
        t.names.push_back(e);
        t.ids[i] = int(t.names.size() - 1);
    }
    return t;
}

void add_call_candidates(const std::vector<call_site> &sites, std::vector<fn_candidate> &cands)
{
    std::map<std::string, const call_site *> first;
    for (const call_site &s : sites)
        if (s.skip == call_skip::none) {
            const call_site *&f = first[s.callee];
            if (!f || s.place < f->place)
                f = &s;
        }
    for (const auto &it : first) {
        fn_candidate c;
        c.name = c.function = it.first;
        c.monitor = c.call = true;
        c.group = it.second->group;
        c.file = it.second->file;
        c.line = it.second->line;
        c.place = it.second->place;
        c.rule = it.second->rule;
        cands.push_back(c);
    }
}

void assign_call_ids(std::vector<call_site> &sites, const name_table &t)
{
    for (call_site &s : sites) {
        if (s.skip != call_skip::none)
            continue;
        s.id = t.id_of(s.callee);
        if (s.id < 0 || !(t.names[size_t(s.id)].flags & TF_NAME_CALL)) {
            s.id = -1;
            s.skip = call_skip::name_taken;
        } else {
            s.group = t.used_groups[size_t(t.names[size_t(s.id)].group)];
        }
    }
}

} // namespace core
} // namespace tf
