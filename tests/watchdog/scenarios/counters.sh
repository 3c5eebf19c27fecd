# counters: while recording with the watchdog (or TF_SAMPLE, as tf-watch
# sets it), RSS, threads, fds and context switches are sampled into the
# recording; a leak of 1 MiB every 100 ms shows as an RSS that grows, in
# tf-dump's text, babeltrace2 and the Chrome JSON's C tracks. Without either
# variable nothing is sampled.
export TF_MONITORS=app=record
env TF_SAMPLE=100ms "$app" leak 12 100 > leak.out 2> leak.err || fail "exit status $?"
dir=$(ls -d tf-record-*)
expect_lines leak leak.err "tf: record: trace in $dir \(2 threads, ring mode\)"
"$tfdump" "$dir" > leak.txt || fail "tf-dump"
# threads: main, tf-watchdog and tf-exit (libtf's exit thread, armed by the
# recorder for SIGTERM and its kin)
grep -E '^\[[0-9.]+\] \(tf-watchdog\): counters ' leak.txt > counters.txt
grep -vqE '^\[[0-9.]+\] \(tf-watchdog\): counters rss=[0-9]+, threads=3, fds=[0-9]+, ctx_voluntary=[0-9]+, ctx_involuntary=[0-9]+$' counters.txt &&
    fail "a counters line not as expected: $(grep -vE 'threads=3, fds' counters.txt | head -1)"
n=$(wc -l < counters.txt)
[ "$n" -ge 8 ] || fail "$n samples in 1.2 s at 100 ms"
awk -F'rss=|, threads' 'NR == 1 { first = $2 } { if ($2 < last) down++; last = $2 }
    END { exit !(last - first >= 8 * 1048576 && !down) }' counters.txt ||
    fail "RSS does not grow by 8 MiB or more, steadily: $(cut -d' ' -f4 counters.txt | tr '\n' ' ')"
# the samples sit between the calls that leaked: grow's calls before the last sample
grep -n 'wdapp\.grow->' leak.txt | head -1 | grep -q . || fail "no grow calls"
# and the last is taken at exit, after every call (.wd.sample)
tail -1 leak.txt | grep -qE '^\[[0-9.]+\] \(tf-watchdog\): counters ' ||
    fail "the recording does not end in the exit's sample: $(tail -1 leak.txt)"

babeltrace2 "$dir" > leak.bt 2> bt.err || fail "babeltrace2: $(cat bt.err)"
grep -qE 'tf:counters: \{ tid = [0-9]+, thread = "tf-watchdog" \}, \{ rss = [0-9]+, threads = 3, fds = [0-9]+, ctx_voluntary = [0-9]+, ctx_involuntary = [0-9]+ \}$' leak.bt ||
    fail "babeltrace2 shows no tf:counters event"

"$tfdump" --format=chrome "$dir" > leak.json || fail "tf-dump --format=chrome"
python3 - <<'PY' || fail "the Chrome JSON's counter tracks"
import json
events = json.load(open("leak.json"))["traceEvents"]
for name in ("rss", "threads", "fds", "ctx_voluntary", "ctx_involuntary"):
    track = [e for e in events if e["ph"] == "C" and e["name"] == name]
    assert len(track) >= 8 and all(isinstance(e["args"][name], int) for e in track), name
rss = [e["args"]["rss"] for e in events if e["ph"] == "C" and e["name"] == "rss"]
assert rss == sorted(rss) and rss[-1] - rss[0] >= 8 << 20, rss
PY

# Neither TF_WATCHDOG nor TF_SAMPLE: no sampling thread, no counters.
rm -rf tf-record-*
"$app" leak 3 100 > none.out 2> none.err || fail "exit status $?"
expect_lines none none.err "tf: record: trace in tf-record-[0-9]+ \(1 thread, ring mode\)"
env TF_SAMPLE=5 "$app" none > bad.out 2> bad.err || fail "exit status $?"
head -1 bad.err | grep -qxF "tf: TF_SAMPLE: '5' does not start with a duration: a number and a unit (ns, us, ms, s), e.g. 2s; ignored" ||
    fail "bad TF_SAMPLE: $(head -1 bad.err)"
