#!/bin/bash
# check-plugin.sh: plugin behaviour that is not a trace.
#   check-plugin.sh MODE CC CXX PLUGIN INCLUDE_DIR LIBDIR FIXTURES WORK
# MODE:
#   manifest  -fplugin-arg-tf-manifest writes groups.manifest.json exactly
#   header    tf.h without the plugin: strict C11 and C++11 build and run
#   macro     __TF_PLUGIN__ is predefined, also for -E and -save-temps
#   off       -fplugin-arg-tf-off: checks run, nothing is injected
#   help      plugin_info.help lists every option; unknown options are errors
#   twice     a second copy of tf.so (another file name) does no harm: each
#             hook fires once, and the already-instrumented marker is set
#   lto       -flto with the plugin at compile and link time: hooks fire once
#   warnings  the plugin adds no warning: -Wall -Wextra the same with and without
#   rules     malformed rules files (junk bytes, long lines, CRLF, no newline)
#             give errors with a rules-file location or compile, never crash;
#             the junk comes from a seed it prints: TF_FUZZ_SEED=N reproduces it
#   inline    a monitored static inline function inlined away at -O2 still
#             reports every call (its copies carry the hooks)
#   fastpath  the split shape (docs/code-shape.md section 3), read from the
#             object code at -O0 and -O2: f's own code calls no hook and no
#             info function, f.tf_traced holds the hooks, in .text.unlikely
#             at -O2, and the variadic exception keeps its hooks in place
set -u
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
mode=$1 cc=$2 cxx=$3 plugin=$4 inc=$5 libdir=$6 fix=$7 work=$8
export LC_ALL=C
rm -rf "$work" && mkdir -p "$work" && cd "$fix" || exit 1
link=(-L"$libdir" -ltf -Wl,-rpath,"$libdir" -pthread)
fail() { echo "FAIL: $*"; exit 1; }

# Runs a control.c build and checks its trace has each hook exactly once.
control_trace() { # EXE
    TF_MONITORS=ctl=dprint TF_OUTPUT="$work/trace" "$1" > "$work/stdout" || fail "run $1"
    sed -E 's/0x[0-9a-f]+/0xPTR/g' "$work/trace" > "$work/got"
    grep -v '^#' control.expected > "$work/want"
    diff -u "$work/want" "$work/got" || fail "trace of $1"
}

case $mode in
manifest)
    $cc -fplugin="$plugin" -fplugin-arg-tf-manifest="$work/m.json" -I"$inc" -c groups.c -o "$work/g.o" ||
        fail "compile"
    diff -u groups.manifest.json "$work/m.json" || fail "manifest differs"
    ;;
header)
    $cc -std=c11 -Wall -Wextra -Wpedantic -Werror -Wno-unused-parameter -I"$inc" groups.c -o "$work/c" ||
        fail "C11 build without plugin"
    $cxx -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -Wno-unused-parameter -I"$inc" groups.c \
        -o "$work/cxx" || fail "C++11 build without plugin"
    "$work/c" > "$work/c.out" && "$work/cxx" > "$work/cxx.out" || fail "run"
    printf '41\n42\n1\n' | cmp - "$work/c.out" || fail "C output"
    cmp "$work/c.out" "$work/cxx.out" || fail "C++ output"
    nm "$work/c" | grep -q __tf_ && fail "TF symbols without the plugin"
    ;;
macro)
    for c in "$cc" "$cxx -x c++"; do
        $c -fplugin="$plugin" -E -dM - < /dev/null | grep -q '^#define __TF_PLUGIN__ 1$' || fail "$c -E -dM"
        (cd "$work" && $c -fplugin="$plugin" -save-temps -I"$inc" -c "$fix/groups.c" -o g.o) || fail "$c -save-temps"
        nm "$work/g.o" | grep -q __tf_tu || fail "$c -save-temps: not instrumented"
    done
    $cc -E -dM - < /dev/null | grep -q __TF_PLUGIN__ && fail "defined without the plugin"
    ;;
off)
    $cc -fplugin="$plugin" -fplugin-arg-tf-off -I"$inc" groups.c -o "$work/off" "${link[@]}" || fail "build"
    nm "$work/off" | grep -q __tf_ && fail "symbols injected with off"
    TF_MONITORS=io=dprint TF_OUTPUT="$work/trace" "$work/off" > /dev/null || fail "run"
    [ -s "$work/trace" ] && fail "trace with off"
    out=$($cc -fplugin="$plugin" -fplugin-arg-tf-off -I"$inc" -c diagnostics/undeclared.c -o /dev/null 2>&1) &&
        fail "off must still check annotations"
    echo "$out" | grep -q "group 'oi' of 'f' is not declared" || fail "off: $out"
    ;;
