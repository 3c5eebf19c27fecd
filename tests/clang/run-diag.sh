#!/bin/bash
# run-diag.sh: compile one negative fixture with tf-clang.so and check that
# every diagnostic its comments announce is reported at that file:line:column.
#
#   run-diag.sh CLANG PLUGIN INCLUDE-DIR SOURCE [extra compiler flags...]
#
# In SOURCE:  // expect-error: LINE:COL: TEXT   (also expect-warning, expect-note)
# A SOURCE ending in .rules is a rules file (with "# expect-..." comments); an
# empty C file is compiled with -fplugin-arg-tf-rules=SOURCE.
# The shared fixtures of tests/fixtures/diagnostics use another form, also
# understood: "expect: PATTERN" (grep -E, anchored at the start of a line of
# output; only patterns with "error:" make the compilation fail),
# "/* tf-rules: FILE */" to pass a rules file and "/* tf-flags: FLAGS */"
# more compiler flags.
# TEXT must appear in the diagnostic "SOURCE:LINE:COL: error: tf: ...TEXT...".
# With at least one expect-error the compilation must fail; a crash of the
# compiler (stack dump) always fails the test.
set -u
clang=$1 plugin=$2 inc=$3 src=$4
shift 4
dir=$(dirname "$src")
base=$(basename "$src")
if [[ $base == *.rules ]]; then
    out=$(cd "$dir" && "$clang" -fplugin="$plugin" -fplugin-arg-tf-rules="$base" -I"$inc" -c -o /dev/null \
        "$@" -x c /dev/null 2>&1)
else
    rules=$(sed -n 's|^/\* tf-rules: \([^ ]*\) .*|\1|p' "$src")
    [ -n "$rules" ] && set -- "$@" -fplugin-arg-tf-rules="$rules"
    read -ra more < <(sed -n 's|^/\* tf-flags: \(.*\) \*/$|\1|p' "$src")
    set -- "$@" "${more[@]}"
    out=$(cd "$dir" && "$clang" -fplugin="$plugin" -I"$inc" -c -o /dev/null "$@" "$base" 2>&1)
fi
rc=$?
fail=0
if grep -q -E "PLEASE submit a bug report|Stack dump" <<<"$out"; then
    echo "FAIL: the compiler crashed"
    fail=1
fi
nerr=0
while IFS= read -r line; do
    kind=${line%%:*}
    kind=${kind#*expect-}
    rest=${line#*: }
    pos=${rest%%: *}
    text=${rest#*: }
    [ "$kind" = error ] && nerr=$((nerr + 1))
    want="$base:$pos: $kind: tf: "
    if ! grep -F -- "$want" <<<"$out" | grep -q -F -- "$text"; then
        echo "FAIL: missing '$want...$text'"
        fail=1
    fi
done < <(grep -E '(//|#) expect-(error|warning|note): ' "$src" | sed -E 's/^.*(expect-)/\1/')
while IFS= read -r pattern; do
    [[ $pattern == *"error:"* ]] && nerr=$((nerr + 1))
    grep -Eq -- "^$pattern" <<<"$out" || { echo "FAIL: no diagnostic matching: $pattern"; fail=1; }
done < <(sed -n 's/.*[^-]expect: \(.*[^ /*]\)[ */]*$/\1/p' "$src")
if [ $nerr -gt 0 ] && [ $rc -eq 0 ]; then
    echo "FAIL: compilation succeeded although errors were expected"
    fail=1
fi
if [ $nerr -eq 0 ] && [ $rc -ne 0 ]; then
    echo "FAIL: compilation failed (exit $rc) although no error was expected"
    fail=1
fi
[ $fail = 0 ] && echo "ok: $base" || echo "$out"
exit $fail
