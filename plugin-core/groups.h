/*
 * groups.h: the subgroup graph and its cycle check (docs/design.md .attr.diag:
 * a subgroup cycle is a compile error). The plugins keep each group's
 * subgroups with their own source locations and ask here, through `subs`,
 * before adding an edge; tf-scan asks for a cycle across the whole project.
 */
#ifndef TF_CORE_GROUPS_H
#define TF_CORE_GROUPS_H

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tf {
namespace core {

/* The subgroups declared for a group so far, NULL for a group not seen. */
typedef std::function<const std::vector<std::string> *(const std::string &)> subgroups_of;

/* Would the edge group -> sub close a cycle (sub reaches group, or is it)? */
bool closes_cycle(const subgroups_of &subs, const std::string &group, const std::string &sub);

/* A cycle in edges as the path "a, b, a", or empty when there is none. */
std::vector<std::string> find_cycle(const std::map<std::string, std::set<std::string>> &edges);

} // namespace core
} // namespace tf

#endif
