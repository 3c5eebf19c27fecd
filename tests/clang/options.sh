#!/bin/bash
# options.sh: -fplugin-arg-tf-KEY=VALUE of tf-clang.so (docs/design.md
# .use.build): off, manifest=FILE, verbose=N, an unknown key; __TF_PLUGIN__; the
# already-instrumented markers of docs/code-shape.md in the IR.
#
#   options.sh CLANG PLUGIN INCLUDE-DIR LIBDIR TESTS-CLANG-DIR WORK-DIR CLANG++ OPT  (LLVM opt; exit 77 without it)
set -u
clang=$1 plugin=$2 inc=$3 libdir=$4 here=$5 work=$6 cxx=$7 opt=${8:-}
[ -n "$opt" ] || { echo "skip: no LLVM opt tool (llvm-14)"; exit 77; }
export LC_ALL=C
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$here/options" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cc() { "$clang" -fplugin="$plugin" -I"$inc" "$@"; }
link=(-L"$libdir" -ltf -Wl,-rpath,"$libdir")

# off: attributes are parsed and checked, nothing is injected.
cc -fplugin-arg-tf-off -O2 opts.c -o "$work/off" "${link[@]}" || bad "off: build"
nm "$work/off" | grep -q -E '__tf_(tu|holder)' && bad "off: TF data emitted"
TF_MONITORS=net=dprint TF_OUTPUT="$work/off.trace" "$work/off" > /dev/null
[ -s "$work/off.trace" ] && bad "off: something was traced"
cc -fplugin-arg-tf-off -c -o /dev/null "$here/../fixtures/diagnostics/undeclared.c" 2> "$work/off.err" &&
    bad "off: a misuse compiled"
grep -q "undeclared.c:3:20: error: tf: group .oi." "$work/off.err" || bad "off: no diagnostic"

# manifest=FILE: the layout of the GCC plugin, content per docs/code-shape.md.
cc -fplugin-arg-tf-manifest="$work/opts.json" -c -o /dev/null opts.c || bad "manifest: build"
diff -u opts.manifest "$work/opts.json" || bad "manifest differs from options/opts.manifest"

# The instrumented program (default options) traces with the manifest's ids.
cc -O0 opts.c -o "$work/on" "${link[@]}" || bad "build"
TF_MONITORS=net=dprint TF_OUTPUT="$work/on.trace" "$work/on" > /dev/null
cat > "$work/on.want" <<'TRACE'
(main): opts.receive->(n=4)
(main): opts.receive::(batch)(n=4)
(main): opts.receive::(batch)(n=4)
(main): opts.receive<-(8)
(main): opts.net.poll->()
(main): opts.receive->(n=-1)
(main): opts.receive::(batch)(n=-1)
(main): opts.receive::(dropped)(why="negative")
(main): opts.receive::(batch)(n=-1)
(main): opts.receive<-(-2)
(main): opts.net.poll<-
TRACE
sed -E 's/^\([^)]*\): +/(main): /' "$work/on.trace" | diff -u "$work/on.want" - || bad "trace of opts.c"

# verbose=2 names every function instrumented.
cc -fplugin-arg-tf-verbose=2 -c -o /dev/null opts.c 2> "$work/verbose.err" || bad "verbose: build"
grep -q "opts.c:13:24: remark: tf: id 3 'receive' flags 1 group 'net_rx'" "$work/verbose.err" ||
    bad "verbose: no name table"
grep -q "tf: instrumented 'receive' as monitor id 3" "$work/verbose.err" || bad "verbose: no report"
grep -q "tf: instrumented 'dropped' as info id 1" "$work/verbose.err" || bad "verbose: no info report"

# An unknown key is an error, not silently ignored.
cc -fplugin-arg-tf-bogus=1 -c -o /dev/null opts.c 2> "$work/bogus.err" && bad "unknown option accepted"
grep -q "unknown plugin option '-fplugin-arg-tf-bogus'" "$work/bogus.err" || bad "unknown option: no message"
for v in verbose=abc verbose=3 off=yes manifest= min-size=x min-size=1000001; do
    cc -fplugin-arg-tf-$v -c -o /dev/null opts.c 2> "$work/badvalue.err" && bad "bad value accepted: $v"
    grep -q "error: tf: plugin option '-fplugin-arg-tf-$v' wants" "$work/badvalue.err" || bad "$v: no message"
done

