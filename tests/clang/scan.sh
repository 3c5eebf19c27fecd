#!/bin/bash
# scan.sh: tf-scan on two fixture projects (scan/good, scan/bad). Each gets a
# compile_commands.json written here (the paths must be absolute).
#   good: exit 0 and a project manifest with both TUs and the merged groups;
#   bad:  exit 1 and one error per planted inconsistency, at file:line.
#
# And on examples/ (every example folder's sources): consistent, exit 0.
#
#   scan.sh TF-SCAN CLANG INCLUDE-DIR TESTS-CLANG-DIR WORK-DIR [EXAMPLES-DIR]
set -u
scan=$1 clang=$2 inc=$3 here=$4 work=$5 examples=${6:-}
export LC_ALL=C
rm -rf "$work" && mkdir -p "$work/good" "$work/bad" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
database() { # database PROJECT-DIR SOURCES...
    local dir=$1 sep=
    shift
    echo "["
    for s in "$@"; do
        printf '%s {"directory": "%s", "file": "%s", "arguments": ["%s", "-I%s", "-c", "%s", "-o", "/dev/null"]}\n' \
            "$sep" "$dir" "$s" "$clang" "$inc" "$s"
        sep=,
    done
    echo "]"
}

database "$here/scan/good" rx.c tx.c > "$work/good/compile_commands.json"
"$scan" -o "$work/good/manifest.json" "$work/good" > "$work/good/out" 2>&1
rc=$?
cat "$work/good/out"
[ $rc = 0 ] || bad "good project: exit status $rc"
m=$work/good/manifest.json
grep -q '{"name": "net", "subgroups": \["net_rx", "net_tx"\], "declared": \[{"file": "./groups.h", "line": 5}\]}' "$m" ||
    bad "good: group net with its subgroups and place"
grep -q '"tu": "rx"' "$m" && grep -q '"tu": "tx"' "$m" || bad "good: both TUs in the manifest"
grep -q '{"id": 0, "name": "batch", "kind": "info", "flags": 14, "group": null, "tp": \["enter", "exit"\]' "$m" ||
    bad "good: the batch timing point of rx.c"
grep -q '{"id": 1, "name": "send", "kind": "monitor", "flags": 1, "group": "net_tx"' "$m" ||
    bad "good: send of tx.c, id 1"

database "$here/scan/bad" a.c b.c > "$work/bad/compile_commands.json"
# The TUs named, in this order: which declaration is "here" follows the order,
# and without names tf-scan takes the database's files in its hash map's order,
# which changes with the checkout's path.
"$scan" -o "$work/bad/manifest.json" "$work/bad/compile_commands.json" \
    "$here/scan/bad/a.c" "$here/scan/bad/b.c" > "$work/bad/out" 2>&1
rc=$?
cat "$work/bad/out"
[ $rc = 1 ] || bad "bad project: exit status $rc, expected 1"
expect() { grep -q -F -- "$1" "$work/bad/out" || bad "missing: $1"; }
expect "./net_b.h:3: error: tf-scan: group 'net' is declared with subgroups (net_rx, net_tx) here but with (net_rx) elsewhere"
expect "./net_a.h:3: note: the other declaration of 'net' is here"
expect "./loop_a.h:3: error: tf-scan: subgroup cycle across declarations: cache -> store -> cache"
expect "./loop_b.h:2: note: 'store' contains 'cache' here"
expect "a.c:3: error: tf-scan: timing point 'load' has a TF_TP_ENTER info function but no TF_TP_EXIT one"
expect "b.c:3: error: tf-scan: info function 'load' is TF_TP_NONE here but a timing point elsewhere"
expect "tf-scan: 2 translation units, 5 groups, 4 inconsistencies"
# A rules file given to the plugin in a TU's command applies to that TU only.
fix=$here/../fixtures
mkdir -p "$work/rules"
printf '[{"directory": "%s", "file": "rules_shapes.c", "arguments": ["%s", "-fplugin=tf.so", "-fplugin-arg-tf-rules=rules.txt", "-c", "rules_shapes.c"]},\n {"directory": "%s", "file": "rules_util.c", "arguments": ["%s", "-c", "rules_util.c"]}]\n' \
    "$fix" "$clang" "$fix" "$clang" > "$work/rules/compile_commands.json"
"$scan" -o "$work/rules/manifest.json" "$work/rules" > "$work/rules/out" 2>&1 || bad "rules: exit status"
grep -q '"name": "area", "kind": "monitor", "flags": 1, "group": "shapes"' "$work/rules/manifest.json" ||
    bad "rules: area not monitored through the TU's rules file"
grep -q '"name": "util_twice"' "$work/rules/manifest.json" && bad "rules: applied to a TU without them"
# The monitor lines that took no function of any TU scanned are said (only
# rules_shapes.c has the rules file: rules_util.c is no file of its TU).
grep -qxF "rules.txt:7: warning: tf-scan: 'monitor util rules_util.c util_*' took no function of the 2 translation units scanned" "$work/rules/out" ||
    bad "rules: line 7 took nothing and was not said: $(cat "$work/rules/out")"
grep -qxF "rules.txt:8: warning: tf-scan: 'monitor app rules_util.c util_*' took no function of the 2 translation units scanned" "$work/rules/out" ||
    bad "rules: line 8 took nothing and was not said"
grep -q "rules.txt:6:" "$work/rules/out" && bad "rules: line 6 took area and was said"

if [ -n "$examples" ]; then
    mkdir -p "$work/examples"
    n=0
    for d in "$examples"/*/; do
        srcs=("$d"*.c)
        [ -f "${srcs[0]}" ] || continue
        database "${d%/}" "${srcs[@]}" | sed '1d;$d' > "$work/examples/$n.part"
        n=$((n + 1))
    done
    { echo "["; cat "$work/examples/"*.part | sed '1!s/^ {/, {/;1s/^, {/ {/'; echo "]"; } \
        > "$work/examples/compile_commands.json"
    "$scan" -o "$work/examples/manifest.json" "$work/examples" > "$work/examples/out" 2>&1
    rc=$?
    cat "$work/examples/out"
    [ $rc = 0 ] || bad "examples: exit status $rc"
    grep -q ' 0 inconsistencies' "$work/examples/out" || bad "examples: inconsistencies reported"
fi
[ $fail = 0 ] && echo "ok: tf-scan"
exit $fail
