#!/usr/bin/env bash
# run.sh SCENARIO CC PLUGIN INCLUDE LIBDIR BINDIR WORK CXX: compiles wdapp with CC and
# PLUGIN, then runs scenarios/SCENARIO.sh (see CMakeLists.txt). BINDIR holds
# tf-ctl/tf-ctl, tf-watch/tf-watch and tf-dump/tf-dump (the build's tools/); CXX
# is CC's C++ driver.
# Sockets live under WORK/run (XDG_RUNTIME_DIR), so tests never see each other.
#
# Deadline: the test runs under timeout(1), which leads its own process group
# and kills the whole group (every program the test started, and theirs)
# after DEADLINE seconds, before ctest's TIMEOUT. A scenario also kills what
# it started, by pid, before it ends.
set -u
DEADLINE=90
if [ -z "${TF_WD_TEST_INNER:-}" ]; then
    TF_WD_TEST_INNER=1 timeout -s KILL "$DEADLINE" "$BASH" "$0" "$@"
    rc=$?
    [ "$rc" = 137 ] && echo "FAIL: not done within $DEADLINE s; its processes were killed"
    exit "$rc"
fi
scenario=$1 cc=$2 plugin=$3 inc=$4 libdir=$5 bindir=$6 work=$7 cxx=$8
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/run" && chmod 700 "$work/run" && cd "$work" || exit 1
export XDG_RUNTIME_DIR=$work/run
unset TF_MONITORS TF_WATCHDOG TF_SAMPLE TF_CONTROL TF_RECORD TF_TRIGGERS TF_SELECT
app=$work/wdapp
tfctl=$bindir/tf-ctl/tf-ctl tfwatch=$bindir/tf-watch/tf-watch tfdump=$bindir/tf-dump/tf-dump

fail() {
    echo "FAIL: $*"
    for f in "$work"/*.err; do [ -f "$f" ] && { echo "--- $f:"; cat "$f"; }; done
    exit 1
}
skip() { echo "skip: $*"; exit 77; }

# Kills what the scenario started and did not wait for.
trap 'for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null; done' EXIT

"$cc" -O2 -g -fplugin="$plugin" -I"$inc" "$here/wdapp.c" -L"$libdir" -ltf -lpthread -ldl \
    -Wl,-rpath,"$libdir" -o "$app" || fail "cannot compile wdapp with $cc"

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

# seconds OF "1.25 s" / "350.0 ms" as a number of seconds
seconds() { awk -v t="$1" 'BEGIN { split(t, p, " "); print p[2] == "ms" ? p[1] / 1000 : p[1] }'; }

. "$here/scenarios/$scenario.sh"
echo "PASS: $scenario"
