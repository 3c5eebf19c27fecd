# watch: tf-watch outside the process. Each death gets its verdict line, the
# recording's state and a JSON record; the exit status is passed through.
ulimit -c 0 # no core files: "(core dumped)" is not part of these lines
export TF_MONITORS=app=record
n=0
# watched NAME EXPECTED_STATUS ARGS...: tf-watch --log log.json -- wdapp ARGS
watched() {
    local name=$1 want=$2
    shift 2
    "$tfwatch" --log log.json -- "$app" "$@" > "$name.out" 2> "$name.err"
    local rc=$?
    [ "$rc" = "$want" ] || fail "$name: exit status $rc, not $want"
    pid=$(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' "$name.err" | head -1)
    n=$((n + 1))
}
w="tf-watch: $app \(pid [0-9]+\)"

watched kill 137 kill
expect_lines kill kill.err "$w killed by SIGKILL; not by the OOM killer" \
    "tf-watch: recording readable at $work/tf-record-$pid \(tf-dump $work/tf-record-$pid\)"
# SIGKILL runs no handler: what is left is the ring file as the hooks wrote
# it, up to the call that was open when the process died.
"$tfdump" "tf-record-$pid" > kill.txt || fail "tf-dump of the killed process's recording"
tail -1 kill.txt | grep -qE 'wdapp\.step->\(how="kill", n=0\)$' ||
    fail "kill: the recording does not end in the open call: $(tail -1 kill.txt)"
watched segv 139 segv 1
expect_lines segv segv.err "tf: record: fatal signal SIGSEGV \(code 1, address 0x1\) in thread-1 'wdapp' \(tid $pid\): writing the flight recorder to tf-record-$pid" \
    "$w killed by SIGSEGV; not by the OOM killer" \
    "tf-watch: recording readable at $work/tf-record-$pid \(tf-dump $work/tf-record-$pid\)"
watched exit3 3 exit 3
expect_lines exit3 exit3.err "tf: record: trace in tf-record-$pid \(2 threads, ring mode\)" \
    "$w exited with status 3" \
    "tf-watch: recording readable at $work/tf-record-$pid \(tf-dump $work/tf-record-$pid\)"
watched exit0 0 none
# tf-watch sets TF_SAMPLE=1s: at exit the watchdog thread takes a last
# sample, the recording's last event however short the run (.wd.sample)
expect_lines exit0 exit0.err "tf: record: trace in tf-record-[0-9]+ \(2 threads, ring mode\)"
dir=$(sed -n 's/^tf: record: trace in \(tf-record-[0-9]*\) .*/\1/p' exit0.err)
"$tfdump" "$dir" > exit0.txt || fail "tf-dump of exit0's recording"
tail -1 exit0.txt | grep -qE '^\[[0-9.]+\] \(tf-watchdog\): counters rss=[1-9][0-9]*, threads=[0-9]+, ' ||
    fail "exit0: the recording does not end in the last sample: $(tail -1 exit0.txt)"
watched damage 4 damage
expect_lines damage damage.err "$w exited with status 4" \
    "tf-watch: recording at $work/tf-record-$pid is damaged: tf-dump: $work/tf-record-$pid/(thread-1|\.rings-$pid-0): .*"

# A hang: no call moves for --hang; the in-process watchdog (TF_WATCHDOG set by
# tf-watch) says where, tf-watch asks for a snapshot and kills it.
"$tfwatch" --hang 1s --on-hang=kill --log log.json -- "$app" nap 30 > hang.out 2> hang.err
[ $? = 137 ] || fail "hang: exit status not 137"
pid=$(sed -n 's/^tf: watchdog: thread \([0-9]*\) .*/\1/p' hang.err | head -1)
expect_lines hang hang.err \
    "tf: watchdog: thread $pid \(wdapp\): wdapp\.nap has been open for [0-9.]+ (s|ms); snapshot in tf-record-$pid\.watchdog-1" \
    ' +[0-9.]+ (s|ms)  wdapp\.run\(n=1, seconds=30\)' \
    ' +[0-9.]+ (s|ms)  wdapp\.nap\(seconds=30, why="test"\)' \
    "$w hung: no monitored call entered or left for [0-9.]+ (s|ms) while 2 calls are open; snapshot in $work/tf-record-$pid\.hang-1" \
    "tf-watch: recording readable at $work/tf-record-$pid\.hang-1 \(tf-dump $work/tf-record-$pid\.hang-1\)" \
    'tf-watch: sending SIGKILL \(--on-hang=kill\)' \
    "$w killed by SIGKILL, sent by tf-watch \(--on-hang=kill\)" \
    "tf-watch: recording readable at $work/tf-record-$pid \(tf-dump $work/tf-record-$pid\)"
"$tfdump" "tf-record-$pid.hang-1" > hang.txt || fail "tf-dump of the hang's snapshot"
grep -q 'wdapp\.nap->(seconds=30, why="test")$' hang.txt || fail "the hang's snapshot has no entry of nap"

# --on-hang=report (the default): a hang, the calls move again, another hang;
# the program ends as it would (status 0, no verdict line for it).
unset TF_MONITORS
"$tfwatch" --hang 500ms -- "$app" naps 2 2 > moves.out 2> moves.err || fail "moves: exit status $?"
[ "$(grep -cE "^$w hung: no monitored call entered or left for [0-9.]+ (s|ms) while 2 calls are open; no snapshot: it records nothing\$" moves.err)" = 2 ] ||
    fail "moves: not two hangs"
grep -qE "^$w moves again\$" moves.err || fail "moves: no 'moves again'"
# A program serving no control socket (not linked with libtf) cannot be judged.
"$tfwatch" --hang 200ms -- sleep 1 > nosock.out 2> nosock.err || fail "nosock: exit status $?"
expect_lines nosock nosock.err "tf-watch: --hang cannot judge sleep \(pid [0-9]+\): process [0-9]+ serves no control socket at $work/run/tf/[0-9]+\.sock: No such file or directory \(was it started with TF_CONTROL=1\?\)"

# --pid: a process that stops answering (SIGSTOP). Its parent execs sleep,
# which never reaps it: tf-watch reads its status from the zombie.
env TF_CONTROL=1 sh -c '"$0" naps 30 1 > /dev/null & echo $!; exec sleep 60' "$app" > parent.out &
parent=$!
for _ in $(seq 100); do [ -s parent.out ] && break; sleep 0.05; done
victim=$(cat parent.out)
for _ in $(seq 100); do [ -S "run/tf/$victim.sock" ] && break; sleep 0.05; done
"$tfwatch" --pid "$victim" --hang 1s --on-hang=kill --log log.json > stop.out 2> stop.err &
watcher=$!
sleep 0.5
kill -STOP "$victim"
wait "$watcher"
[ $? = 137 ] || fail "--pid: exit status not 137"
kill "$parent"
wait "$parent" 2>/dev/null
expect_lines pid stop.err \
    "tf-watch: $app \(pid $victim\) hung: its control socket did not answer for [0-9.]+ (s|ms); no snapshot: it does not answer" \
    'tf-watch: sending SIGKILL \(--on-hang=kill\)' \
    "tf-watch: $app \(pid $victim\) killed by SIGKILL, sent by tf-watch \(--on-hang=kill\)"

# One JSON object per verdict, in order.
python3 - "$app" "$work" <<'PY' || fail "log.json: $(cat log.json)"
import json, sys
app, work = sys.argv[1], sys.argv[2]
records = [json.loads(line) for line in open("log.json")]
want = [("killed", 137, "SIGKILL", True), ("killed", 139, "SIGSEGV", True), ("exit", 3, None, True),
        ("exit", 0, None, None), ("exit", 4, None, False), ("hang", None, None, True), ("killed", 137, "SIGKILL", True),
        ("hang", None, None, None), ("killed", 137, "SIGKILL", None)]
assert len(records) == len(want), len(records)
for r, (verdict, status, signal, readable) in zip(records, want):
    assert r["verdict"] == verdict and r["status"] == status and r["signal"] == signal, r
    assert r["oom"] is False and isinstance(r["pid"], int) and r["time"].endswith("Z"), r
    assert r["program"] == app, r
    assert r["trace_readable"] is readable, r
    assert (r["trace"] is None) == (readable is None), r
    assert r["trace"] is None or r["trace"].startswith(work + "/tf-record-%d" % r["pid"]), r
assert records[5]["detail"].startswith("no monitored call entered or left for "), records[5]
assert records[5]["trace"].endswith(".hang-1"), records[5]
assert records[7]["detail"].startswith("its control socket did not answer for "), records[7]
PY

# Bad input: said exactly, tf-watch's own status 125 (127, 126: PROGRAM not run).
bad() {
    local want=$1 line=$2
    shift 2
    "$tfwatch" "$@" > bad.out 2> bad.err
    local rc=$?
    [ "$rc" = "$want" ] || fail "tf-watch $*: exit status $rc, not $want"
    [ "$(head -1 bad.err)" = "$line" ] || fail "tf-watch $*: said '$(head -1 bad.err)', not '$line'"
}
bad 125 "tf-watch: --hang 2x: not a duration of 10ms or more (a number and ns, us, ms or s)" --hang 2x -- true
bad 125 "tf-watch: --hang 5ms: not a duration of 10ms or more (a number and ns, us, ms or s)" --hang 5ms -- true
bad 125 "tf-watch: --on-hang=boom: expected report, kill or abort" --on-hang=boom -- true
bad 125 "tf-watch: unknown option '--frob'" --frob -- true
bad 125 "tf-watch: --pid takes no PROGRAM" --pid 1 -- true
bad 127 "tf-watch: cannot run ./no-such-program: No such file or directory" -- ./no-such-program
mkdir logdir && ln -s log.json link.json
bad 125 "tf: tf-watch --log: cannot write 'logdir': Is a directory" --log logdir -- true
bad 125 "tf: tf-watch --log: cannot write 'link.json': it is a symbolic link, which TF never follows" --log link.json -- true
