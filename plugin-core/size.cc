#include "size.h"

namespace tf {
namespace core {

bool too_small(const body_size &s, unsigned min_size)
{
    return s.ops < min_size;
}

std::string too_small_text(const body_size &s, unsigned min_size)
{
    return std::to_string(s.ops) + (s.ops == 1 ? " operation" : " operations") + ", under min-size " +
           std::to_string(min_size);
}

bool hooks_in_place(const body_size &s, unsigned inplace_size)
{
    return s.calls > 0 && s.ops >= inplace_size;
}

bool compact_clone(const body_size &s)
{
    return s.ops >= compact_clone_size;
}

bool light_clone(const body_size &s, bool light)
{
    return light && compact_clone(s);
}

bool hot_clone(const body_size &s, bool light)
{
    return !light && s.loops > 0;
}

std::string in_place_text(const body_size &s, unsigned inplace_size)
{
    return std::to_string(s.ops) + " operations and " + std::to_string(s.calls) +
           (s.calls == 1 ? " call" : " calls") + ", from inplace-size " + std::to_string(inplace_size);
}

std::string parse_min_size(const std::string &text, unsigned &out)
{
    std::string why = "min-size '" + text + "' is not a number from 0 to " + std::to_string(max_min_size);
    if (text.empty() || text.size() > 7)
        return why;
    unsigned long v = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return why;
        v = v * 10 + unsigned(c - '0');
    }
    if (v > max_min_size)
        return why;
    out = unsigned(v);
    return "";
}

} // namespace core
} // namespace tf
