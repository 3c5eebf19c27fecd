# ctl: the watchdog of a live process through tf-ctl: stacks without one is
# an error saying how to start one; watchdog DURATION starts it (calls
# entered from then on are seen), heartbeat counts calls, a bad spelling is
# an error at its column, off stops it.
coproc APP { exec env TF_CONTROL=1 "$app" naps 6 1 2> app.err; }
read -r -t 10 -u "${APP[0]}" word || fail "wdapp did not start"
pid=$APP_PID
for _ in $(seq 100); do [ -S "run/tf/$pid.sock" ] && break; sleep 0.05; done
ctl() { "$tfctl" "$pid" "$@"; }

ctl stacks > s1.out 2> s1.err && fail "stacks without a watchdog succeeded"
expect_lines stacks-off s1.err "tf-ctl: process $pid: error: column 1: no watchdog runs, and open calls are kept only while one does: start one with 'watchdog DURATION' \(or TF_WATCHDOG\) \(at 'stacks'\)"
ctl heartbeat > h0.out || fail "heartbeat"
expect_lines heartbeat-off h0.out 'watchdog	off'
ctl watchdog 20s > w.out || fail "watchdog 20s"
expect_lines watchdog-on w.out 'watchdog	20\.00 s, report, snapshot' 'calls	[0-9]+' 'open	[0-9]+' 'threads	[0-9]+'
read -r -t 10 -u "${APP[0]}" word && read -r -t 10 -u "${APP[0]}" word || fail "no nap after the watchdog started"
sleep 0.2
ctl stacks > s2.out || fail "stacks"
expect_lines stacks s2.out "thread $pid \(wdapp\): 1 call open" ' +[0-9.]+ (s|ms)  wdapp\.nap\(seconds=1, why="test"\)'
ctl heartbeat > h1.out && sleep 1.2 && ctl heartbeat > h2.out || fail "heartbeat"
c1=$(sed -n 's/^calls\t//p' h1.out) c2=$(sed -n 's/^calls\t//p' h2.out)
[ "$c2" -gt "$c1" ] || fail "heartbeat: calls $c1, then $c2: no progress counted"
ctl watchdog 2x > bad.out 2> bad.err && fail "watchdog 2x succeeded"
expect_lines watchdog-bad bad.err "tf-ctl: process $pid: error: column 10: '2x' does not start with a duration: a number and a unit \(ns, us, ms, s\), e\.g\. 2s \(at '2x'\)"
ctl watchdog off > off.out || fail "watchdog off"
expect_lines watchdog-off off.out 'watchdog	off'
ctl stacks > s3.out 2> s3.err && fail "stacks after watchdog off succeeded"
wait "$APP_PID" || fail "wdapp: exit status $?"
[ -s app.err ] && fail "wdapp said: $(cat app.err)"
