#!/bin/bash
# equiv.sh: the cross-compiler equivalence test (docs/design.md .arch.shared):
# build one fixture with GCC + tf.so and with Clang + tf-clang.so, as C and as
# C++, at -O0 and
# -O2; run both under every environment its expected files name; the traces
# must be identical once pointer values are masked, and the manifests once
# paths (and the "compiler" field) are masked. Two equal traces prove nothing
# if both are empty or cut short, so a build that fails or crashes the
# compiler, a program that dies of a signal or exits differently under the two
# compilers, and an empty trace where the expected file has lines all fail.
#
#   equiv.sh --gcc GCC --gxx G++ --gcc-plugin SO --clang CLANG --clangxx CLANG++
#            --clang-plugin SO --include DIR --libdir DIR --expect DIR --work DIR --name N
#            [--langs "c c++"|c|c++|asis] [--flags "..."] [--libs "..."]
#            [--plugin-flags "..."] [--lib SRC] SRC...
# --langs asis builds with the C drivers and lets them pick the language by
# file extension (a C++ main with a C part).
# Exit 0 pass, 1 fail.
set -u
gcc= gxx= gplugin= cplugin= clang= clangxx= inc= libdir= expect= work= name= lib= langs="c c++"
flags= libs= pflags=
srcs=()
while [ $# -gt 0 ]; do
    case "$1" in
    --gcc) gcc=$2; shift 2 ;;
    --gxx) gxx=$2; shift 2 ;;
    --gcc-plugin) gplugin=$2; shift 2 ;;
    --clang-plugin) cplugin=$2; shift 2 ;;
    --clang) clang=$2; shift 2 ;;
    --clangxx) clangxx=$2; shift 2 ;;
    --langs) langs=$2; shift 2 ;;
    --flags) flags=$2; shift 2 ;;
    --libs) libs=$2; shift 2 ;;
    --plugin-flags) pflags=$2; shift 2 ;;
    --include) inc=$2; shift 2 ;;
    --libdir) libdir=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    *) srcs+=("$1"); shift ;;
    esac
done
for p in "$gplugin" "$cplugin"; do
    [ -f "$p" ] || { echo "FAIL: no plugin at '$p'"; exit 1; }
done
[ -f "$expect/$name.expected" ] || { echo "FAIL: no $expect/$name.expected"; exit 1; }
export LC_ALL=C
fixdir=$(cd "$(dirname "${srcs[0]}")" && pwd)
mask_trace() { sed -E 's/0x[0-9a-f]+/0xPTR/g; s/^(\([^)]*\): )[[:space:]]+/\1/' "$1"; }
mask_manifest() { sed -E 's/"(file|compiler)": "[^"]*"/"\1": "MASKED"/g' "$1"; }

build() { # build DIR COMPILER PLUGIN LANG OPT
    local dir=$1 cc=$2 plugin=$3 lang=$4 opt=$5
    mkdir -p "$dir"
    local x=()
    [ "$lang" = c++ ] && x=(-x c++)
    local common=(-I"$inc" -I"$fixdir" -g -w "$opt" $flags -fplugin="$plugin" $pflags)
    local link=(-x none $libs -L"$libdir" -ltf -Wl,-rpath,"$libdir" -pthread -ldl)
    if [ -n "$lib" ]; then
        (cd "$dir" && "$cc" "${common[@]}" -fplugin-arg-tf-manifest="$dir/lib.json" "${x[@]}" \
            -fPIC -shared "$lib" -o "$dir/libfixture.so" "${link[@]}") > "$dir/build.log" 2>&1 || return 1
    fi
    (cd "$dir" && "$cc" "${common[@]}" -fplugin-arg-tf-manifest="$dir/prog.json" "${x[@]}" \
        "${srcs[@]}" -o "$dir/prog" "${link[@]}") >> "$dir/build.log" 2>&1 || return 1
    ! grep -q -E "internal compiler error|PLEASE submit a bug report|Stack dump" "$dir/build.log"
}

# Runs one build under one expected file's environment: its trace in
# DIR/RUN.got, its exit status in DIR/RUN.rc. Fails on a fatal signal, or on
# an empty trace when the expected file has trace lines.
run() { # run DIR EXPECTED SORTED ENV...
    local dir=$1 exp=$2 sorted=$3 run rc
    run=$(basename "$exp" .expected)
    shift 3
    (cd "$dir" && env "$@" TF_OUTPUT="$dir/$run.trace" ./prog > /dev/null 2> "$dir/$run.stderr")
    rc=$?
    echo $rc > "$dir/$run.rc"
    touch "$dir/$run.trace"
    mask_trace "$dir/$run.trace" > "$dir/$run.got"
    [ "$sorted" = 1 ] && sort -s -t: -k1,1 "$dir/$run.got" -o "$dir/$run.got"
    if [ $rc -ge 128 ]; then
        cat "$dir/$run.stderr"; echo "FAIL: $dir/prog ($run) died of signal $((rc - 128))"; return 1
    fi
    if [ ! -s "$dir/$run.got" ] && grep -q -v '^#' "$exp"; then
        echo "FAIL: $dir/prog ($run) traced nothing; $exp expects lines"; return 1
    fi
}

fail=0
shopt -s nullglob
for lang in $langs; do
    for opt in -O0 -O2; do
        gc=$gcc cl=$clang
        [ "$lang" = c++ ] && gc=$gxx cl=$clangxx
        w=$work/$lang$opt
        rm -rf "$w"
        # Both compilers see the sources by the same (absolute) paths.
        if ! build "$w/gcc" "$gc" "$gplugin" "$lang" "$opt"; then
            cat "$w/gcc/build.log"; echo "FAIL: $name $lang $opt: GCC build"; fail=1; continue
        fi
        if ! build "$w/clang" "$cl" "$cplugin" "$lang" "$opt"; then
            cat "$w/clang/build.log"; echo "FAIL: $name $lang $opt: Clang build"; fail=1; continue
        fi
        for m in prog.json lib.json; do
            [ -f "$w/gcc/$m" ] || continue
            if ! diff -u <(mask_manifest "$w/gcc/$m") <(mask_manifest "$w/clang/$m"); then
                echo "FAIL: $name $lang $opt: manifests $m differ (gcc vs clang)"; fail=1
            fi
        done
        for exp in "$expect/$name.expected" "$expect/$name".*.expected; do
            envs=() sorted=0
            while IFS= read -r line; do
                case "$line" in
                "# env "*) envs+=("${line#\# env }") ;;
                "# sort") sorted=1 ;;
                "#"*) ;;
                *) break ;;
                esac
            done < "$exp"
            run=$(basename "$exp" .expected)
            bad=0
            run "$w/gcc" "$exp" $sorted "${envs[@]}" || bad=1
            run "$w/clang" "$exp" $sorted "${envs[@]}" || bad=1
            if ! cmp -s "$w/gcc/$run.rc" "$w/clang/$run.rc"; then
                echo "FAIL: $run $lang $opt: exit status $(cat "$w/gcc/$run.rc") (gcc) vs $(cat "$w/clang/$run.rc") (clang)"
                bad=1
            fi
            if ! diff -u "$w/gcc/$run.got" "$w/clang/$run.got"; then
                echo "FAIL: $run $lang $opt: traces differ (gcc vs clang)"; bad=1
            fi
            [ $bad = 0 ] && echo "ok: $run $lang $opt ($(wc -l < "$w/clang/$run.got") lines identical)"
            [ $bad = 0 ] || fail=1
        done
    done
done
exit $fail