help)
    cc1=$($cc -print-prog-name=cc1)
    out=$("$cc1" -fplugin="$plugin" --help < /dev/null 2>&1)
    for opt in verbose=N manifest=FILE rules=FILE min-size=N off; do
        echo "$out" | grep -q -- "-fplugin-arg-tf-$opt" || fail "plugin help lacks $opt"
    done
    out=$($cc -fplugin="$plugin" -fplugin-arg-tf-colour=1 -I"$inc" -c groups.c -o /dev/null 2>&1) &&
        fail "unknown option accepted"
    echo "$out" | grep -q "unknown plugin option '-fplugin-arg-tf-colour'" || fail "unknown option: $out"
    for bad in verbose=abc verbose=3 off=yes manifest= min-size= min-size=x min-size=-1 min-size=1000001; do
        out=$($cc -fplugin="$plugin" -fplugin-arg-tf-$bad -I"$inc" -c groups.c -o /dev/null 2>&1) &&
            fail "bad value accepted: $bad"
        echo "$out" | grep -q "error: tf: plugin option '-fplugin-arg-tf-$bad' wants" || fail "$bad: $out"
    done
    out=$($cc -fplugin="$plugin" -fplugin-arg-tf-verbose=2 -I"$inc" -c groups.c -o /dev/null 2>&1) || fail "verbose"
    echo "$out" | grep -q "tf: id 2 'read' flags 1 group 'io_read'" || fail "verbose: $out"
    echo "$out" | grep -q "tf: instrumented 'write_long' as monitor id 4" || fail "verbose: $out"
    ;;
