/* json.h: the one JSON string escaper of the plugins and tf-scan. */
#ifndef TF_CORE_JSON_H
#define TF_CORE_JSON_H

#include <string>

namespace tf {
namespace core {

/* s as a JSON string literal, quotes included: `"` and `\` escaped, control
 * characters as \u00XX, every other byte as it is (UTF-8 passes through). */
std::string json_string(const std::string &s);

} // namespace core
} // namespace tf

#endif
