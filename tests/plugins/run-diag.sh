#!/bin/bash
# run-diag.sh: compile one misuse fixture of tests/fixtures/diagnostics with a
# TF plugin (tf.so under GCC, tf-clang.so under Clang: the same script and the
# same expectations for both) and check that the compile gives every
# diagnostic the fixture announces, at its file:line:column, and no crash.
#
#   run-diag.sh COMPILER PLUGIN INCLUDE_DIR SOURCE
#
# In SOURCE, one comment per diagnostic:
#   expect-error: [FILE:]LINE:COL: TEXT      (also expect-warning, expect-note)
# FILE is SOURCE's own name unless given (a rules file's diagnostics name it).
# Some line of the compiler's output must begin with exactly
#   FILE:LINE:COL: error: tf: TEXT
# the layout both compilers use (with warning or note for those kinds).
# With an expect-error the compile must fail; a fixture that expects only
# warnings (and notes) must compile. A fixture expecting nothing, or holding
# an old-style "expect:" line, is itself an error. "tf-rules: FILE" passes
# -fplugin-arg-tf-rules=FILE, "/* tf-flags: FLAGS */" more compiler flags.
# Exit 0 pass, 1 fail, 77 skip (sanitized builds have no plugin).
set -u
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
cc=$1 plugin=$2 inc=$3 src=$4
export LC_ALL=C
cd "$(dirname "$src")" || exit 1
file=$(basename "$src")
args=()
rules=$(sed -n 's|.*tf-rules: \([^ ]*\).*|\1|p' "$file")
[ -n "$rules" ] && args+=(-fplugin-arg-tf-rules="$rules")
read -ra more < <(sed -n 's|^/\* tf-flags: \(.*\) \*/$|\1|p' "$file")
args+=("${more[@]}")
out=$($cc -fplugin="$plugin" "${args[@]}" -I"$inc" -c "$file" -o /dev/null 2>&1)
rc=$?
fail=0 nerr=0 nwant=0
if grep -q -E '(^|[^-])expect: ' "$file"; then
    echo "FAIL: $file has an old-style 'expect:' line; write expect-error/-warning/-note: LINE:COL: TEXT"
    fail=1
fi
if grep -q -E "internal compiler error|PLEASE submit a bug report|Stack dump" <<<"$out"; then
    echo "FAIL: the compiler crashed"
    fail=1
fi
where_text='^([^:]+:)?([0-9]+:[0-9]+): (.*)$'
while IFS= read -r line; do
    kind=${line%%:*}
    rest=${line#*: }
    [[ $rest =~ $where_text ]] || { echo "FAIL: malformed expect line: $line"; fail=1; continue; }
    where=${BASH_REMATCH[1]:-$file:}${BASH_REMATCH[2]}
    want="$where: $kind: tf: ${BASH_REMATCH[3]}"
    [ "$kind" = error ] && nerr=$((nerr + 1))
    nwant=$((nwant + 1))
    # A fixed-string prefix match: TEXT may hold regex characters, and
    # backslashes (through the environment: awk -v would read escapes).
    if ! W="$want" awk 'index($0, ENVIRON["W"]) == 1 { found = 1 } END { exit !found }' <<<"$out"; then
        echo "FAIL: no diagnostic: $want"
        fail=1
    fi
done < <(sed -n -E 's/^.*expect-(error|warning|note): (.*[^ */])[ */]*$/\1: \2/p' "$file")
[ $nwant = 0 ] && { echo "FAIL: $file has no expect-error/-warning/-note line"; fail=1; }
[ $nerr != 0 ] && [ $rc = 0 ] && { echo "FAIL: $file compiled without error"; fail=1; }
[ $nerr = 0 ] && [ $rc != 0 ] && { echo "FAIL: $file expects no error but did not compile"; fail=1; }
if [ $fail = 0 ]; then
    echo "ok: $file ($nerr errors, $((nwant - nerr)) warnings and notes, $cc)"
else
    echo "--- compiler output:"
    echo "$out"
fi
exit $fail
