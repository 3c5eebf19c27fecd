#!/bin/bash
# run-fixture.sh: build one fixture with and without a TF plugin (tf.so with
# GCC, tf-clang.so with Clang: the same script for both), run it, and check
# (1) each trace line by line against its expected files and (2) that the
# program's own stdout and exit status are the uninstrumented build's.
#
#   run-fixture.sh --name N --cc gcc|g++|clang|clang++ --opt -O2 --work DIR
#                  --plugin PATH --include DIR --libdir DIR --expect DIR
#                  [--flags "extra compile+link flags"] [--plugin-flags "..."]
#                  [--lib SRC] [--libs "-lfoo ..."] SRC...
#
# --flags may hold "-x c++": it comes before the sources, "-x none" after them.
#
# Expected files: DIR/N.expected and DIR/N.*.expected. Leading lines
#   # env NAME=VALUE     environment of that run (TF_MONITORS=...)
#   # sort               compare traces sorted by thread (stable): threads race
#   # stderr FILE        also compare the run's stderr with DIR/FILE
# then the trace lines. Both sides are normalised: pointers become 0xPTR,
# nesting indentation after "(<thread>): " is dropped, and the fixture
# directory is dropped from paths. A compiler crash (GCC's "internal compiler
# error", Clang's stack dump) fails the test even if the driver exits 0.
# Exit 0 pass, 1 fail, 77 skip (sanitized builds have no plugin).
set -u
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
name= cc= opt=-O0 work= plugin= inc= libdir= expect= flags= pflags= lib= libs=
srcs=()
while [ $# -gt 0 ]; do
    case "$1" in
    --name) name=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    --opt) opt=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --plugin) plugin=$2; shift 2 ;;
    --include) inc=$2; shift 2 ;;
    --libdir) libdir=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    --flags) flags=$2; shift 2 ;;
    --plugin-flags) pflags=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --libs) libs=$2; shift 2 ;;
    *) srcs+=("$1"); shift ;;
    esac
done
export LC_ALL=C
fail=0
rm -rf "$work" && mkdir -p "$work/inst" "$work/plain" || exit 1
fixdir=$(cd "$(dirname "${srcs[0]}")" && pwd)
common=(-I"$inc" -I"$fixdir" -g -Wall $opt $flags)
link=(-x none $libs -L"$libdir" -ltf -Wl,-rpath,"$libdir" -pthread -ldl)
liblink=(-x none -L"$libdir" -ltf -Wl,-rpath,"$libdir" -pthread -ldl) # without --libs: -lfixture is the program's

build() { # build DIR PLUGIN-ARGS...
    local dir=$1; shift
    if [ -n "$lib" ]; then
        $cc "${common[@]}" "$@" -fPIC -shared "$lib" -o "$dir/libfixture.so" "${liblink[@]}" \
            2> "$dir/lib.log" || { cat "$dir/lib.log"; echo "FAIL: building $lib"; return 1; }
    fi
    # -lfixture in --libs links the program with the library (calls.c)
    $cc "${common[@]}" "$@" "${srcs[@]}" -o "$dir/prog" -L"$dir" -Wl,-rpath,"$dir" "${link[@]}" 2> "$dir/build.log" ||
        { cat "$dir/build.log"; echo "FAIL: building ${srcs[*]} in $dir"; return 1; }
    crashed "$dir"/*.log && { cat "$dir"/*.log; echo "FAIL: the compiler crashed"; return 1; }
    return 0
}
crashed() { grep -q -E "internal compiler error|PLEASE submit a bug report|Stack dump" "$@"; }
build "$work/inst" -fplugin="$plugin" $pflags || exit 1
build "$work/plain" || exit 1

normalise() { # also drops the fixture directory from paths: "<dir>/abi.c" -> "abi.c"
    sed -E "s|$fixdir/||g" "$1" | sed -E 's/0x[0-9a-f]+/0xPTR/g; s/^(\([^)]*\): )[[:space:]]+/\1/'
}

shopt -s nullglob
expected_files=("$expect/$name.expected" "$expect/$name".*.expected)
[ -f "${expected_files[0]}" ] || { echo "FAIL: no $expect/$name.expected"; exit 1; }
for exp in "${expected_files[@]}"; do
    [ -f "$exp" ] || continue
    run=$(basename "$exp" .expected)
    envs=() sort=0 errexp=
    while IFS= read -r line; do
        case "$line" in
        "# env "*) envs+=("${line#\# env }") ;;
        "# sort") sort=1 ;;
        "# stderr "*) errexp=$expect/${line#\# stderr } ;;
        "#"*) ;;
        *) break ;;
        esac
    done < "$exp"
    grep -v '^#' "$exp" > "$work/$run.want"
    out=$work/$run
    (cd "$work" && env "${envs[@]}" TF_OUTPUT="$out.trace" "$work/inst/prog" > "$out.stdout" 2> "$out.stderr")
    rc=$?
    (cd "$work" && env "${envs[@]}" "$work/plain/prog" > "$out.plain.stdout" 2> "$out.plain.stderr")
    prc=$?
    [ -f "$out.trace" ] || : > "$out.trace"
    normalise "$out.trace" > "$out.got"
    if [ $sort = 1 ]; then
        sort -s -t: -k1,1 "$out.got" > "$out.got.s" && mv "$out.got.s" "$out.got"
        sort -s -t: -k1,1 "$work/$run.want" > "$out.want.s" && mv "$out.want.s" "$work/$run.want"
    fi
    if ! diff -u "$work/$run.want" "$out.got" > "$out.diff"; then
        echo "FAIL: $run $cc $opt: trace differs (expected vs got):"; cat "$out.diff"; fail=1
    fi
    if ! cmp -s "$out.stdout" "$out.plain.stdout" || [ $rc != $prc ]; then
        echo "FAIL: $run $cc $opt: program output or exit status changed by instrumentation ($rc vs $prc)"
        diff -u "$out.plain.stdout" "$out.stdout"; fail=1
    fi
    if [ -n "$errexp" ]; then
        normalise "$out.stderr" > "$out.stderr.got"
        if ! diff -u <(normalise "$errexp") "$out.stderr.got"; then
            echo "FAIL: $run $cc $opt: stderr differs"; fail=1
        fi
    fi
    [ $fail = 0 ] && echo "ok: $run $cc $opt ($(wc -l < "$out.got") trace lines)"
done
exit $fail
