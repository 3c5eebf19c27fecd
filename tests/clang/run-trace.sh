#!/bin/bash
# run-trace.sh: build a fixture with tf-clang.so (and once without it), run it
# under each of its expected files and compare the dprint trace line by line.
#
#   run-trace.sh --name N --cc CLANG --plugin SO --include DIR --libdir DIR
#                --expect DIR --work DIR [--opt -O2] [--flags "..."]
#                [--plugin-flags "..."] [--libs "-lfoo ..."] [--lib SRC] SRC...
#
# Expected files DIR/N.expected and DIR/N.*.expected (the format of
# tests/fixtures): leading "# env NAME=VALUE", "# sort", "# stderr FILE"
# lines, then the trace. Pointers are masked as 0xPTR, nesting indentation
# and the fixture directory in paths are dropped on both sides. The program's stdout and exit status must not
# change with instrumentation. Exit 0 pass, 1 fail.
set -u
name= cc= opt=-O0 work= plugin= inc= libdir= expect= flags= pflags= lib= libs=
srcs=()
while [ $# -gt 0 ]; do
    case "$1" in
    --name | --cc | --opt | --work | --plugin | --include | --libdir | --expect | --flags | \
        --plugin-flags | --lib | --libs)
        v=$2
        case "$1" in
        --name) name=$v ;; --cc) cc=$v ;; --opt) opt=$v ;; --work) work=$v ;;
        --plugin) plugin=$v ;; --include) inc=$v ;; --libdir) libdir=$v ;;
        --expect) expect=$v ;; --flags) flags=$v ;; --plugin-flags) pflags=$v ;; --lib) lib=$v ;; --libs) libs=$v ;;
        esac
        shift 2 ;;
    *) srcs+=("$1"); shift ;;
    esac
done
export LC_ALL=C
rm -rf "$work" && mkdir -p "$work/inst" "$work/plain" || exit 1
fixdir=$(cd "$(dirname "${srcs[0]}")" && pwd)
# $flags may hold "-x c++": it must come before the sources, "-x none" after.
common=(-I"$inc" -I"$fixdir" -g -Wall $opt $flags)
link=(-x none $libs -L"$libdir" -ltf -Wl,-rpath,"$libdir" -pthread -ldl)

build() { # build DIR PLUGIN-ARGS...
    local dir=$1
    shift
    if [ -n "$lib" ]; then
        "$cc" "${common[@]}" "$@" -fPIC -shared "$lib" -o "$dir/libfixture.so" "${link[@]}" \
            > "$dir/lib.log" 2>&1 || { cat "$dir/lib.log"; echo "FAIL: building $lib"; return 1; }
    fi
    "$cc" "${common[@]}" "$@" "${srcs[@]}" -o "$dir/prog" "${link[@]}" > "$dir/build.log" 2>&1 ||
        { cat "$dir/build.log"; echo "FAIL: building ${srcs[*]}"; return 1; }
    ! grep -q -E "Stack dump|PLEASE submit" "$dir/build.log" || { cat "$dir/build.log"; return 1; }
}
build "$work/inst" -fplugin="$plugin" $pflags || exit 1
build "$work/plain" || exit 1

normalise() { # also drops the fixture directory from paths: "<dir>/abi.c" -> "abi.c"
    sed -E "s|$fixdir/||g" "$1" | sed -E 's/0x[0-9a-f]+/0xPTR/g; s/^(\([^)]*\): )[[:space:]]+/\1/'
}

fail=0
shopt -s nullglob
expected=("$expect/$name.expected" "$expect/$name".*.expected)
[ -f "${expected[0]}" ] || { echo "FAIL: no $expect/$name.expected"; exit 1; }
for exp in "${expected[@]}"; do
    run=$(basename "$exp" .expected)
    envs=() sorted=0 errexp=
    while IFS= read -r line; do
        case "$line" in
        "# env "*) envs+=("${line#\# env }") ;;
        "# sort") sorted=1 ;;
        "# stderr "*) errexp=$expect/${line#\# stderr } ;;
        "#"*) ;;
        *) break ;;
        esac
    done < "$exp"
    out=$work/$run
    grep -v '^#' "$exp" > "$out.want"
    (cd "$work/inst" && env "${envs[@]}" TF_OUTPUT="$out.trace" ./prog > "$out.stdout" 2> "$out.stderr")
    rc=$?
    (cd "$work/plain" && env "${envs[@]}" ./prog > "$out.plain.stdout" 2> /dev/null)
    prc=$?
    [ -f "$out.trace" ] || : > "$out.trace"
    normalise "$out.trace" > "$out.got"
    if [ $sorted = 1 ]; then
        sort -s -t: -k1,1 "$out.got" -o "$out.got"
        sort -s -t: -k1,1 "$out.want" -o "$out.want"
    fi
    if ! diff -u "$out.want" "$out.got"; then
        echo "FAIL: $run ($cc $opt $flags): trace differs (expected vs got)"
        fail=1
    fi
    if ! cmp -s "$out.stdout" "$out.plain.stdout" || [ $rc != $prc ]; then
        echo "FAIL: $run: output or exit status changed by instrumentation ($rc vs $prc)"
        diff -u "$out.plain.stdout" "$out.stdout"
        fail=1
    fi
    if [ -n "$errexp" ] && ! diff -u <(normalise "$errexp") <(normalise "$out.stderr"); then
        echo "FAIL: $run: stderr differs"
        fail=1
    fi
    [ $fail = 0 ] && echo "ok: $run ($cc $opt $flags, $(wc -l < "$out.got") lines)"
done
exit $fail
