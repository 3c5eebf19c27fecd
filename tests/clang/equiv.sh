#!/bin/bash
# equiv.sh: the cross-compiler equivalence test (issue 4): build one fixture
# with GCC + tf.so and with Clang + tf-clang.so, as C and as C++, at -O0 and
# -O2; run both under every environment its expected files name; the traces
# must be identical once pointer values are masked, and the manifests once
# paths (and the "compiler" field) are masked.
#
#   equiv.sh --gcc-plugin SO --clang-plugin SO --clang CLANG --clangxx CLANG++
#            --include DIR --libdir DIR --expect DIR --work DIR --name N
#            [--langs "c c++"|c|c++|asis] [--flags "..."] [--libs "..."]
#            [--plugin-flags "..."] [--lib SRC] SRC...
# --langs asis builds with the C drivers and lets them pick the language by
# file extension (a C++ main with a C part).
# Exit 0 pass, 1 fail, 77 skip (no GCC plugin built).
set -u
gplugin= cplugin= clang= clangxx= inc= libdir= expect= work= name= lib= langs="c c++"
flags= libs= pflags=
srcs=()
while [ $# -gt 0 ]; do
    case "$1" in
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
[ -f "$gplugin" ] || { echo "skip: no GCC plugin at $gplugin"; exit 77; }
[ -f "$cplugin" ] || { echo "FAIL: no Clang plugin at $cplugin"; exit 1; }
export LC_ALL=C
fixdir=$(cd "$(dirname "${srcs[0]}")" && pwd)
mask_trace() { sed -E 's/0x[0-9a-f]+/0xPTR/g; s/^(\([^)]*\): )[[:space:]]+/\1/' "$1"; }
mask_manifest() { sed -E 's/"(file|compiler)": "[^"]*"/"\1": "MASKED"/g' "$1"; }

build() { # build DIR COMPILER PLUGIN LANG OPT
    local dir=$1 cc=$2 plugin=$3 lang=$4 opt=$5
    mkdir -p "$dir"
    local x=() cxx
    [ "$lang" = c++ ] && x=(-x c++)
    local common=(-I"$inc" -I"$fixdir" -g -w "$opt" $flags -fplugin="$plugin" $pflags)
    local link=(-x none $libs -L"$libdir" -ltf -Wl,-rpath,"$libdir" -pthread -ldl)
    if [ -n "$lib" ]; then
        (cd "$dir" && "$cc" "${common[@]}" -fplugin-arg-tf-manifest="$dir/lib.json" "${x[@]}" \
            -fPIC -shared "$lib" -o "$dir/libfixture.so" "${link[@]}") > "$dir/build.log" 2>&1 || return 1
    fi
    (cd "$dir" && "$cc" "${common[@]}" -fplugin-arg-tf-manifest="$dir/prog.json" "${x[@]}" \
        "${srcs[@]}" -o "$dir/prog" "${link[@]}") >> "$dir/build.log" 2>&1
}

fail=0
shopt -s nullglob
for lang in $langs; do
    for opt in -O0 -O2; do
        gcc=gcc cl=$clang
        [ "$lang" = c++ ] && gcc=g++ cl=$clangxx
        w=$work/$lang$opt
        rm -rf "$w"
        # Both compilers see the sources by the same (absolute) paths.
        if ! build "$w/gcc" "$gcc" "$gplugin" "$lang" "$opt"; then
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
            for c in gcc clang; do
                (cd "$w/$c" && env "${envs[@]}" TF_OUTPUT="$w/$c/$run.trace" ./prog > /dev/null 2>&1)
                touch "$w/$c/$run.trace"
                mask_trace "$w/$c/$run.trace" > "$w/$c/$run.got"
                [ $sorted = 1 ] && sort -s -t: -k1,1 "$w/$c/$run.got" -o "$w/$c/$run.got"
            done
            if ! diff -u "$w/gcc/$run.got" "$w/clang/$run.got"; then
                echo "FAIL: $run $lang $opt: traces differ (gcc vs clang)"; fail=1
            else
                echo "ok: $run $lang $opt ($(wc -l < "$w/clang/$run.got") lines identical)"
            fi
        done
    done
done
exit $fail
