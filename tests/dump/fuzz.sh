#!/usr/bin/env bash
# fuzz.sh FUZZER SRCDIR WORK: runs the reader's fuzz target for
# TF_FUZZ_SECONDS (default 30) from a seed trace made by mkctf.py.
set -euo pipefail
fuzzer=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/corpus" && cd "$work"
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
# inputs that once crashed tf-dump (babeltrace2 2.0's ctf plugin aborts on them)
"$fuzzer" "$src"/fuzz-regress/* 2>&1 | tail -1
"$fuzzer" -max_total_time="${TF_FUZZ_SECONDS:-30}" -max_len=4096 -close_fd_mask=2 corpus 2>&1 | tail -5
