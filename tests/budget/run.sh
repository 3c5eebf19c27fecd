#!/usr/bin/env bash
# run.sh SCENARIO CC PLUGIN INCLUDE LIBDIR BINDIR WORK CXX FIXTURES: compiles
# budapp and budlib with CC and PLUGIN, then runs scenarios/SCENARIO.sh (see
# CMakeLists.txt). BINDIR holds tf-ctl/tf-ctl and tf-dump/tf-dump (the build's
# tools/); CXX is CC's C++ driver; FIXTURES is tests/fixtures. Sockets live
# under WORK/run (XDG_RUNTIME_DIR), so tests never see each other. It runs
# under run-bounded (tests/harness): a deadline, and nothing left running;
# a scenario also kills what it started before it ends.
set -u
scenario=$1 cc=$2 plugin=$3 inc=$4 libdir=$5 bindir=$6 work=$7 cxx=$8 fixtures=$9
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/run" && chmod 700 "$work/run" && cd "$work" || exit 1
export XDG_RUNTIME_DIR=$work/run LC_ALL=C
unset TF_MONITORS TF_BUDGET TF_WATCHDOG TF_SAMPLE TF_CONTROL TF_RECORD TF_TRIGGERS TF_SELECT TF_REPORT
app=$work/budapp lib=$work/budlib.so
tfctl=$bindir/tf-ctl/tf-ctl tfdump=$bindir/tf-dump/tf-dump

fail() {
    echo "FAIL: $*"
    for f in "$work"/*.err; do [ -f "$f" ] && { echo "--- $f:"; cat "$f"; }; done
    exit 1
}
skip() { echo "skip: $*"; exit 77; }

trap 'for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null; done' EXIT

# clone-opt=full, as the README advises with a budget (hot.sh builds the default too)
"$cc" -O2 -g -fplugin="$plugin" -fplugin-arg-tf-clone-opt=full -I"$inc" "$here/budapp.c" -L"$libdir" -ltf \
    -lpthread -ldl -Wl,-rpath,"$libdir" -o "$app" || fail "cannot compile budapp with $cc"
"$cc" -O2 -g -fPIC -shared -fplugin="$plugin" -fplugin-arg-tf-clone-opt=full -I"$inc" "$here/budlib.c" -o "$lib" ||
    fail "cannot compile budlib with $cc"

# expect_lines NAME FILE PATTERN...: FILE's lines match the extended regexes, in order, all of them.
expect_lines() {
    local name=$1 file=$2
    shift 2
    local n
    n=$(wc -l < "$file")
    [ "$n" = $# ] || fail "$name: $n lines in $file, not $#"
    local i=1
    for re in "$@"; do
        sed -n "${i}p" "$file" | grep -qE "^$re\$" || fail "$name: line $i of $file does not match '$re'"
        i=$((i + 1))
    done
}

# count_of CSV FUNCTION: calls of <tu>.<name> in a timing report in CSV (0 if absent)
count_of() { awk -F, -v f="$2" '$1 == f { n = $6 } END { print n + 0 }' "$1"; }
# all_calls CSV: the calls of every function in it
all_calls() { awk -F, 'NR > 1 && $4 == "function" { n += $6 } END { print n + 0 }' "$1"; }
# same_calls NAME ERR CSV: the calls traced that the budget's exit line in ERR
# counts are the calls the timing monitor timed: both see every call that
# went through the slot, and nothing else.
same_calls() {
    local said
    said=$(sed -nE 's/^tf: budget .*; ([0-9]+) calls traced\).*/\1/p' "$2")
    [ "$said" = "$(all_calls "$3")" ] || fail "$1: the exit line counts $said calls traced, the report $(all_calls "$3")"
}

# The exit lines' shapes (runtime/budget/report.c).
NUM='[0-9]+(\.[0-9]+)?'
head_re() { # head_re BUDGET DESELECTED MEASURED
    echo "tf: budget $1: the hooks and the budget's thread took $NUM% of the program's own time \($NUM s of $NUM s CPU; [0-9]+ calls traced\); $2 of $3 functions measured were deselected, most costly first:"
}
fn_re() { # fn_re NAME [TAIL]: a deselected function's line
    echo "tf:   $1: $NUM[kM]? calls/s, $NUM ns a call: $NUM% of the program's own time; deselected at $NUM s${2:-}"
}

. "$here/scenarios/$scenario.sh"
echo "PASS: $scenario"
