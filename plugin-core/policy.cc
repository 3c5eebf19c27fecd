#include "policy.h"

namespace tf {
namespace core {

namespace {

struct intrinsic {
    const char *symbol, *builtin;
};
/* LLVM intrinsics that are a builtin call in the source, as GCC sees it. */
const intrinsic intrinsics[] = {
    {"llvm.trap", "__builtin_trap"},
};

/* Noreturn calls no source line wrote: skipped by both plugins. */
const char *const unwritten[] = {
    "__builtin_unreachable",
    "__clang_call_terminate", /* Clang's terminate pad; GCC adds its own after tf_instrument */
};

} // namespace

std::string builtin_spelling(const std::string &symbol)
{
    for (const intrinsic &i : intrinsics)
        if (symbol == i.symbol)
            return i.builtin;
    return "";
}

call_hook hook_for_call(const std::string &symbol, bool noreturn)
{
    if (symbol == "__cxa_throw")
        return call_hook::throw_typed;
    if (symbol == "__cxa_rethrow")
        return call_hook::rethrow;
    if (!noreturn)
        return call_hook::none;
    for (const char *u : unwritten)
        if (symbol == u)
            return call_hook::none;
    if (symbol.compare(0, 5, "llvm.") == 0 && builtin_spelling(symbol).empty())
        return call_hook::none;
    return call_hook::noreturn;
}

const char *skip_reason(skip why)
{
    switch (why) {
    case skip::coroutine:
        return "it is a coroutine (its body runs in functions the compiler makes)";
    case skip::ctor_try_block:
        return "its body is a constructor's or destructor's function-try-block";
    case skip::alias:
        return "it is an alias; monitor the function it aliases";
    case skip::ifunc:
        return "it is an ifunc; monitor the implementations its resolver returns";
    }
    return "";
}

const char *run_at_load_text(bool destructor)
{
    return destructor ? "is a destructor function: calls after TF stops at exit are not traced"
                      : "is a constructor function: calls before TF reads TF_MONITORS at start are not traced";
}

} // namespace core
} // namespace tf
