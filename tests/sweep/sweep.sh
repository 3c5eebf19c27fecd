#!/bin/bash
# sweep.sh: the compiler-robustness sweep (docs/design.md
# .rel.fidelity). Every function of each
# program of GCC's c-torture "execute" corpus is instrumented through a rules
# file (as -finstrument-functions users do), with tf.so and tf-clang.so at -O0
# and -O2, and run with no monitor and under noop, tracer, timing and dprint.
# Each result is compared with the same compiler's uninstrumented build:
#   ice      the compiler crashed (an internal compiler error / LLVM stack dump)
#   error    the instrumented compile failed where the plain one did not
#   wrong    the program exits otherwise (the corpus aborts on a wrong value)
#   crash    a fatal signal other than SIGABRT
#   hang     no exit within the time limit
# A program whose plain build fails or whose plain run does not exit 0 (GCC
# extensions Clang lacks, target-specific tests) is counted as skipped.
#
# The corpus is not in this repository: it comes from Debian's gcc-12-source
# (/usr/src/gcc-12/gcc-12.*.tar.*), extracted under the work directory at run
# time: execute/*.c and its ieee/ and builtins/ programs, each built as its
# directory's .exp file builds it (sweep-one.sh).
# Results that are understood and accepted are listed in known.txt ("FILE CC
# OPT CLASS MONITOR  # why"); anything else fails the sweep.
#
#   sweep.sh --work DIR --include DIR --libdir DIR [--gcc-plugin SO] [--clang-plugin SO]
#            [--clang CLANG] [--jobs N] [--sample FILE | --only FILE.c...]
# Exit 0 no unexpected result, 1 some, 77 skip (no corpus, no plugin).
set -u
here=$(cd "$(dirname "$0")" && pwd)
work= inc= libdir= gplug= cplug= clang=clang jobs=1 sample= only=()
while [ $# -gt 0 ]; do
    case "$1" in
    --work) work=$2; shift 2 ;;
    --include) inc=$2; shift 2 ;;
    --libdir) libdir=$2; shift 2 ;;
    --gcc-plugin) gplug=$2; shift 2 ;;
    --clang-plugin) cplug=$2; shift 2 ;;
    --clang) clang=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    --only) shift; only=("$@"); break ;;
    *) echo "sweep.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: sanitized builds have no plugin"; exit 77; }
[ -n "$work" ] && [ -n "$inc" ] && [ -n "$libdir" ] || { echo "sweep.sh: --work, --include and --libdir are required" >&2; exit 2; }
[ -f "$gplug" ] || gplug=
[ -f "$cplug" ] || cplug=
[ -n "$gplug$cplug" ] || { echo "skip: neither tf.so nor tf-clang.so is built"; exit 77; }
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)

# ---- the corpus, extracted once per work directory
shopt -s nullglob
tarballs=(/usr/src/gcc-12/gcc-12.*.tar.*)
[ ${#tarballs[@]} -gt 0 ] || { echo "skip: no /usr/src/gcc-12/gcc-12.*.tar.* (apt-get install gcc-12-source)"; exit 77; }
tarball=${tarballs[0]}
corpus=$work/corpus
stamp="$tarball (execute, ieee, builtins .x .h)"
if [ ! -f "$corpus/.from" ] || [ "$(cat "$corpus/.from")" != "$stamp" ]; then
    rm -rf "$corpus" && mkdir -p "$corpus" || exit 1
    top=$(tar tf "$tarball" | head -1 | cut -d/ -f1)
    tar xf "$tarball" -C "$corpus" --strip-components=5 --wildcards \
        "$top/gcc/testsuite/gcc.c-torture/execute/*.c" \
        "$top/gcc/testsuite/gcc.c-torture/execute/ieee/*.x" \
        "$top/gcc/testsuite/gcc.c-torture/execute/builtins/*.x" \
        "$top/gcc/testsuite/gcc.c-torture/execute/builtins/*.h" || { echo "FAIL: extracting $tarball"; exit 1; }
    echo "$stamp" > "$corpus/.from"
fi
if [ ${#only[@]} -gt 0 ]; then
    files=("${only[@]}")
elif [ -n "$sample" ]; then
    mapfile -t files < <(sed 's/#.*//; /^[[:space:]]*$/d' "$sample")
else
    files=()
    for f in "$corpus"/*.c; do files+=("${f##*/}"); done
    for f in "$corpus"/ieee/*.c; do files+=("ieee/${f##*/}"); done
    for f in "$corpus"/builtins/*.c; do
        case $f in *-lib.c) ;; *) files+=("builtins/${f##*/}") ;; esac
    done
fi

printf 'group all\nmonitor all * *\nmin-size 0\n' > "$work/all.rules"
configs=()
[ -n "$gplug" ] && configs+=("gcc:gcc:$gplug")
[ -n "$cplug" ] && configs+=("clang:$clang:$cplug")
export corpus inc libdir work
rm -rf "$work/results" && mkdir -p "$work/results"
printf '%s\n' "${files[@]}" |
    xargs -P "$jobs" -I{} "$here/sweep-one.sh" {} "${configs[@]}"
find "$work/results" -type f -exec cat {} + | sort > "$work/results.txt"
"$here/sweep-report.sh" "$work/results.txt" "$here/known.txt"
