#!/bin/sh
# suggest.sh TF_DUMP WORK [CC PLUGIN_FLAG INCLUDE_DIR]...: tf-dump --suggest-rules
# (docs/design.md .perf.governor) picks the functions of a hand-written report
# at the overhead floor with enough calls, exactly as expected.rules says;
# rejects what it cannot judge; and each given compiler's plugin takes the lines
# it wrote: the excluded functions are no longer instrumented.
set -eu
dump=$1 work=$2
shift 2
here=$(cd "$(dirname "$0")/suggest" && pwd)
rm -rf "$work"
mkdir -p "$work"
fail() { echo "suggest.sh: $*" >&2; exit 1; }

cd "$here"
"$dump" --suggest-rules report.json >"$work/s.rules" || fail "suggest-rules failed"
diff -u expected.rules "$work/s.rules" || fail "suggested rules differ from expected.rules"
"$dump" --suggest-rules --min-calls=500000 -o "$work/few.rules" report.json
[ "$(grep -c '^exclude ' "$work/few.rules")" = 1 ] && grep -q '^exclude hot.c get_x ' "$work/few.rules" ||
  fail "--min-calls=500000 should keep get_x alone"
"$dump" --suggest-rules --min-calls=0 report.json | grep -q '^exclude hot.c rare ' ||
  fail "--min-calls=0 should take rare's 999 calls"

# What it cannot judge: a clear error naming the file, status 1 (2 for usage).
expect_error() { # STATUS PATTERN ARGS...
  want=$1 pattern=$2
  shift 2
  set +e
  "$dump" "$@" >/dev/null 2>"$work/err"
  got=$?
  set -e
  [ "$got" = "$want" ] || fail "$* exited $got, not $want"
  grep -q "$pattern" "$work/err" || fail "$*: no '$pattern' in: $(cat "$work/err")"
}
printf '{"format": "tf-timing-report", "timers": [' >"$work/cut.json"
expect_error 1 "cut.json:1:" --suggest-rules "$work/cut.json"
echo '{"format": "other", "timers": []}' >"$work/other.json"
expect_error 1 "not a TF timing report" --suggest-rules "$work/other.json"
sed 's/"per_nested_call_ns": 20.000/"per_nested_call_ns": 0/' report.json >"$work/zero.json"
expect_error 1 "no measured hook overhead" --suggest-rules "$work/zero.json"
sed 's/, "at_overhead_floor": true}/}/' report.json >"$work/old.json"
expect_error 1 "timer 1: no hooks_ns or at_overhead_floor (a report of a libtf from before --suggest-rules?)" --suggest-rules "$work/old.json"
expect_error 1 "is a recording" --suggest-rules "$work"
expect_error 1 "No such file" --suggest-rules "$work/none.json"
expect_error 2 "wants a count" --suggest-rules --min-calls=x report.json
expect_error 2 "no --format" --suggest-rules --format=text report.json

# The plugins read the suggested lines after a rule that takes everything.
while [ $# -ge 3 ]; do
  cc=$1 plugin=$2 inc=$3
  shift 3
  { printf 'group app\nmonitor app * *\nmin-size 0\n'; cat "$work/s.rules"; } >"$work/all.rules"
  for rules in all s; do
    [ $rules = s ] && printf 'group app\nmonitor app * *\nmin-size 0\n' >"$work/s0.rules" && rules=s0
    "$cc" "$plugin" -fplugin-arg-tf-rules="$work/$rules.rules" \
      -fplugin-arg-tf-manifest="$work/$rules.json" -I"$inc" -c hot.c -o "$work/hot.o" ||
      fail "$cc: the suggested rules do not compile"
  done
  grep -q '"work"' "$work/all.json" || fail "$cc: work is not instrumented"
  grep -q '"get_x"' "$work/s0.json" || fail "$cc: get_x is not instrumented without the excludes"
  ! grep -q '"get_x"\|"step"' "$work/all.json" || fail "$cc: get_x or step still instrumented"
done
echo "suggest.sh: ok"
