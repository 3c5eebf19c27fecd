#include "nearest.h"

#include <algorithm>

namespace tf {
namespace core {

namespace {

size_t distance(const std::string &a, const std::string &b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); j++)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); j++) {
            size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string joined(const std::vector<std::string> &v, size_t n)
{
    std::string out;
    for (size_t i = 0; i < v.size() && i < n; i++)
        out += (i ? ", " : "") + v[i];
    return out;
}

} // namespace

std::string nearest_names(const std::string &name, const std::vector<std::string> &names, const std::string &what)
{
    if (names.empty())
        return "no " + what;
    if (names.size() <= 8)
        return what + ": " + joined(names, names.size());
    std::vector<std::string> by = names;
    std::stable_sort(by.begin(), by.end(),
                     [&](const std::string &a, const std::string &b) { return distance(name, a) < distance(name, b); });
    return "nearest of " + std::to_string(names.size()) + " " + what + ": " + joined(by, 3);
}

} // namespace core
} // namespace tf
