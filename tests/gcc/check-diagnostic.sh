#!/bin/bash
# check-diagnostic.sh: compile one fixture of tests/fixtures/diagnostics with
# the plugin; it must fail with every `expect:` line of the file (a grep -E
# pattern: file:line:column: error: message) and no internal compiler error.
# A fixture expecting only warnings must compile.
# A `/* tf-rules: FILE */` line passes -fplugin-arg-tf-rules=FILE, a
# `/* tf-flags: FLAGS */` line more compiler flags.
#   check-diagnostic.sh COMPILER PLUGIN INCLUDE_DIR SOURCE
set -u
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
cc=$1 plugin=$2 inc=$3 src=$4
export LC_ALL=C
cd "$(dirname "$src")" || exit 1
file=$(basename "$src")
args=()
rules=$(sed -n 's|^/\* tf-rules: \([^ ]*\) .*|\1|p' "$file")
[ -n "$rules" ] && args+=(-fplugin-arg-tf-rules="$rules")
read -ra more < <(sed -n 's|^/\* tf-flags: \(.*\) \*/$|\1|p' "$file")
args+=("${more[@]}")
errors=$(grep -c 'expect: .*: error: ' "$file")
out=$($cc -fplugin="$plugin" "${args[@]}" -I"$inc" -c "$file" -o /dev/null 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] && [ "$errors" != 0 ] && { echo "FAIL: $file compiled without error"; exit 1; }
[ $rc != 0 ] && [ "$errors" = 0 ] && { echo "FAIL: $file did not compile"; exit 1; }
echo "$out" | grep -q "internal compiler error" && { echo "FAIL: ICE"; exit 1; }
fail=0 n=0
while IFS= read -r pattern; do
    n=$((n + 1))
    echo "$out" | grep -Eq -- "^$pattern" || { echo "FAIL: no diagnostic matching: $pattern"; fail=1; }
done < <(sed -n 's/.*expect: \(.*[^ /*]\)[ */]*$/\1/p' "$file")
[ $n = 0 ] && { echo "FAIL: $file has no expect: line"; exit 1; }
exit $fail
