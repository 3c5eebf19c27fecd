/*
 * nearest.h: a name that matches nothing is said with the nearest existing
 * names (DESIGN section 8, "No silence"): the fields of a struct, the
 * parameters of a function.
 */
#ifndef TF_CORE_NEAREST_H
#define TF_CORE_NEAREST_H

#include <string>
#include <vector>

namespace tf {
namespace core {

/* "fields: fd, peer" when there are few (8 or fewer), else the three
 * nearest by edit distance ("nearest of 12 fields: port, peer, pad");
 * "no fields" when there are none. `what` is the plural noun. */
std::string nearest_names(const std::string &name, const std::vector<std::string> &names, const std::string &what);

} // namespace core
} // namespace tf

#endif
