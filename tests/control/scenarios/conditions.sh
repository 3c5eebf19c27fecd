# Conditions in TF_MONITORS and triggers in TF_TRIGGERS, on `ctlapp script`:
# handle(1,"/a",0), handle(2,"/b",30 ms), handle(3,"/c",0), each calling
# step(id); then fail(1), which leaves by longjmp.
run_script() { # run_script NAME VAR=VALUE...: the trace in NAME.out, stderr in NAME.err
    local name=$1
    shift
    env TF_OUTPUT="$work/$name.out" "$@" "$app" script 2>"$work/$name.err" ||
        fail "$name: ctlapp failed"
}

run_script slow TF_MONITORS='req=dprint if time > 20ms'
expect_same slow '(ctlapp): ctlapp.handle->(id=2, path="/b", ms=30)
(ctlapp): ctlapp.handle<-(4)' slow.out

run_script outer TF_MONITORS='app=dprint if depth <= 1'
expect_same outer '(ctlapp): ctlapp.handle->(id=1, path="/a", ms=0)
(ctlapp): ctlapp.handle<-(2)
(ctlapp): ctlapp.handle->(id=2, path="/b", ms=30)
(ctlapp): ctlapp.handle<-(4)
(ctlapp): ctlapp.handle->(id=3, path="/c", ms=0)
(ctlapp): ctlapp.handle<-(6)
(ctlapp): ctlapp.fail->(code=1)
(ctlapp): ctlapp.fail:throw:noreturn(longjmp)' outer.out

run_script args TF_MONITORS='req=dprint if id == 3, work=dprint if n >= 2 and n != 3'
expect_same args '(ctlapp): ctlapp.step->(n=2)
(ctlapp): ctlapp.step<-(4)
(ctlapp): ctlapp.handle->(id=3, path="/c", ms=0)
(ctlapp): ctlapp.handle<-(6)' args.out

# A function without the argument never passes (fail has no path).
run_script strings TF_MONITORS='req=dprint if path != "/b"'
expect_same strings '(ctlapp): ctlapp.handle->(id=1, path="/a", ms=0)
(ctlapp): ctlapp.handle<-(2)
(ctlapp): ctlapp.handle->(id=3, path="/c", ms=0)
(ctlapp): ctlapp.handle<-(6)' strings.out

# A call left by longjmp never exits: no time condition can pass it.
run_script longjmp TF_MONITORS='req=dprint if time >= 0ns and code == 1'
[ ! -s longjmp.out ] || fail "longjmp: a call with no exit passed a time condition"

run_script bad TF_MONITORS=$'req=dprint if time > 5, work=dprint if n = 2, app=dprint if id == 2\x01, req=dprint if depth == 1 and id > 2'
expect_same bad-trace '(ctlapp): ctlapp.handle->(id=3, path="/c", ms=0)
(ctlapp): ctlapp.handle<-(6)' bad.out
expect_same bad-errors "tf: TF_MONITORS: item 1, column 23: a duration needs a unit: ns, us, ms or s (at the end)
tf: TF_MONITORS: item 2, column 18: '=' compares nothing: write '==' (at '= 2')
tf: TF_MONITORS: item 3, column 22: expected 'and' or the end of the item (at '\\x01')" bad.err

# Triggers: registering a group on a call's entry, once.
run_script trig TF_TRIGGERS='handle:enter if id == 2 -> register work=dprint once'
expect_same trig '(ctlapp): ctlapp.step->(n=2)
(ctlapp): ctlapp.step<-(4)
(ctlapp): ctlapp.step->(n=3)
(ctlapp): ctlapp.step<-(6)' trig.out

# A slow call's exit registers work; bad items are named and the rest applies.
run_script trigbad TF_TRIGGERS='handle:entr -> report, step:exit -> explode, ctlapp.handle:exit if time > 20ms -> register work=dprint'
expect_same trigbad-trace '(ctlapp): ctlapp.step->(n=3)
(ctlapp): ctlapp.step<-(6)' trigbad.out
expect_same trigbad-errors "tf: TF_TRIGGERS: item 1, column 8: expected an event: enter, exit or throw; did you mean 'enter'? (at 'entr -> report')
tf: TF_TRIGGERS: item 2, column 14: expected an action: register, clear, snapshot or report (at 'explode')" trigbad.err

# On the longjmp out of fail: the timing report, and a snapshot of what nothing recorded.
run_script trigreport TF_MONITORS='req=timing' TF_REPORT=/dev/null \
    TF_TRIGGERS="fail:throw -> report $work/fail-report.txt, fail:throw -> snapshot"
grep -q 'ctlapp.handle' fail-report.txt || fail "trigreport: no report with ctlapp.handle"
expect_same trigreport-errors "tf: trigger 'fail:throw -> snapshot': nothing recorded yet: no group has the factory record" trigreport.err
# The same with the recorder on: the snapshot holds the calls up to the throw.
run_script trigsnap TF_MONITORS='req=record' TF_RECORD="$work/trig-exit" \
    TF_TRIGGERS="fail:throw -> snapshot $work/trig-snap once"
[ -s "$work/trig-snap/metadata" ] || fail "trigsnap: no snapshot: $(cat trigsnap.err)"
if command -v babeltrace2 >/dev/null; then
    babeltrace2 "$work/trig-snap" | grep -q 'func = ( "ctlapp.fail"' || fail "trigsnap: no ctlapp.fail event"
fi
