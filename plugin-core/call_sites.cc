#include "call_sites.h"

#include <cstring>

namespace tf {
namespace core {

namespace {

bool starts(const std::string &s, const char *prefix) { return s.compare(0, strlen(prefix), prefix) == 0; }

/* GCC's special_function_p: these names return twice whatever the headers
 * say, under any number of leading underscores up to two. */
bool returns_twice_name(const std::string &name)
{
    std::string n = name;
    if (starts(n, "__builtin_"))
        n = n.substr(10);
    else if (starts(n, "__"))
        n = n.substr(2);
    else if (starts(n, "_"))
        n = n.substr(1);
    return n == "setjmp" || n == "sigsetjmp" || n == "savectx" || n == "vfork" || n == "getcontext";
}

} // namespace

const char *call_skip_reason(call_skip why)
{
    switch (why) {
    case call_skip::none: return "traced";
    case call_skip::indirect: return "an indirect call: the function called is known only at run time";
    case call_skip::noreturn: return "the function does not return: it would have no exit";
    case call_skip::returns_twice: return "the function returns twice (setjmp and friends)";
    case call_skip::frame: return "the function works in its caller's frame (alloca)";
    case call_skip::object: return "a C++ object that is not trivially copyable is passed or returned by value";
    case call_skip::variable_size: return "an argument's type has a variable size (a wrapper could not take it)";
    case call_skip::name_taken: return "a function of this translation unit is traced under its name";
    }
    return "?";
}

bool call_ignored(const std::string &c)
{
    static const char *const prefixes[] = {"__builtin_", "__atomic_", "__sync_", "__cyg_profile_", "__tsan_",
                                           "__asan_", "__ubsan_", "__msan_", "__sanitizer_", "__cxa_",
                                           "__tf_", "tf_tu_", "__gxx_", "__dynamic_cast"};
    for (const char *p : prefixes)
        if (starts(c, p))
            return true;
    return false;
}

bool builtin_expression(const std::string &c)
{
    static const char *const names[] = {"abs", "labs", "llabs", "imaxabs", "fabs", "fabsf", "fabsl",
                                        "conj", "conjf", "conjl", "creal", "crealf", "creall",
                                        "cimag", "cimagf", "cimagl", "isascii", "toascii", "isdigit"};
    for (const char *n : names)
        if (c == n)
            return true;
    return false;
}

call_skip call_policy(const callee_facts &f)
{
    if (f.name.empty())
        return call_skip::indirect;
    if (f.object_by_value)
        return call_skip::object;
    if (f.variable_size)
        return call_skip::variable_size;
    if (f.returns_twice || returns_twice_name(f.name))
        return call_skip::returns_twice;
    if (f.noreturn)
        return call_skip::noreturn;
    if (f.name == "alloca")
        return call_skip::frame;
    return call_skip::none;
}

bool call_wanted(const rules *r, const calls_attr *attr, const std::string &file, const std::string &caller,
                 const std::string &callee, std::string &group, unsigned &rule)
{
    if (attr)
        for (const std::string &g : attr->globs)
            if (callee.empty() || glob_match(g, callee)) {
                group = attr->group;
                rule = 0;
                return true;
            }
    if (!r)
        return false;
    const rules::call *c = callee.empty() ? r->call_from(file, caller) : r->call_for(file, caller, callee);
    if (!c)
        return false;
    group = c->group;
    rule = c->line;
    return true;
}

} // namespace core
} // namespace tf