# The plugin predefines __TF_PLUGIN__ (tf.h switches to attributes).
printf '#ifndef __TF_PLUGIN__\n#error no __TF_PLUGIN__\n#endif\n' > "$work/predef.c"
cc -c -o /dev/null "$work/predef.c" || bad "__TF_PLUGIN__ not predefined"

# Two copies of the plugin (another file name) in one clang: one acts, once.
cp "$plugin" "$work/copy.so"
for order in "$plugin $work/copy.so" "$work/copy.so $plugin"; do
    set -- $order
    "$clang" -fplugin="$1" -fplugin="$2" -I"$inc" -O2 opts.c -o "$work/twice" "${link[@]}" || bad "two copies: build"
    [ "$(nm "$work/twice" | grep -c ' __tf_tu$')" = 1 ] || bad "two copies: not one descriptor"
    TF_MONITORS=net=dprint TF_OUTPUT="$work/twice.trace" "$work/twice" > /dev/null
    sed -E 's/^\([^)]*\): +/(main): /' "$work/twice.trace" | diff -u "$work/on.want" - || bad "two copies: trace"
done

# tf_value.type spellings, through a user monitor, in C and C++.
for lang in c c++; do
    "$clang" -x $lang -fplugin="$plugin" -I"$inc" types.c -o "$work/types" -x none "${link[@]}" || bad "types: build"
    want="x: anon_t|n: struct named|l: level_t"
    [ $lang = c++ ] && want="x: anon_t|n: named|l: level_t"
    got=$("$work/types" | paste -sd'|')
    [ "$got" = "$want" ] || bad "types ($lang): '$got', expected '$want'"
done

# References: kind PTR (their address), size of the referent.
"$cxx" -fplugin="$plugin" -I"$inc" sizes.cpp -o "$work/sizes" "${link[@]}" || bad "sizes: build"
got=$("$work/sizes" | paste -sd' ')
[ "$got" = "p k5 s32 i k5 s4 q k5 s32 c k1 s1 ret k5 s32" ] || bad "sizes: '$got'"

# clang -E runs no plugin action, so -save-temps loses the annotations: never silently.
(cd "$work" && cc -save-temps -c -o st.o "$here/options/opts.c" 2> st.err)
grep -q "opts.i:1:1: warning: tf: this preprocessed input includes tf/tf.h" "$work/st.err" ||
    bad "-save-temps: no warning"

# The IR carries the markers against a second instrumentation, and no marker call.
cc -O0 -S -emit-llvm -o "$work/opts.ll" opts.c || bad "emit-llvm"
grep -q '^!tf.enhanced' "$work/opts.ll" || bad "no !tf.enhanced"
grep -q '"tf-enhanced"' "$work/opts.ll" || bad "no tf-enhanced function attribute"
grep -q '__tf_fn' "$work/opts.ll" && bad "marker calls left in the IR"
# The front end leaves everything the pass needs in the IR (the model global
# and one marker call per function): opt can instrument it later, once only.
cc -O0 -Xclang -disable-llvm-passes -S -emit-llvm -o "$work/front.ll" opts.c || bad "front end only"
grep -q '^@__tf_model = ' "$work/front.ll" || bad "no model in the front end's IR"
grep -q 'call void (i8\*, \.\.\.) @__tf_fn(\|call void (ptr, \.\.\.) @__tf_fn(' "$work/front.ll" ||
    bad "no marker calls in the front end's IR"
"$opt" -load-pass-plugin="$plugin" -passes=tf -S -o "$work/once.ll" "$work/front.ll" || bad "opt -passes=tf"
"$opt" -load-pass-plugin="$plugin" -passes=tf -S -o "$work/twice.ll" "$work/once.ll" || bad "opt twice"
grep -q -E '__tf_model|@__tf_fn' "$work/once.ll" && bad "model or markers left after the pass"
grep -q '^!tf.enhanced' "$work/once.ll" || bad "opt: no !tf.enhanced"
strip() { grep -v '^; ModuleID' "$1" | sed 's/ *; preds = .*//'; }
diff -q <(strip "$work/once.ll") <(strip "$work/twice.ll") > /dev/null ||
    bad "a second run of the pass changed the module"
"$clang" -c "$work/once.ll" -o "$work/once.o" && "$clang" "$work/once.o" -o "$work/once" "${link[@]}" ||
    bad "building from opt's output"
TF_MONITORS=net=dprint TF_OUTPUT="$work/once.trace" "$work/once" > /dev/null
sed -E 's/^\([^)]*\): +/(main): /' "$work/once.trace" | diff -u "$work/on.want" - || bad "trace via opt"
[ $fail = 0 ] && echo "ok: options"
exit $fail
