# Where a request may write, and what (docs/design.md .ctl.paths,
# .files.replace): report and
# snapshot only in the working directory or TF's directories unless
# TF_CONTROL=anywhere; never over a file TF did not write; the same report
# twice; triggers reclaimed when removed.
mkdir -m 700 "$work/elsewhere" "$work/tfdir" "$work/app" && cd "$work/app" || fail "cd"
start_app TF_MONITORS='app=timing+record' TF_RECORD="$work/tfdir/trace"
say call 1 0
ctl report r.txt || fail "report into the working directory"
ctl report r.txt || fail "report into the same file again"
grep -q '^TF timing report' r.txt || fail "r.txt: $(head -n 2 r.txt)"
ctl report "$work/app/r2.json" || fail "report by an absolute path inside the working directory"
ctl snapshot "$work/tfdir/snap" || fail "snapshot beside TF_RECORD"
[ -s "$work/tfdir/snap/metadata" ] || fail "no snapshot beside TF_RECORD"
ctl snapshot "$work/tfdir/snap" || fail "snapshot over TF's own snapshot"
ctl report "$work/elsewhere/r.txt" 2>err.txt && fail "report outside"
out=$work/elsewhere/r.txt at=$work/elsewhere/r.txt
[ ${#at} -gt 62 ] && at="${at:0:59}..." # how an error quotes the text it points at
expect_same outside "tf-ctl: process $pid: error: column 8: '$out' is outside the working directory and TF's directories (those of TF_RECORD, TF_REPORT, TF_TIMING_TRACE, TF_OUTPUT); allowed only with TF_CONTROL=anywhere (at '$at')" err.txt
ctl snapshot ../x 2>err.txt && fail "snapshot with .."
expect_same dotdot "tf-ctl: process $pid: error: column 10: '../x' has a '..' component; a request may use one only if the program runs with TF_CONTROL=anywhere (at '../x')" err.txt
ctl trigger "handle:enter -> report $work/elsewhere/t.txt" 2>err.txt && fail "trigger writing outside"
grep -q "is outside the working directory" err.txt || fail "trigger outside: $(cat err.txt)"
[ -e "$work/elsewhere/r.txt" ] || [ -e "$work/elsewhere/t.txt" ] && fail "written outside"
# A file TF did not write is never replaced, wherever it is.
echo precious >precious.txt
ctl report precious.txt 2>err.txt && fail "report over a file TF did not write"
expect_same precious "tf-ctl: process $pid: error: column 8: cannot write 'precious.txt': it exists and is no timing report TF wrote, which is all TF replaces (remove it first, or set TF_OVERWRITE=1) (at 'precious.txt')" err.txt
[ "$(cat precious.txt)" = precious ] || fail "precious.txt changed"
mkdir -m 700 notrace && echo mine >notrace/notes
ctl snapshot notrace 2>err.txt && fail "snapshot into a directory TF did not write"
grep -q "cannot write the snapshot into notrace (libtf said why on stderr)" err.txt || fail "notrace: $(cat err.txt)"
grep -q "tf: record: cannot write the trace directory 'notrace': it holds files and is no recording TF wrote" "$work/app.err" ||
    fail "notrace: no reason on the program's stderr"
[ "$(ls notrace)" = notes ] || fail "notrace changed: $(ls notrace)"

# 40 rounds of trigger and untrigger: the removed ones make room (31 at once).
for i in $(seq 40); do
    n=$(ctl trigger 'step:enter -> clear work') || fail "trigger round $i"
    ctl untrigger "${n#trigger }" || fail "untrigger round $i"
done
for i in $(seq 31); do ctl trigger 'step:enter -> clear work' >/dev/null || fail "live trigger $i"; done
ctl trigger 'step:enter -> clear work' 2>err.txt && fail "a 32nd live trigger"
expect_same full "tf-ctl: process $pid: error: column 9: already 31 triggers, the most there can be at once; remove one first (untrigger N) (at 'step:enter -> clear work')" err.txt
ctl triggers | head -n 1 | grep -q '^41: step:enter' || fail "numbering: $(ctl triggers | head -n 1)"
ctl untrigger 41x 2>err.txt && fail "untrigger 41x"
grep -q "untrigger needs a trigger's number as 'triggers' lists it, not '41x'" err.txt || fail "41x: $(cat err.txt)"
ctl untrigger 41 && ctl trigger 'step:enter -> clear work' | grep -qx 'trigger 72' || fail "the freed place"
stop_app

# TF_CONTROL=anywhere: the same request is allowed (still as a new file).
start_app TF_MONITORS='app=timing' TF_CONTROL=anywhere
ctl report "$work/elsewhere/r.txt" || fail "anywhere: report outside"
grep -q '^TF timing report' "$work/elsewhere/r.txt" || fail "anywhere: no report"
stop_app
