#!/bin/bash
# run-survive.sh: the recorder on the bad days (docs/design.md .rec):
# survive.c built with a compiler plugin, ended every way a process ends, and
# what tf-dump (and babeltrace2, where the trace was written) reads after.
#
#   run-survive.sh CC PLUGIN INCLUDE LIBDIR TF_DUMP WORK MODE
#
# MODE: sigkill, kill, _exit, exec (known(7) then that), term, term-handler,
# int, hup, quit, timing-term, churn, rare, prof, torn, gcore, crash-core,
# stream-kill, stream-full, ring-full, bad-input, damaged. Exit 0 pass, 1 fail, 77 skip.
# Every program started here is killed by its pid, and each run has a
# deadline (timeout) below ctest's.
set -u
cc=$1 plugin=$2 inc=$3 libdir=$4 dump=$5 work=$6 mode=$7
here=$(cd "$(dirname "$0")" && pwd)
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
export LC_ALL=C
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
$cc -fplugin="$plugin" -I"$inc" -g -O2 "$here/survive.c" -o sv -L"$libdir" -ltf \
    -Wl,-rpath,"$libdir" -pthread 2> build.log || { cat build.log; echo "FAIL: building survive.c"; exit 1; }

fail() { echo "FAIL: $mode $cc: $*"; exit 1; }
pid= dog=
cleanup() {
    [ -n "$pid" ] && kill -KILL "$pid" 2> /dev/null
    [ -n "$dog" ] && kill -KILL "$dog" 2> /dev/null
}
trap cleanup EXIT
# start CMD...: CMD recording into t, in the background (pid: its own pid, so
# signals go to it), killed after 50 s at the latest; waits for "ready"
start() {
    env "${envs[@]}" "$@" > out 2> err &
    pid=$!
    python3 -c 'import os, sys, time; time.sleep(50); os.kill(int(sys.argv[1]), 9)' "$pid" 2> /dev/null &
    dog=$!
    for _ in $(seq 200); do grep -q ready out 2> /dev/null && return 0; sleep 0.05; done
    fail "the program never said ready: $(cat err)"
}
finish() { wait "$pid"; rc=$?; pid=; kill -KILL "$dog" 2> /dev/null; wait "$dog" 2> /dev/null; dog=; }
envs=(TF_MONITORS=sv=record TF_RECORD=t)
ring_file() { ls -A t | grep '^\.rings-' | head -n 1; }
dump_ok() { # dump_ok ARGS...: tf-dump's text into got, its stderr into dump.err, status 0
    "$dump" "$@" > got 2> dump.err || { cat dump.err; fail "tf-dump $* failed"; }
}
# After a kill, the last complete events are a run of hot(i) calls without a gap.
hot_run() {
    python3 - got <<'PY' || fail "the events read after the kill are not whole calls in order"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
enters = [int(m.group(1)) for l in lines for m in [re.search(r"survive\.hot->\(i=(\d+)\)$", l)] if m]
assert len(enters) > 10000, "only %d calls" % len(enters)
assert all(b == a + 1 for a, b in zip(enters, enters[1:])), "a gap in the calls"
assert all(re.search(r"\(sv\): survive\.hot(->\(i=\d+\)|<-\(\d+\))$", l) for l in lines), "an odd line"
PY
}
last_is() { [ "$(tail -n 1 got | sed 's/^\[[0-9.]*\] //')" = "$1" ] || fail "last event '$(tail -n 1 got)', want '$1'"; }

case $mode in
sigkill) # killed from outside in the middle of a hot loop
    start ./sv spin
    sleep 0.3
    kill -KILL "$pid"; finish
    [ "$rc" = 137 ] || fail "exit status $rc, want 137"
    [ -n "$(ring_file)" ] || fail "no ring file in t: $(ls -A t)"
    [ ! -e t/metadata ] || fail "a metadata file although the process never wrote its trace"
    dump_ok t
    hot_run
    dump_ok "t/$(ring_file)" # the ring file named by itself reads the same
    ;;
kill|_exit|exec) # known(7) right before the end: the last event of the recording
    declare -A want=([kill]=137 [_exit]=3 [exec]=0)
    env "${envs[@]}" timeout -s KILL 60 ./sv known "$mode" > out 2> err; rc=$?
    [ "$rc" = "${want[$mode]}" ] || fail "exit status $rc, want ${want[$mode]}"
    dump_ok t
    [ "$(wc -l < got)" = 2 ] || fail "want 2 events, got: $(cat got)"
    head -n 1 got | grep -q ' (sv): survive.known->(x=7)$' || fail "first event: $(head -n 1 got)"
    last_is '(sv): survive.known<-(14)'
    ;;
