#!/usr/bin/env bash
# fuzz.sh FUZZER TF_DUMP SRCDIR WORK [RECORDINGS]: runs the reader's fuzz target for
# TF_FUZZ_SECONDS (default 20) in each mode of fuzz_reader.c: stream files
# of a seed trace made by mkctf.py; and, from RECORDINGS (dump.outputs.gcc's
# work directory: rec/, a recorder's trace, and killed/, a ring file left by
# _exit), a TF metadata with a stream file, and a ring file.
set -euo pipefail
fuzzer=$1 dump=$2 src=$3 work=$4 recs=${5:-}
seconds=${TF_FUZZ_SECONDS:-20}
rm -rf "$work" && mkdir -p "$work/corpus" "$work/trace-corpus" "$work/rings-corpus" && cd "$work"
python3 - > seed.log <<'PY'
import json
for i in range(6):
    for ev in ("enter", "exit"):
        e = {"t": 1000 + 10 * i + (ev == "exit"), "tid": 7, "pid": 7, "thread": "seed", "ev": ev,
             "func": "seed.f", "args": [["i", "int", i], ["s", "str", "x" * i]]}
        if ev == "exit":
            e.pop("args")
            e["result"] = ["float", i / 2]
        print(json.dumps(e))
PY
python3 "$src/mkctf.py" seed.log trace --packet-events=4
cp trace/tf_7 corpus/seed
export TF_FUZZ_METADATA=$work/trace/metadata ASAN_OPTIONS=detect_leaks=0
# inputs that once crashed or hung tf-dump (babeltrace2 2.0's ctf plugin
# aborts on some; on bt2-stall-packet-index it loops, its memory growing)
"$fuzzer" -timeout=10 "$src"/fuzz-regress/* 2>&1 | tail -1
# the stalling one through tf-dump itself: stopped after 10 s without an
# event, said, read as damaged (exit status 1), within a bound
mkdir stall && cp trace/metadata stall/ && cp "$src"/fuzz-regress/bt2-stall-packet-index stall/tf_7
rc=0
timeout -s KILL 60 "$dump" stall > stall.out 2> stall.err || rc=$?
[ "$rc" = 1 ] || { echo "tf-dump on a stalling trace: exit status $rc, not 1"; cat stall.err; exit 1; }
grep -qx "tf-dump: stall: babeltrace2 read no event for 10 s (0 read before): stopped; read as damaged" stall.err ||
    { echo "tf-dump on a stalling trace did not say why it stopped:"; cat stall.err; exit 1; }
"$fuzzer" -max_total_time="$seconds" -timeout=10 -max_len=4096 -close_fd_mask=2 corpus 2>&1 | tail -5
if [ -z "$recs" ] || [ ! -d "$recs/rec" ]; then
    echo "no recordings from dump.outputs.gcc: the trace and rings modes are not fuzzed"
    exit 0
fi
# trace: the metadata's length, the metadata, the smallest stream file
stream=$(ls -S "$recs"/rec/thread-* | tail -n 1)
python3 - "$recs/rec/metadata" "$stream" > trace-corpus/seed <<'PY'
import struct, sys
meta, data = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
sys.stdout.buffer.write(struct.pack("<I", len(meta)) + meta + data)
PY
cp "$recs"/killed/.rings-* rings-corpus/seed
TF_FUZZ_MODE=trace "$fuzzer" -max_total_time="$seconds" -timeout=10 -max_len=65536 -close_fd_mask=2 trace-corpus 2>&1 | tail -3
TF_FUZZ_MODE=rings "$fuzzer" -max_total_time="$seconds" -timeout=10 -max_len=262144 -close_fd_mask=2 rings-corpus 2>&1 | tail -3
