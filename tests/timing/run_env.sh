#!/bin/sh
# run_env.sh APP CHECKER OUTDIR: environment activation of timing end to end.
set -eu
app=$1 check=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
fail() { echo "run_env.sh: $*" >&2; exit 1; }
run() { env TF_MONITORS='app=timing' "$@" "$app"; }

run TF_REPORT="$out/r.json"
python3 "$check" json "$out/r.json" --group app:io,parse --group parse:tokenize \
  --expect wc.parse_file:count=3,unmatched_exits=0 --expect wc.tokenize:count=6 \
  --expect wc.read_chunk:count=3
grep -q '"threads": 2' "$out/r.json" || fail "JSON report does not count 2 threads"
[ "$(stat -c %a "$out/r.json")" = 600 ] || fail "report file mode is not 0600"

run TF_REPORT="$out/r.csv"
python3 "$check" csv "$out/r.csv" --expect wc.parse_file:count=3 --expect wc.tokenize:count=6

run TF_REPORT="$out/r.txt"
grep -q '^TF timing report: 3 of 4 timing points entered, 2 threads$' "$out/r.txt" ||
  fail "text report header"
grep -q '^group parse: ' "$out/r.txt" || fail "text report has no group parse"

run TF_REPORT=- 2>"$out/stderr.txt"
grep -q '^TF timing report' "$out/stderr.txt" || fail "TF_REPORT=- wrote nothing on stderr"

run TF_REPORT="$out/t.json" TF_TIMING_TRACE="$out/trace.json"
python3 "$check" chrome "$out/trace.json" --tracks 2 --names wc.parse_file,wc.tokenize

# The trace's ring bound is said on stderr, not only inside the file: 20002
# parse_file calls of 4 timed calls each on the main thread, 65536 kept.
env TF_MONITORS='app=timing' TF_REPORT="$out/m.json" TF_TIMING_TRACE="$out/many.json" "$app" many \
  2>"$out/many.err"
grep -q "keeps the last 65536 calls of each thread: 14472 older calls are not in it" "$out/many.err" ||
  fail "no stderr line for the calls TF_TIMING_TRACE dropped: $(cat "$out/many.err")"
grep -q '"dropped_events":14472' "$out/many.json" || fail "dropped_events in the trace file"
run TF_REPORT="$out/t.json" TF_TIMING_TRACE="$out/trace.json" 2>"$out/few.err"
! grep -q "older calls" "$out/few.err" || fail "a complete trace said it dropped calls"

# A symlink is never followed: the report is refused, the program still runs.
ln -s "$out/target" "$out/link.json"
run TF_REPORT="$out/link.json" 2>"$out/err.txt"
[ ! -e "$out/target" ] || fail "followed a symlink"
grep -q "TF_REPORT: cannot write '.*link.json': it is a symbolic link" "$out/err.txt" || fail "no message for an uncreatable report"

# A forked child reports only its own call, next to (not over) the parent's.
env TF_MONITORS='app=timing' TF_REPORT="$out/f.json" "$app" fork
python3 "$check" json "$out/f.json" --expect wc.parse_file:count=3
child=$(ls "$out"/f.json.* 2>/dev/null | head -n 1)
[ -n "$child" ] || fail "no report from the forked child"
python3 "$check" json "$child" --expect wc.parse_file:count=1 --expect wc.tokenize:count=2

# Without TF_MONITORS nothing is reported.
env TF_REPORT="$out/none.json" "$app"
[ ! -e "$out/none.json" ] || fail "report written without TF_MONITORS"
echo "run_env.sh: ok"
