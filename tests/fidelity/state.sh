# Sourced by run.sh: state.c under every monitor.
"$cc" -O2 -pthread -fplugin="$plugin" -I"$inc" "$here/state.c" -L"$libdir" -ltf -lm \
    -Wl,-rpath,"$libdir" -o state || fail "cannot build state.c with $plugin"

# kept NAME VAR=VALUE...: state.c under the environment given keeps its state.
kept() {
    local name=$1
    shift
    env "$@" ./state >"$name.out" 2>"$name.err"
    local rc=$?
    [ "$(cat "$name.out")" = "state kept" ] && [ $rc = 0 ] ||
        fail "$name (exit $rc): $(cat "$name.out")"
}
kept none
kept noop TF_MONITORS=st=noop
kept dprint TF_MONITORS=st=dprint TF_OUTPUT=dprint.txt
# main's first call, under FE_UPWARD: %g rounded up would print 0.100001
[ "$(head -n 2 dprint.txt)" = "(state): state.half->(x=0.1)
(state): state.half<-(0.05)" ] || fail "dprint under FE_UPWARD: $(head -n 2 dprint.txt)"
grep -qx '(state): state.positive->(z=0.1+0.25i)' dprint.txt || fail "dprint: no long double complex"
kept tracer TF_MONITORS=st=tracer
kept timing TF_MONITORS=st=timing TF_REPORT=timing.txt TF_TIMING_TRACE=trace.json
grep -q '^TF timing report' timing.txt || fail "no timing report"
kept record TF_MONITORS=st=record TF_RECORD=rec
[ -s rec/metadata ] || fail "no recording"
kept compose TF_MONITORS='st=dprint+timing+record' TF_OUTPUT=c.txt TF_REPORT=c.json TF_RECORD=crec
kept condition TF_MONITORS='st=dprint if time >= 0ns' TF_OUTPUT=cond.txt
kept trigger TF_MONITORS=st=timing TF_REPORT=- TF_TRIGGERS='half:exit -> report trig.txt'
grep -q '^TF timing report' trig.txt || fail "the trigger wrote no report"
