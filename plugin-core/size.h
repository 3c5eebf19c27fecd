/*
 * size.h: the size threshold of rules-file instrumentation, modelled on
 * XRay's -fxray-instruction-threshold. A function a rules file would monitor
 * gets no hooks when its body is too small to be worth a check on every call
 * (getters, one-line wrappers: the functions a compiler inlines, where the
 * fast path's load and branch cost most, README "Cost"). Functions with
 * TF_MONITOR in the source are always instrumented.
 *
 * Both plugins measure the body as written (Clang's AST, GCC's GENERIC
 * before gimplification), so the two and tf-scan decide alike. Its size is
 * the number of operations: calls (constructor calls too), assignments
 * (=, op=, ++, --, an initialised local variable) and branches (if, ?:,
 * switch, &&, ||, and each loop and goto). Unlike XRay without
 * -fxray-ignore-loops, a loop does not make a function large: XRay measures
 * after inlining, TF before, and a short loop (a compare, a varint reader)
 * is what a compiler inlines into its hot caller unless the fast path's
 * check makes it too big (bench/README.md "Instrumenting everything").
 */
#ifndef TF_CORE_SIZE_H
#define TF_CORE_SIZE_H

#include <string>

namespace tf {
namespace core {

/* min-size when neither the rules file nor -fplugin-arg-tf-min-size says:
 * chosen from bench/ (bench/README.md "Instrumenting everything"). */
constexpr unsigned default_min_size = 10;
/* The largest min-size accepted (a number a rules file can hold, far above any body). */
constexpr unsigned max_min_size = 1000000;

/* The shape of a monitored function (docs/code-shape.md 3.1, docs/design.md
 * .perf.shape):
 * one that calls other functions and has at least this many operations keeps
 * its hooks in place, in its one body; any other gets the traced clone.
 * Chosen from bench/ (bench/README.md "What instrumenting everything costs
 * to build"); -fplugin-arg-tf-inplace-size=N changes it. */
constexpr unsigned default_inplace_size = 30;

/* A traced clone of a function this large or larger reports its values in
 * the compact form too (code-shape.md 3.2): smaller ones are the hot tiny
 * functions, where the traced call's cost counts most (the recorder's fib). */
constexpr unsigned compact_clone_size = 10;

struct body_size {
    unsigned ops = 0;
    unsigned calls = 0; /* of them, calls (constructor calls, new and delete too) */
    unsigned loops = 0; /* of them, loops (for, while, do; not a goto's) */
};

/* True when a function matched by a rules file stays uninstrumented. */
bool too_small(const body_size &s, unsigned min_size);

/* Why: "3 operations, under min-size 4" (for verbose notes). */
std::string too_small_text(const body_size &s, unsigned min_size);

/* True when a monitored function of this size keeps its hooks in place. */
bool hooks_in_place(const body_size &s, unsigned inplace_size);

/* True when the traced clone of a function of this size reports its values
 * in the compact form (compact_clone_size). */
bool compact_clone(const body_size &s);

/* True when the traced clone of a function of this size is compiled light
 * (clone-opt=light, the default): GCC -Og, Clang optsize and minsize, when
 * the function itself is optimised for speed. The traced copy runs only
 * while a monitor is registered, where the hooks' cost dwarfs what -O2 would
 * save on it, and it compiled at the full level was most of what
 * instrumenting everything cost at build time (bench/README.md "What
 * instrumenting everything costs to build"). Tiny functions keep the full
 * level: there the traced call's cost counts most, and compiling them costs
 * little. */
bool light_clone(const body_size &s, bool light);

/* True when the traced clone of a function of this size is not cold either
 * (clone-opt=full): its body has a loop, whose time a call's hooks need not
 * dwarf (one call of a compressor runs its loop for seconds), and a cold
 * copy is optimised for size, without the inlining f has. Not by default:
 * with GCC those clones cost 2.6% more .text of SQLite (1.359x plain, over
 * the 1.35x goal; bench/README.md "What instrumenting everything costs to
 * build"). */
bool hot_clone(const body_size &s, bool light);

/* Why: "52 operations and 3 calls, from inplace-size 30" (for verbose notes). */
std::string in_place_text(const body_size &s, unsigned inplace_size);

/* Parses a min-size value (decimal, 0..max_min_size); "" or the error. */
std::string parse_min_size(const std::string &text, unsigned &out);

} // namespace core
} // namespace tf

#endif