term|int|hup|quit) # the default action, after the recording is written
    declare -A num=([term]=15 [int]=2 [hup]=1 [quit]=3) name=([term]=SIGTERM [int]=SIGINT [hup]=SIGHUP [quit]=SIGQUIT)
    ulimit -c 0 # SIGQUIT's default action dumps core
    # A background job of a script ignores SIGINT and SIGQUIT: their default action back first.
    start python3 -c 'import os, signal as s, sys; s.signal(s.SIGINT, s.SIG_DFL); s.signal(s.SIGQUIT, s.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' ./sv term
    kill -"${name[$mode]#SIG}" "$pid"; finish
    [ "$rc" = $((128 + ${num[$mode]})) ] || fail "exit status $rc, want $((128 + ${num[$mode]}))"
    grep -Eq "^tf: record: signal ${name[$mode]} \(code 0\) in thread-1 'sv' \(tid [0-9]+\): writing the flight recorder to t$" err ||
        fail "no message naming the signal and the thread: $(cat err)"
    grep -q '^tf: record: trace in t (1 thread, ring mode)$' err || fail "no summary: $(cat err)"
    [ -z "$(ring_file)" ] || fail "the ring file is left although the trace was written"
    babeltrace2 t > bt.txt 2> bt.err || { cat bt.err; fail "babeltrace2 cannot read the trace"; }
    dump_ok --reader=tf t
    last_is "(sv): signal ${name[$mode]} (code 0)"
    tail -n 2 got | head -n 1 | grep -Eq ' \(sv\): survive.hot(->\(i=1\)|<-\([0-9]+\))$' || fail "before the signal: $(tail -n 2 got)"
    ;;
term-handler) # the program's own handler stays; its exit writes the recording
    start ./sv term handler
    kill -TERM "$pid"; finish
    [ "$rc" = 0 ] || fail "exit status $rc, want 0 (the handler returns, main returns)"
    grep -q 'signal SIGTERM' err && fail "libtf took a signal the program handles: $(cat err)"
    dump_ok t
    last_is '(sv): survive.known<-(14)'
    ;;
timing-term) # TF_REPORT too, and a tf-ctl report requested earlier is not cut short
    envs=(TF_MONITORS=sv=timing TF_REPORT=r.json)
    start ./sv term
    kill -TERM "$pid"; finish
    [ "$rc" = 143 ] || fail "exit status $rc, want 143"
    python3 -c 'import json, sys; r = json.load(open("r.json")); assert any(p["name"] == "survive.hot" for p in r["timers"]), r' ||
        fail "no timing report with survive.hot: $(cat r.json)"
    ;;
churn) # thousands of short-lived threads: memory within the budget, files bounded
    envs+=(TF_RECORD_SIZE=256K TF_RECORD_TOTAL=4M)
    plain=$(timeout -s KILL 100 ./sv churn 1000 20000 4) || fail "the plain run failed"
    env "${envs[@]}" timeout -s KILL 100 ./sv churn 1000 20000 4 > out 2> err || fail "the recorded run failed: $(cat err)"
    rec=$(cat out)
    # 4 MiB of packets, and the ring file's tables (1 KiB at this size), within 10 %
    [ $((rec - plain)) -le $((4096 * 11 / 10)) ] || fail "RSS grew by $((rec - plain)) KiB (plain $plain, recorded $rec), budget 4096 KiB"
    files=$(ls t | grep -c '^thread-')
    [ "$files" -le 64 ] || fail "$files thread files, want at most 64 (4 MiB of 64 KiB packets)"
    [ "$(du -sk t | cut -f1)" -le $((4096 + 64)) ] || fail "the trace takes $(du -sk t | cut -f1) KiB"
    grep -Eq 'ended threads.* events dropped entirely' err || fail "the dropped threads are not said: $(cat err)"
    dump_ok t
    grep -Eq "^tf-dump: t: the events of [0-9]+ ended threads were dropped to stay within TF_RECORD_TOTAL$" dump.err ||
        fail "tf-dump does not say the dropped threads: $(cat dump.err)"
    echo "RSS: plain $plain KiB, recorded $rec KiB; $files thread files"
    ;;