twice)
    cp "$plugin" "$work/tf_copy.so"
    cp "$(dirname "$plugin")/tf.gcc.so" "$work/" # what tf.so loads from its own directory
    $cc -O2 -fplugin="$plugin" -fplugin="$work/tf_copy.so" -I"$inc" control.c -o "$work/a" "${link[@]}" ||
        fail "tf.so then copy"
    control_trace "$work/a"
    $cc -O2 -fplugin="$work/tf_copy.so" -fplugin="$plugin" -I"$inc" control.c -o "$work/b" "${link[@]}" ||
        fail "copy then tf.so"
    control_trace "$work/b"
    [ "$(nm "$work/a" | grep -c ' __tf_tu$')" = 1 ] || fail "one descriptor"
    # No environment variable can switch the plugin off (it used one).
    TF_GCC_PLUGIN_ACTIVE=1 $cc -O2 -fplugin="$plugin" -I"$inc" control.c -o "$work/e" "${link[@]}" ||
        fail "with TF_GCC_PLUGIN_ACTIVE set"
    control_trace "$work/e"
    $cc -fplugin="$plugin" -fdump-tree-all -I"$inc" -c control.c -o "$work/c.o" -dumpdir "$work/" ||
        fail "dump"
    grep -q 'tf enhanced' "$work"/*tf_instrument* || fail "no 'tf enhanced' marker in the dump"
    ;;
lto)
    $cc -O2 -flto -fplugin="$plugin" -I"$inc" -c control.c -o "$work/control.o" || fail "compile"
    $cc -O2 -flto -fplugin="$plugin" "$work/control.o" -o "$work/a" "${link[@]}" || fail "link with plugin"
    control_trace "$work/a"
    $cc -O2 -flto "$work/control.o" -o "$work/b" "${link[@]}" || fail "link without plugin"
    control_trace "$work/b"
    $cxx -O3 -flto -fplugin="$plugin" -I"$inc" -x c++ control.c -o "$work/c" "${link[@]}" || fail "C++"
    control_trace "$work/c"
    ;;
warnings)
    for src in *.c *.cc; do
        for c in "$cc" "$cc -fexceptions" "$cxx -x c++"; do
            case "$src" in
            *.cc) [ "$c" = "$cc" ] || continue; c=$cxx ;; # once, as C++
            scope.c | knr.c) [ "$c" = "$cxx -x c++" ] && continue ;; # C only: K&R definitions
            coroutine.cc) continue ;; # warns by design: a coroutine is not instrumented
            esac
            flags=(-O2 -Wall -Wextra -Wno-unused-parameter -I"$inc" -I. -c "$src" -o /dev/null)
            $c "${flags[@]}" 2> "$work/plain.txt"
            $c -fplugin="$plugin" "${flags[@]}" 2> "$work/inst.txt"
            diff -u "$work/plain.txt" "$work/inst.txt" || fail "$c $src: warnings differ"
        done
    done
    ;;
inline)
    cat > "$work/inl.c" <<'SRC'
#include <stdio.h>
#include <tf/tf.h>
TF_GROUP(inl);
TF_MONITOR(inl) static inline int sq(int x) { return x * x; }
__attribute__((noinline)) static int run(int n) {
    int s = 0;
    for (int i = 2; i < n; i++)
        s += sq(i);
    return s;
}
int main(int argc, char **argv) { printf("%d\n", run(argc + 3)); return 0; }
SRC
    $cc -O2 -fplugin="$plugin" -I"$inc" "$work/inl.c" -o "$work/inl" "${link[@]}" || fail "build"
    # exactly `sq`: its traced clone sq.tf_traced stays out of line by design
    nm "$work/inl" | awk '$3 == "sq"' | grep -q . && fail "sq was not inlined: the test proves nothing"
    TF_MONITORS=inl=dprint TF_OUTPUT="$work/trace" "$work/inl" > /dev/null || fail "run"
    sed -E 's/^\([^)]*\): //' "$work/trace" > "$work/got"
    printf 'inl.sq->(x=2)\ninl.sq<-(4)\ninl.sq->(x=3)\ninl.sq<-(9)\n' > "$work/want"
    diff -u "$work/want" "$work/got" || fail "inlined copies lost their hooks"
    ;;
fastpath)
    cat > "$work/fp.c" <<'SRC'
#include <stdarg.h>
#include <tf/tf.h>
TF_GROUP(fp);
TF_INFO(TF_TP_NONE) static void note(int v) {}
TF_MONITOR(fp) long fib(int n) { note(n); return n < 2 ? n : fib(n - 1) + fib(n - 2); }
TF_MONITOR(fp) int vsum(int n, ...) { va_list ap; va_start(ap, n); int s = va_arg(ap, int); va_end(ap); return s; }
TF_MONITOR(fp) int mid(const int *a, int n) { int s = 0, t = 1; for (int i = 0; i < n; i++) { s += a[i] * i; t ^= a[i] << 3; if (s > 100) s -= a[i] >> 2; if (t > s) t -= s * 7; else t += a[i] / 3; } return s + t * a[0]; }
TF_MONITOR(fp) int flat(int a, int b) { int s = a * 3, t = b ^ a; if (s > 100) s -= b; if (t > s) t -= s * 7; else t += a / 3; s += t; t ^= s << 3; s = s > t ? s - t : t - s; return s + t * a; }
SRC
    # Disassembly of one function: its instructions up to the next symbol.
    body() { awk -v f="<$2>:" '$2 == f { on = 1; next } /^[0-9a-f]+ <.*>:$/ { on = 0 } on' "$1"; }
    for opt in -O0 -O2; do
        $cc $opt -fplugin="$plugin" -I"$inc" -c "$work/fp.c" -o "$work/fp$opt.o" || fail "$opt: compile"
        objdump -d -r --no-show-raw-insn "$work/fp$opt.o" > "$work/fp$opt.dis" || fail "objdump"
        grep -q '<fib\.tf_traced>:$' "$work/fp$opt.dis" || fail "$opt: no fib.tf_traced clone"
        objdump -t "$work/fp$opt.o" | grep -E ' fib\.tf_traced$' > "$work/sym" || fail "$opt: no fib.tf_traced symbol"
        grep -qE '^[0-9a-f]+ l +F ' "$work/sym" || fail "$opt: fib.tf_traced is not a local function: $(cat "$work/sym")"
        # f, hot and cold parts: no indirect call (every hook is one), no
        # info call, and a call of the clone.
        { body "$work/fp$opt.dis" fib; body "$work/fp$opt.dis" fib.cold; } > "$work/fast"
        grep -E 'call +\*' "$work/fast" && fail "$opt: fib calls a hook"
        grep -q 'note' "$work/fast" && fail "$opt: fib calls the info function"
        grep -q 'fib\.tf_traced' "$work/fast" || fail "$opt: fib does not call its clone"
        body "$work/fp$opt.dis" fib.tf_traced | grep -qE 'call +\*' || fail "$opt: the clone has no hook"
        # The variadic function cannot forward `...`: hooks in place, no clone,
        # in their compact form (code-shape.md 3.2): libtf's tf_hook_enter and
        # tf_hook_exit, declared weak.
        grep -q 'vsum\.tf_traced' "$work/fp$opt.dis" && fail "$opt: variadic vsum was cloned"
        { body "$work/fp$opt.dis" vsum; body "$work/fp$opt.dis" vsum.cold; } > "$work/inplace"
        for h in tf_hook_enter tf_hook_exit; do
            grep -qE "R_X86_64_(PLT|PC)32[[:space:]]+$h" "$work/inplace" || fail "$opt: vsum does not call $h"
            objdump -t "$work/fp$opt.o" | grep -qE "^0+ +w +\*UND\*.* $h$" || fail "$opt: $h is not a weak reference"
        done
    done
    objdump -t "$work/fp-O2.o" | grep -qE '\.text\.unlikely.* fib\.tf_traced$' ||
        fail "-O2: fib.tf_traced is not in .text.unlikely"
    # The clone of a function of 10 operations or more is compiled at -Og
    # when the function is for speed (size.h, light_clone); fib's is not,
    # and clone-opt=full keeps the function's own level, and makes the clone
    # of one with a loop (mid's) not cold either (size.h, hot_clone).
    attrs() { # OPTS... -> "function attributes" lines of each clone
        $cc -fplugin="$plugin" "$@" -I"$inc" -c "$work/fp.c" -o "$work/fpa.o" -fdump-tree-optimized="$work/fpa.dump" ||
            fail "$*: compile"
        awk '/^;; Function .*\.tf_traced / { f = $3 } f && /^__attribute__\(\(.*tf enhanced/ { print f, $0; f = "" }' "$work/fpa.dump"
    }
    a=$(attrs -O2)
    echo "$a" | grep -q '^flat\.tf_traced .*optimize ("Og")' || fail "-O2: flat's clone is not at -Og: $a"
    echo "$a" | grep -q '^fib\.tf_traced .*optimize' && fail "-O2: fib's clone is not at -O2: $a"
    echo "$a" | grep -qE '^mid\.tf_traced .*optimize \("Og"\).*cold' || fail "-O2: mid's clone is not at -Og and cold: $a"
    a=$(attrs -O2 -fplugin-arg-tf-clone-opt=full)
    echo "$a" | grep -qE '^flat\.tf_traced .*cold' || fail "clone-opt=full: flat's clone is not cold: $a"
    echo "$a" | grep -q '^mid\.tf_traced ' || fail "clone-opt=full: no clone of mid: $a"
    echo "$a" | grep -qE '^mid\.tf_traced .*cold' && fail "clone-opt=full: mid's clone (a loop) is cold: $a"
    objdump -t "$work/fpa.o" | grep -qE '\.text\.unlikely.* mid\.tf_traced$' && fail "clone-opt=full: mid.tf_traced is in .text.unlikely"
    echo "$a" | grep -q 'optimize' && fail "clone-opt=full: a clone has an optimize attribute: $a"
    for opt in -O1 -Os -Og; do
        a=$(attrs $opt)
        echo "$a" | grep -q 'optimize' && fail "$opt: a clone has an optimize attribute: $a"
    done
    ;;
rules)
    printf 'group g\r\nmonitor g * *\r\n' > "$work/crlf.rules"
    printf 'group g\nmonitor g * *' > "$work/noeol.rules"
    printf '# only a comment\n\n   \t\n' > "$work/empty.rules"
    seed=${TF_FUZZ_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
    echo "rules fuzz seed $seed (TF_FUZZ_SEED=$seed reproduces this run)"
    RANDOM=$seed
    junk=
    for ((i = 0; i < 4096; i++)); do printf -v byte '\\%03o' $((RANDOM % 256)); junk+=$byte; done
    printf "$junk" > "$work/junk.rules"
    { printf 'group g\nmonitor g '; head -c 10000 /dev/zero | tr '\0' 'x'; printf ' *\n'; } > "$work/long.rules"
    printf 'group g g\ngroup\nexclude\nmonitor\n\x01\x02\n' > "$work/bad.rules"
    for r in crlf noeol empty junk long bad; do
        out=$($cc -fplugin="$plugin" -fplugin-arg-tf-rules="$work/$r.rules" -I"$inc" -c control.c \
              -o /dev/null 2>&1)
        rc=$?
        echo "$out" | grep -q "internal compiler error" && fail "$r: ICE"
        if [ $rc != 0 ]; then
            echo "$out" | grep -q "^$work/$r.rules:[0-9]*:[0-9]*: error: tf: rules: " || fail "$r: $out"
        fi
        case $r in crlf | noeol | empty | long) [ $rc = 0 ] || fail "$r should compile: $out" ;; esac
        case $r in bad) [ $rc != 0 ] || fail "$r should fail" ;; esac
    done
    ;;
*)
    fail "unknown mode $mode"
    ;;
esac
echo "ok: $mode"
