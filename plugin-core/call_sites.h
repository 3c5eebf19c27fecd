/*
 * call_sites.h: call sites (docs/design.md .call), the SmartMonitor's second kind
 * of event site: a direct call from a caller a `call` rule (or the caller's
 * TF_CALLS) names, to a callee it names, wherever that callee is defined
 * (libc, another library, another TU, a static inline function), becomes an
 * event pair of its own, named `<tu>.<callee>` and nested in the caller.
 *
 * Both plugins ask the same questions here: which calls are no call site at
 * all (compiler builtins and instrumentation hooks, never listed), which the
 * user asked for cannot be traced and why (listed in the manifest), and which
 * name each traced callee gets in the TU's name table (a TF_NAME_MONITOR |
 * TF_NAME_CALL entry, one per callee name, shared by its sites).
 */
#ifndef TF_CORE_CALL_SITES_H
#define TF_CORE_CALL_SITES_H

#include <string>
#include <vector>

#include "rules.h"

namespace tf {
namespace core {

/* Why a call the user asked for is not traced. */
enum class call_skip {
    none,
    indirect,      /* through a function pointer (or a virtual call) */
    noreturn,      /* the callee never returns: no exit to report */
    returns_twice, /* setjmp and friends: a second return would skip the hooks */
    frame,         /* alloca: works in its caller's frame */
    object,        /* a C++ object that is not trivially copyable, by value */
    variable_size, /* an argument of a variably modified type (GNU C) */
    name_taken,    /* a function of this TU is traced under the callee's name */
};
const char *call_skip_reason(call_skip why);

/* What a plugin knows of a call's callee. */
struct callee_facts {
    std::string name; /* its default tracing name; "" for an indirect call */
    bool noreturn = false, returns_twice = false, object_by_value = false, variable_size = false;
};

/* Calls that are never call sites and never listed, by the callee's name:
 * compiler builtins (__builtin_*, __atomic_*, __sync_*), instrumentation
 * hooks (__cyg_profile_*, sanitizers), the C++ runtime's __cxa_* and TF's
 * own. The plugins also leave out C++ member functions (virtual or not),
 * constructors, destructors, operators and conversions, which each compiler
 * makes implicit calls of in its own way, and TF's info functions. */
bool call_ignored(const std::string &callee);

/* Library functions every compiler computes inline, never a call even at
 * -O0 (abs, fabs, ...: GCC's C front end folds them into operators,
 * Clang's code generation into instructions), and so no call site. A
 * library builtin whose arguments are constants is a constant: each plugin
 * leaves it out when its compiler folds it. */
bool builtin_expression(const std::string &callee);

/* none, or why a call with these facts cannot be traced. */
call_skip call_policy(const callee_facts &f);

/* The caller's TF_CALLS(group, "glob", ...), when it has one. */
struct calls_attr {
    std::string group;
    std::vector<std::string> globs;
};

/* Whether a call from caller (defined in file) to callee is asked for, and
 * in which group by which rules line (0 for TF_CALLS, which wins). For an
 * indirect call callee is "": asked for when any line names the caller. */
bool call_wanted(const rules *r, const calls_attr *attr, const std::string &file, const std::string &caller,
                 const std::string &callee, std::string &group, unsigned &rule);

/* One call the user asked for, traced or not. */
struct call_site {
    std::string caller, callee; /* default tracing names; callee "" when indirect */
    std::string file;           /* where the call is written (header or source) */
    unsigned line = 0;
    unsigned place = 0;         /* rank of its location in the TU */
    std::string group;
    unsigned rule = 0;          /* its call line; 0: the caller's TF_CALLS */
    call_skip skip = call_skip::none;
    int id = -1;                /* its name's id, once the name table is built */
};

} // namespace core
} // namespace tf

#endif
