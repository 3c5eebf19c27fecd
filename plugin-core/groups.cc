#include "groups.h"

#include <algorithm>

namespace tf {
namespace core {

namespace {

bool reaches(const subgroups_of &subs, const std::string &from, const std::string &to,
             std::set<std::string> &seen)
{
    if (from == to)
        return true;
    if (!seen.insert(from).second)
        return false;
    const std::vector<std::string> *next = subs(from);
    if (next)
        for (const std::string &s : *next)
            if (reaches(subs, s, to, seen))
                return true;
    return false;
}

bool depth_first(const std::map<std::string, std::set<std::string>> &edges, const std::string &g,
                 std::vector<std::string> &path, std::set<std::string> &done)
{
    if (std::find(path.begin(), path.end(), g) != path.end()) {
        path.push_back(g);
        return true;
    }
    if (done.count(g))
        return false;
    path.push_back(g);
    auto it = edges.find(g);
    if (it != edges.end())
        for (const std::string &sub : it->second)
            if (depth_first(edges, sub, path, done))
                return true;
    path.pop_back();
    done.insert(g);
    return false;
}

} // namespace

bool closes_cycle(const subgroups_of &subs, const std::string &group, const std::string &sub)
{
    std::set<std::string> seen;
    return reaches(subs, sub, group, seen);
}

std::vector<std::string> find_cycle(const std::map<std::string, std::set<std::string>> &edges)
{
    std::set<std::string> done;
    for (const auto &e : edges) {
        std::vector<std::string> path;
        if (!depth_first(edges, e.first, path, done))
            continue;
        auto start = std::find(path.begin(), path.end(), path.back());
        return std::vector<std::string>(start, path.end());
    }
    return {};
}

} // namespace core
} // namespace tf
