# stall: a call that sleeps 5 s under TF_WATCHDOG=1s while recording is
# reported within 2 s, once, with its arguments and the open stack outermost
# first; its return is said once; the snapshot the line names holds the
# entry but no exit, the recording at exit both.
env TF_WATCHDOG=1s TF_MONITORS=app=record "$app" nap 5 > stall.out 2> stall.err || fail "exit status $?"
pid=$(sed -n 's/^tf: watchdog: thread \([0-9]*\) .*/\1/p' stall.err | head -1)
[ -n "$pid" ] || fail "no report"
expect_lines stall stall.err \
    "tf: watchdog: thread $pid \(wdapp\): wdapp\.nap has been open for [0-9.]+ (s|ms); snapshot in tf-record-$pid\.watchdog-1" \
    ' +[0-9.]+ (s|ms)  wdapp\.run\(n=1, seconds=5\)' \
    ' +[0-9.]+ (s|ms)  wdapp\.nap\(seconds=5, why="test"\)' \
    "tf: watchdog: thread $pid \(wdapp\): wdapp\.nap returned after [0-9.]+ s" \
    "tf: record: trace in tf-record-$pid \(2 threads, ring mode\)"
open=$(seconds "$(sed -n '1s/.*has been open for \([0-9.]* m*s\);.*/\1/p' stall.err)")
awk -v t="$open" 'BEGIN { exit !(t >= 1 && t < 2) }' || fail "reported after $open s, not within 2 s of 1 s"
took=$(seconds "$(sed -n '4s/.*returned after //p' stall.err)")
awk -v t="$took" 'BEGIN { exit !(t >= 5 && t < 6) }' || fail "returned after $took s"

"$tfdump" "tf-record-$pid.watchdog-1" > all.txt 2> snapshot.err || fail "tf-dump of the snapshot"
grep -v '(tf-watchdog): counters ' all.txt > snapshot.txt # sampled at 1 s (watch: counters)
expect_lines snapshot snapshot.txt \
    '\[[0-9.]+\] \(wdapp\): wdapp\.run->\(n=1, seconds=5\)' \
    '\[[0-9.]+\] \(wdapp\): wdapp\.nap->\(seconds=5, why="test"\)'
"$tfdump" "tf-record-$pid" > final.txt 2> final.err || fail "tf-dump of the recording"
grep -qE '\(wdapp\): wdapp\.nap<-$' final.txt || fail "the recording at exit has no exit of nap"

# Actions: report alone takes no snapshot; without recording there is none.
env TF_WATCHDOG=500ms,report TF_MONITORS=app=record "$app" nap 1 > report.out 2> report.err || fail "exit status $?"
grep -q 'snapshot' report.err && fail "TF_WATCHDOG=500ms,report took a snapshot"
grep -qE '^tf: watchdog: thread [0-9]+ \(wdapp\): wdapp\.nap has been open for [0-9.]+ (s|ms)$' report.err ||
    fail "no report with TF_WATCHDOG=500ms,report"
[ "$(ls -d tf-record-*.watchdog-* | wc -l)" = 1 ] || fail "more than the first run's snapshot"
env TF_WATCHDOG=500ms "$app" nap 1 > plain.out 2> plain.err || fail "exit status $?"
expect_lines plain plain.err \
    'tf: watchdog: thread [0-9]+ \(wdapp\): wdapp\.nap has been open for [0-9.]+ (s|ms)' \
    ' +[0-9.]+ (s|ms)  wdapp\.run\(n=1, seconds=1\)' \
    ' +[0-9.]+ (s|ms)  wdapp\.nap\(seconds=1, why="test"\)' \
    'tf: watchdog: thread [0-9]+ \(wdapp\): wdapp\.nap returned after [0-9.]+ s'