rare) # an info point and an exception survive ten million hot calls
    env "${envs[@]}" timeout -s KILL 100 ./sv rare 10000000 > out 2> err || fail "rare failed: $(cat err)"
    grep -q 'older events overwritten' err || fail "the ring was not overwritten: $(cat err)"
    dump_ok t
    grep -q ' (sv): survive.rare::(note)(what="rare", v=42)$' got || fail "the info point is gone"
    grep -q ' (sv): survive.jumper:throw:noreturn(longjmp)$' got || fail "the exception is gone"
    grep -q ' (sv): survive.rare->(v=42)$' got || fail "the call around the info point is gone"
    tail -n 1 got | grep -q ' (sv): survive.hot<-' || fail "the last hot call is missing: $(tail -n 1 got)"
    ;;
prof) # a SIGPROF handler records: both counts of lost events agree
    env "${envs[@]}" timeout -s KILL 100 ./sv prof > out 2> err || fail "prof failed: $(cat err)"
    said=$(sed -nE 's/.*; ([0-9]+) events discarded, which: ([0-9]+) began while the same thread was recording another.*/\1 \2/p' err)
    dump_ok t
    read_=$(sed -nE 's/^tf-dump: t: the recorder discarded ([0-9]+) events .*: ([0-9]+) began while the same thread was recording another.*/\1 \2/p' dump.err)
    [ -n "$said" ] && [ "$said" = "$read_" ] || fail "the program said '$said', tf-dump '$read_': $(cat err dump.err)"
    ;;
torn) # an event half written when the process stopped: left out, and said
    # The kill may fall between two packets of the thread (its ring then has
    # no open packet, pos 0, and no event can be half written): run again.
    for try in 1 2 3 4 5 6 7 8 9 10; do
        rm -rf t
        start ./sv spin
        kill -KILL "$pid"; finish
        f=t/$(ring_file)
        dump_ok t
        cp got whole
        # the first ring record claims an event in progress, and garbage follows the commit
        python3 - "$f" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
rings_off, base = struct.unpack_from("<Q", d, 40)[0], struct.unpack_from("<Q", d, 64)[0]
pos = struct.unpack_from("<Q", d, rings_off)[0]
if pos == 0:
    sys.exit(3)  # no open packet at the kill
at = pos - base
if not 0 < at <= len(d) - 4:
    sys.exit("the first ring's pos %#x is outside the file (base %#x)" % (pos, base))
struct.pack_into("<I", d, rings_off + 24, 1)       # busy
d[at:at + 4] = struct.pack("<I", 0x7fffffe0 | 16)  # a compact header: class 16, then garbage
open(sys.argv[1], "wb").write(bytes(d))
PY
        rc=$?
        [ "$rc" = 3 ] || break
    done
    [ "$rc" = 0 ] || fail "could not make a torn event (python: $rc)"
    dump_ok t
    cmp -s got whole || fail "the torn event changed what is read"
    grep -q "thread-1 was writing an event when the process stopped; that event is left out" dump.err ||
        fail "the torn event is not said: $(cat dump.err)"
    ;;
gcore) # a core of a live process, with and without the rings in it
    command -v gcore > /dev/null || { echo "skip: gdb's gcore is not installed (Debian package gdb)"; exit 77; }
    start ./sv spin
    kill -STOP "$pid"
    cp "t/$(ring_file)" rings.copy
    echo 0x3b > /proc/$pid/coredump_filter # shared file mappings too: the rings
    gcore -o with "$pid" > gcore.log 2>&1 || { cat gcore.log; fail "gcore failed"; }
    echo 0x33 > /proc/$pid/coredump_filter # the default: no shared file mapping
    gcore -o without "$pid" > gcore.log 2>&1 || { cat gcore.log; fail "gcore failed"; }
    core=$pid
    kill -KILL "$pid"; finish
    "$dump" rings.copy > want 2> /dev/null
    rm -f "t/$(ring_file)"
    dump_ok --core "with.$core" ./sv
    cmp -s got want || fail "the rings out of the core differ from the ring file's"
    hot_run
    "$dump" --core "without.$core" ./sv > got 2> dump.err && fail "the rings were read from a core that lacks them"
    grep -q "neither in the core nor in .*coredump_filter has bit 3" dump.err || fail "no reason given: $(cat dump.err)"
    ;;
