#!/bin/bash
# fastpath.sh CLANG PLUGIN INCLUDE WORK OPT (exit 77 without LLVM opt): the split shape of
# docs/code-shape.md section 3.1, read from the IR and the object code at -O0
# and -O2: f loads its slot (__tf_slots[id]) and calls f.tf_traced (a local,
# cold, noinline function holding every hook); f's own code calls no hook and no
# info function; the variadic function keeps its hooks in place, and so does
# the only caller of a static function (a copy would be a second caller, and
# LLVM would stop inlining it there); -g output verifies. The slot load is
# monotonic, acquire under -fsanitize=thread (ThreadSanitizer must see the pairing
# with the registry's release store), for both shapes.
set -u
cc=$1 plugin=$2 inc=$3 work=$4 opt_tool=${5:-}
[ -n "$opt_tool" ] || { echo "skip: no LLVM opt tool (llvm-14)"; exit 77; }
export LC_ALL=C
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
cat > "$work/fp.c" <<'SRC'
#include <stdarg.h>
#include <tf/tf.h>
TF_GROUP(fp);
TF_INFO(TF_TP_NONE) static void note(int v) {}
TF_MONITOR(fp) long fib(int n) { note(n); return n < 2 ? n : fib(n - 1) + fib(n - 2); }
TF_MONITOR(fp) int vsum(int n, ...) { va_list ap; va_start(ap, n); int s = va_arg(ap, int); va_end(ap); return s; }
static __attribute__((noinline)) int helper(int x) { return x * 7 + 1; }
TF_MONITOR(fp) int sole(int x) { return helper(x); }
static int shared(int x) { return x * 5 + 3; }
TF_MONITOR(fp) int one(int x) { return shared(x); }
TF_MONITOR(fp) int two(int x) { return shared(x + 1); }
TF_MONITOR(fp) int mid(const int *a, int n) { int s = 0, t = 1; for (int i = 0; i < n; i++) { s += a[i] * i; t ^= a[i] << 3; if (s > 100) s -= a[i] >> 2; if (t > s) t -= s * 7; else t += a[i] / 3; } return s + t * a[0]; }
TF_MONITOR(fp) int flat(int a, int b) { int s = a * 3, t = b ^ a; if (s > 100) s -= b; if (t > s) t -= s * 7; else t += a / 3; s += t; t ^= s << 3; s = s > t ? s - t : t - s; return s + t * a; }
SRC
# One function's IR: from its define to the closing brace.
irbody() { awk -v f="@$2(" 'index($0, "define ") == 1 && index($0, f) { on = 1 } on { print } on && /^}/ { exit }' "$1"; }
body() { awk -v f="<$2>:" '$2 == f { on = 1; next } /^[0-9a-f]+ <.*>:$/ { on = 0 } on' "$1"; }
for opt in -O0 -O2; do
    $cc $opt -fplugin="$plugin" -I"$inc" -S -emit-llvm "$work/fp.c" -o "$work/fp$opt.ll" || fail "$opt: compile to IR"
    irbody "$work/fp$opt.ll" fib > "$work/fib$opt.ll"
    irbody "$work/fp$opt.ll" fib.tf_traced > "$work/clone$opt.ll"
    [ -s "$work/clone$opt.ll" ] || fail "$opt: no fib.tf_traced"
    head -1 "$work/clone$opt.ll" | grep -q '^define internal ' || fail "$opt: fib.tf_traced is not internal"
    grep -q 'load atomic .*@__tf_slots.* monotonic' "$work/fib$opt.ll" || fail "$opt: fib does not load its slot (monotonic)"
    irbody "$work/fp$opt.ll" vsum | grep -q 'load atomic .*@__tf_slots.* monotonic' || fail "$opt: vsum does not load its slot (monotonic)"
    grep -q 'call .*@fib\.tf_traced(' "$work/fib$opt.ll" || fail "$opt: fib does not call its clone"
    grep -qE 'call void %' "$work/fib$opt.ll" && fail "$opt: fib calls a hook"
    grep -q '@note' "$work/fib$opt.ll" && fail "$opt: fib calls the info function"
    grep -qE 'call void %' "$work/clone$opt.ll" || fail "$opt: the clone has no hook"
    grep -q '__tf_slots' "$work/clone$opt.ll" && fail "$opt: the clone loads the slot again"
    attrs=$(head -1 "$work/clone$opt.ll" | grep -oE '#[0-9]+ \{' | tr -d ' {')
    grep -E "^attributes $attrs = " "$work/fp$opt.ll" | grep -q 'cold' || fail "$opt: the clone is not cold"
    grep -E "^attributes $attrs = " "$work/fp$opt.ll" | grep -q 'noinline' || fail "$opt: the clone is not noinline"
    grep -E "^attributes $attrs = " "$work/fp$opt.ll" | grep -q '"tf-enhanced"' || fail "$opt: the clone is not marked"
    grep -q 'vsum\.tf_traced' "$work/fp$opt.ll" && fail "$opt: variadic vsum was cloned"
    # The clone of a function of 10 operations or more is for size when the
    # function is for speed (size.h, light_clone); fib's is not.
    flat=$(irbody "$work/fp$opt.ll" flat.tf_traced | head -1 | grep -oE '#[0-9]+ \{' | tr -d ' {')
    [ -n "$flat" ] || fail "$opt: no flat.tf_traced"
    flata=$(grep -E "^attributes $flat = " "$work/fp$opt.ll")
    if [ "$opt" = -O2 ]; then
        echo "$flata" | grep -q ' optsize ' && echo "$flata" | grep -q ' minsize ' ||
            fail "$opt: flat's clone is not for size: $flata"
    else
        echo "$flata" | grep -qE ' (optsize|minsize) ' && fail "$opt: flat's clone (optnone) is for size: $flata"
    fi
    echo "$flata" | grep -q ' cold ' || fail "$opt: flat's clone is not cold: $flata"
    grep -E "^attributes $attrs = " "$work/fp$opt.ll" | grep -qE ' (optsize|minsize) ' && fail "$opt: fib's clone is for size"
    # In place, the hooks that report values are compact (code-shape.md 3.2):
    # calls of libtf's tf_hook_enter and tf_hook_exit, declared extern_weak.
    for f in vsum sole; do
        for h in tf_hook_enter tf_hook_exit; do
            irbody "$work/fp$opt.ll" $f | grep -q "call void @$h(" || fail "$opt: $f does not call $h"
        done
    done
    for h in tf_hook_enter tf_hook_exit; do
        grep -qE "^declare extern_weak void @$h\(" "$work/fp$opt.ll" || fail "$opt: $h is not extern_weak"
    done
    grep -q 'sole\.tf_traced' "$work/fp$opt.ll" && fail "$opt: sole, helper's only caller, was cloned"
    grep -q 'one\.tf_traced' "$work/fp$opt.ll" || fail "$opt: one, a caller of shared among others, was not cloned"
    $cc $opt -g -fplugin="$plugin" -I"$inc" -c "$work/fp.c" -o "$work/fp$opt.o" || fail "$opt -g: compile"
    objdump -t "$work/fp$opt.o" | grep -qE '^[0-9a-f]+ l +F .* fib\.tf_traced$' || fail "$opt: no local fib.tf_traced symbol"
    $cc $opt -g -fplugin="$plugin" -I"$inc" -S -emit-llvm "$work/fp.c" -o "$work/fpg$opt.ll" || fail "$opt -g: IR"
    "$opt_tool" -passes=verify -disable-output "$work/fpg$opt.ll" || fail "$opt -g: IR does not verify"
