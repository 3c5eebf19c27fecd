/*
 * policy.h: which calls in a monitored function get an exception hook
 * (docs/code-shape.md section 5), decided here for both plugins:
 *   __cxa_throw     THROW with the type_info thrown
 *   __cxa_rethrow   THROW with no type
 *   any other call the compiler marks noreturn: NORETURN naming the callee
 *     (exit, abort, longjmp, __cxa_bad_cast of a failed dynamic_cast<T&>,
 *     __builtin_trap, ...), except where no call is in the source:
 *     __builtin_unreachable, compiler intrinsics other than the trap, and
 *     the terminate call a compiler plants in its own landing pads.
 */
#ifndef TF_CORE_POLICY_H
#define TF_CORE_POLICY_H

#include <string>

namespace tf {
namespace core {

enum class call_hook { none, throw_typed, rethrow, noreturn };

/* symbol: the callee's name as the compiler has it (GCC: DECL_NAME; LLVM:
 * the function's IR name), "" for an indirect call; noreturn: the compiler
 * says the call never returns. */
call_hook hook_for_call(const std::string &symbol, bool noreturn);

/* The name reported for a noreturn callee the compiler spells as an
 * intrinsic ("llvm.trap" -> "__builtin_trap"); "" when spelled as written. */
std::string builtin_spelling(const std::string &symbol);

/* Monitored functions that stay in the name table but get no hook: both
 * plugins warn "tf: 'f' is not instrumented: <skip_reason>". */
enum class skip { coroutine, ctor_try_block, alias, ifunc };
const char *skip_reason(skip why);
/* A monitored constructor/destructor-attribute function: instrumented, but
 * both plugins warn "tf: 'f' <run_at_load_text>". */
const char *run_at_load_text(bool destructor);

} // namespace core
} // namespace tf

#endif