crash-core) # a crash's core holds the rings: the recorder removed their file before it
    pattern=$(cat /proc/sys/kernel/core_pattern)
    case $pattern in \|*|/*) echo "skip: core_pattern '$pattern' does not write cores here"; exit 77 ;; esac
    ulimit -c unlimited 2> /dev/null || { echo "skip: core dumps are limited to 0 bytes here (ulimit -c)"; exit 77; }
    env "${envs[@]}" timeout -s KILL 60 ./sv segv > out 2> err; rc=$?
    [ "$rc" = 139 ] || fail "exit status $rc, want 139"
    core=$(ls | grep -E '^core' | head -n 1)
    [ -n "$core" ] || { echo "skip: no core was written (core_pattern '$pattern')"; exit 77; }
    dump_ok t
    cp got want
    dump_ok --core "$core" ./sv
    cmp -s got want || { diff want got | head; fail "the core's rings differ from the trace"; }
    last_is '(sv): signal SIGSEGV (code 1, address 0x0)'
    tail -n 2 got | head -n 1 | grep -q ' (sv): survive.known<-(14)$' || fail "before the crash: $(tail -n 2 got)"
    ;;
stream-kill) # stream mode's metadata is there before the kill
    envs+=(TF_RECORD_MODE=stream)
    start ./sv spin
    sleep 0.05 # the writer's 5 ms period, ten times over; every event is written: keep it small
    kill -KILL "$pid"; finish
    [ -s t/metadata ] || fail "no metadata in t"
    # a packet a page, written whole: a kill in a write leaves whole pages (.rec.stream.page)
    page=$(getconf PAGESIZE)
    for f in t/thread-*; do
        size=$(stat -c %s "$f")
        [ $((size % page)) = 0 ] || fail "$f is $size bytes, not a whole number of $page-byte packets"
    done
    babeltrace2 t > bt.txt 2> bt.err || { cat bt.err; fail "babeltrace2 cannot read the killed stream"; }
    dump_ok --reader=tf t
    hot_run
    ;;
stream-full) # a 1 MiB tmpfs: said once, what fits stays readable, the loss counted
    unshare -m true 2> /dev/null || { echo "skip: unshare -m is not permitted here"; exit 77; }
    mkdir small
    unshare -m sh -c "mount -t tmpfs -o size=1m tf-test small && cd small &&
        env TF_MONITORS=sv=record TF_RECORD=t TF_RECORD_MODE=stream timeout -s KILL 60 ../sv rare 2000000 > ../out 2> ../err;
        echo \$? > ../rc; cp -r t ../t" || fail "the tmpfs run failed"
    [ "$(cat rc)" = 0 ] || fail "exit status $(cat rc): $(cat err)"
    [ "$(grep -c 'cannot write' err)" = 1 ] || fail "want one line saying it cannot write, got: $(cat err)"
    grep -Eq '; [0-9]+ packets could not be written to the disk' err || fail "the loss is not counted: $(cat err)"
    [ -s t/metadata ] || fail "the metadata is empty"
    babeltrace2 t > bt.txt 2> bt.err || { cat bt.err; fail "babeltrace2 cannot read what fitted"; }
    dump_ok t
    grep -Eq '^tf-dump: t/thread-1: [0-9]+ packets are missing \(their sequence numbers are skipped\): stream mode could not write them$' dump.err ||
        fail "tf-dump does not say the loss: $(cat dump.err)"
    grep -q ' (sv): survive.rare::(note)(what="rare", v=42)$' got || fail "the first events are not in what fitted"
    ;;
ring-full) # ring mode on a 1 MiB tmpfs: no SIGBUS, said once, the rings still read
    unshare -m true 2> /dev/null || { echo "skip: unshare -m is not permitted here"; exit 77; }
    mkdir small
    unshare -m sh -c "mount -t tmpfs -o size=1m tf-test small && cd small &&
        env TF_MONITORS=sv=record TF_RECORD=t timeout -s KILL 60 ../sv rare 200000 > ../out 2> ../err;
        echo \$? > ../rc; cp -a t ../t" || fail "the tmpfs run failed"
    [ "$(cat rc)" = 0 ] || fail "exit status $(cat rc): $(cat err)"
    [ "$(grep -c "no room in 't' for more of the ring file" err)" = 1 ] || fail "want the full disk said once: $(cat err)"
    grep -Eq "^tf: record: the trace directory 't' could not be written in full; its ring file stays, and tf-dump reads the recording from it: \.rings-[0-9]+-0$" err ||
        fail "what stays is not said: $(cat err)"
    dump_ok t
    grep -q ' (sv): survive.rare::(note)(what="rare", v=42)$' got || fail "the info point is gone"
    tail -n 1 got | grep -q ' (sv): survive.hot<-' || fail "the last call is missing: $(tail -n 1 got)"
    ;;
bad-input) # what is no core, no ring file: said, never a crash
    said() { # said STATUS MESSAGE ARGS...: tf-dump ARGS exits STATUS saying MESSAGE
        local want=$1 msg=$2 rc=0; shift 2
        "$dump" "$@" > got 2> dump.err || rc=$?
        [ "$rc" = "$want" ] || fail "tf-dump $*: exit status $rc, want $want"
        grep -qxF "$msg" dump.err || fail "tf-dump $*: want '$msg', got: $(cat dump.err)"
    }
    echo hello > notacore
    said 2 "tf-dump: --core wants a core file (and the executable)" --core
    said 1 "tf-dump: notacore: not a 64-bit ELF core dump" --core notacore ./sv
    said 1 "tf-dump: nothere: cannot be read" --core nothere ./sv
    mkdir d && head -c 8192 /dev/urandom > d/.rings-1-0
    said 1 "tf-dump: d/.rings-1-0: not a ring file of this version (no TFRINGS1 header)" d
    : > d/.rings-1-0
    said 1 "tf-dump: d/.rings-1-0: not a ring file (empty, or cannot be mapped)" d
    # a real ring file cut short
    env "${envs[@]}" timeout -s KILL 60 ./sv known _exit > out 2> err
    f=t/$(ring_file)
    truncate -s 100000 "$f"
    said 1 "tf-dump: $f: it is shorter than its header says (cut short?)" t
    # a metadata tf-dump's reader does not know: refused with where and why
    env TF_MONITORS=sv=record TF_RECORD=m timeout -s KILL 60 ./sv rare 10 > out 2> err
    line=$(grep -n 'tracer_name' m/metadata | cut -d: -f1)
    sed -i 's/tracer_name = "tf"/tracer_name = "other"/' m/metadata
    said 1 "tf-dump: m: not a recording tf-dump's own reader knows: line $line: tracer_name is \"other\", not \"tf\"" --reader=tf m
    ;;
damaged) # a damaged packet in the middle of a file: read on, say what was skipped
    env "${envs[@]}" TF_RECORD_SIZE=64K timeout -s KILL 60 ./sv rare 20000 > out 2> err || fail "rare failed"
    "$dump" t > whole 2> /dev/null || fail "tf-dump cannot read the intact trace"
    python3 - t/thread-1 <<'PY' > cut || fail "cannot damage the trace"
import struct, sys
p = sys.argv[1]; d = bytearray(open(p, "rb").read())
at, starts = 0, []
while at < len(d):
    starts.append(at)
    at += struct.unpack_from("<I", d, at + 24)[0] // 8
k = len(starts) // 2
a, b = starts[k], starts[k + 1]
open("middle", "wb").write(d[a:b])      # the packet, for the events it holds
d[a:a + 4] = b"\0\0\0\0"
open(p, "wb").write(bytes(d))
print(a, b - 1)
PY
    read a b < cut
    mkdir alone && cp t/metadata alone/ && cp middle alone/thread-1
    "$dump" alone > lost 2> /dev/null || fail "the damaged packet alone cannot be read"
    rc=0; "$dump" t > got 2> dump.err || rc=$?
    [ "$rc" = 1 ] || fail "exit status $rc, want 1"
    grep -qx "tf-dump: t/thread-1: bytes $a-$b skipped: the packet header's magic is 0x00000000, not 0xc1fc1fc1" dump.err ||
        fail "the skip is not said exactly: $(cat dump.err)"
    grep -vxFf lost whole > want
    cmp -s got want || fail "what was read is not the whole trace without the damaged packet's events"
    [ -s lost ] && [ "$(wc -l < got)" -gt "$(wc -l < lost)" ] || fail "nothing read on either side"
    ;;
*) fail "unknown mode" ;;
esac
echo "ok: $mode $cc"