done
$cc -O2 -fplugin="$plugin" -fplugin-arg-tf-clone-opt=full -I"$inc" -S -emit-llvm "$work/fp.c" -o "$work/fpfull.ll" ||
    fail "clone-opt=full: compile to IR"
flat=$(irbody "$work/fpfull.ll" flat.tf_traced | head -1 | grep -oE '#[0-9]+ \{' | tr -d ' {')
[ -n "$flat" ] || fail "clone-opt=full: no flat.tf_traced"
grep -E "^attributes $flat = " "$work/fpfull.ll" | grep -qE ' (optsize|minsize) ' && fail "clone-opt=full: flat's clone is for size"
grep -E "^attributes $flat = " "$work/fpfull.ll" | grep -q ' cold ' || fail "clone-opt=full: flat's clone is not cold"
# and one with a loop (mid's) is not cold either (size.h, hot_clone)
mid=$(irbody "$work/fpfull.ll" mid.tf_traced | head -1 | grep -oE '#[0-9]+ \{' | tr -d ' {')
[ -n "$mid" ] || fail "clone-opt=full: no mid.tf_traced"
grep -E "^attributes $mid = " "$work/fpfull.ll" | grep -qE ' (optsize|minsize|cold) ' && fail "clone-opt=full: mid's clone (a loop) is for size or cold"
$cc -O2 -fsanitize=thread -fplugin="$plugin" -I"$inc" -S -emit-llvm "$work/fp.c" -o "$work/fptsan.ll" || fail "tsan: compile to IR"
for f in fib vsum; do
    irbody "$work/fptsan.ll" $f | grep -q 'load atomic .*@__tf_slots.* acquire' || fail "tsan: $f's slot load is not acquire"
done
grep -q 'load atomic .*@__tf_slots.* monotonic' "$work/fptsan.ll" && fail "tsan: a monotonic slot load"
objdump -t "$work/fp-O2.o" | grep -qE '\.text\.unlikely.* fib\.tf_traced$' || fail "-O2: fib.tf_traced is not in .text.unlikely"
echo ok
