# A serving program driven by tf-ctl: what it lists, register with a
# condition, clear, triggers firing the counted number of times, report,
# snapshot, and errors. 4 threads call handle(0, "/loop", 0) all along.
start_app TF_MONITORS='app=timing' TF_OUTPUT="$work/out.txt" TF_OUTPUT_BUFFER=line

"$tfctl" list | grep -q "^$pid	$app\$" || fail "tf-ctl list does not show $pid"
ctl status >status.txt || fail "status"
grep -q "^pid	$pid\$" status.txt || fail "status: $(cat status.txt)"
# Four threads calling monitored code, no signal handler: no call skipped.
grep -qx "untraced	0" status.txt || fail "status: untraced: $(cat status.txt)"
ctl groups >groups.txt || fail "groups"
expect_same groups 'app	timing	subgroups: req work
req	-
work	-' groups.txt
ctl functions >functions.txt
expect_same functions 'ctlapp.fail	req	on	selected
ctlapp.handle	req	on	selected
ctlapp.step	work	on	selected' functions.txt
ctl functions 'ctlapp.h*' >functions.txt
expect_same functions-glob 'ctlapp.handle	req	on	selected' functions.txt

ctl register 'req=dprint if id == 5' || fail "register"
say call 5 0
say call 6 0
ctl clear req || fail "clear"
say call 5 0
expect_same register '(ctlapp): ctlapp.handle->(id=5, path="/x", ms=0)
(ctlapp): ctlapp.handle<-(10)' out.txt

ctl trigger 'handle:enter if id == 7 -> register work=dprint' | grep -qx 'trigger 1' ||
    fail "trigger 1"
ctl trigger 'handle:exit if time >= 50ms -> clear work once' | grep -qx 'trigger 2' ||
    fail "trigger 2"
ctl trigger 'step:enter if n == 9 -> report every 60s' >/dev/null || fail "trigger 3"
say call 7 0
say call 7 0
say call 7 0
say call 8 60
say call 8 60
say call 9 0
say call 9 0
ctl triggers >triggers.txt
expect_same triggers "1: handle:enter if id == 7 -> register work=dprint  (fired 3, suppressed 0)
2: handle:exit if time >= 50ms -> clear work once  (fired 1, suppressed 1)
3: step:enter if n == 9 -> report every 60s  (fired 1, suppressed 1)" triggers.txt
ctl untrigger 1 || fail "untrigger"
ctl triggers | grep -q '^1:' && fail "trigger 1 still listed"
# work was traced from the first call 7 until the first slow call 8 ended
# (the threads' step(0) calls aside).
traced=$(grep -c 'ctlapp.step->(n=[1-9]' out.txt)
[ "$traced" = 4 ] || fail "work traced $traced calls of the main thread, not 4"

ctl report >report.txt || fail "report"
grep -q 'ctlapp.handle' report.txt || fail "report has no ctlapp.handle"
ctl report "$work/report.json" || fail "report FILE"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/report.json" || fail "report.json"
ctl snapshot 2>snap.err && fail "snapshot succeeded with nothing recorded"
grep -q 'nothing recorded yet' snap.err || fail "snapshot: $(cat snap.err)"

ctl frobnicate 2>err.txt && fail "unknown command accepted"
grep -q "unknown command" err.txt || fail "unknown command: $(cat err.txt)"
ctl register 'req=dprnt' 2>err.txt && fail "unknown factory accepted"
expect_same bad-register "tf-ctl: process $pid: error: column 14: unknown factory (known: dprint, noop, record, timing, tracer); did you mean 'dprint'? (at 'dprnt')" err.txt
# The process knows its groups: one nothing declares is refused, with the nearest.
ctl register 'wrok=dprint' 2>err.txt && fail "an undeclared group accepted"
expect_same bad-group "tf-ctl: process $pid: error: column 10: no loaded code declares group 'wrok'; nothing registered; did you mean 'work'? (at 'wrok=dprint')" err.txt
# The flight recorder on demand: register it, make calls, take a snapshot.
ctl register 'work=record' || fail "register record"
say call 5 0
ctl snapshot "$work/snap" 2>snap.err || fail "snapshot DIR: $(cat snap.err)"
[ -s "$work/snap/metadata" ] || fail "the snapshot has no metadata"
if command -v babeltrace2 >/dev/null; then
    babeltrace2 "$work/snap" | grep -q 'func = ( "ctlapp.step"' || fail "the snapshot has no ctlapp.step event"
fi
stop_app

# A socket directory open to others, or a symlink, is refused.
mkdir -p "$work/open" && chmod 755 "$work/open" && mkdir -m 755 "$work/open/tf"
XDG_RUNTIME_DIR=$work/open TF_CONTROL=1 "$app" script 2>open.err
grep -q "not serving: $work/open/tf is open to group or others" open.err || fail "open dir: $(cat open.err)"
mkdir -p "$work/link" "$work/elsewhere" && chmod 700 "$work/elsewhere" && ln -s "$work/elsewhere" "$work/link/tf"
XDG_RUNTIME_DIR=$work/link TF_CONTROL=1 "$app" script 2>link.err
grep -q "not serving: $work/link/tf is a symlink" link.err || fail "symlink: $(cat link.err)"
# A stale socket of a dead process is removed by the next program.
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$work/run/tf/999999999.sock"
TF_CONTROL=1 "$app" script 2>/dev/null
[ -e "$work/run/tf/999999999.sock" ] && fail "stale socket kept"
