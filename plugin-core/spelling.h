/*
 * spelling.h: names as both plugins spell them, whatever the compiler's own
 * printer says: identifiers, timing-point types, the TU's base name, C++
 * names, the callees the hooks report, and the element codes of values.
 */
#ifndef TF_CORE_SPELLING_H
#define TF_CORE_SPELLING_H

#include <string>
#include <vector>

namespace tf {
namespace core {

/* "did you mean 'work'?" for a name that matches nothing, from the names
 * that exist (nearest/ decides what is near), or "" when none is near.
 * with_hint(msg, want, names): msg, then "; did you mean ...?" if any. */
std::string did_you_mean(const std::string &want, const std::vector<std::string> &names,
                         const char *open = "'", const char *close = "'");
std::string with_hint(const std::string &msg, const std::string &want,
                      const std::vector<std::string> &names);

/* A C identifier: group names must be (TF_GROUP pastes them). */
bool is_identifier(const std::string &s);
/* "TF_TP_NONE" 0, "TF_TP_ENTER" 1, "TF_TP_EXIT" 2, anything else -1. */
int tp_value(const std::string &text);
/* "src/io.c" -> "io": the TU's name in traces and descriptors. */
std::string base_name(const std::string &path);
/* GCC prints "{anonymous}", Clang "(anonymous namespace)": Clang's wins. */
std::string cxx_name(std::string name);
/* A lambda, named by where it is written so two lambdas of one signature
 * differ: "SCOPE::<lambda LINE:COLUMN>" (the place of its '['; SCOPE the
 * enclosing function's or namespace's name, none at file scope). */
std::string lambda_name(const std::string &scope, unsigned line, unsigned column);
/* What a compiler knows of a COMPLEX or VECTOR value's element type. */
enum class elem_type { other, signed_int, unsigned_int, real };
/* The value's element code (abi.def: "<class><bytes>*<count>", "f8*2" for
 * _Complex double), "" for elements libtf cannot show (bool, _Float16,
 * __float128, decimal floats, padded integers). bits: the element's
 * precision (80 for x87's long double). */
std::string element_code(elem_type t, unsigned bits, unsigned bytes, unsigned count);
/* A demangled C++ function ("std::terminate()") without its parameters. */
std::string without_parameters(const std::string &demangled);

} // namespace core
} // namespace tf

#endif
