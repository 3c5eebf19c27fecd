#!/usr/bin/env bash
# damaged.sh TF_DUMP OUTPUTS_WORK WORK: tf-dump on damaged copies of the
# trace run.sh made (truncated, bit flips, wrong magic). Never a crash; exit
# status 1; the error names the file and an offset; and what it prints is the
# start of what the intact trace gives, per stream.
set -euo pipefail
dump=$1 good=$2/typed work=$3
[ -d "$good" ] || { echo "no trace from dump.outputs.gcc in $good"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$dump" "$good" > intact.txt
stream=$(ls "$good" | grep -v metadata | head -1)
size=$(stat -c %s "$good/$stream")

check() { # NAME: run tf-dump on NAME/, compare with intact.txt
    local name=$1 rc=0
    "$dump" "$name" > "$name.txt" 2> "$name.err" || rc=$?
    if [ "$rc" -ne 1 ]; then echo "$name: exit status $rc, want 1"; cat "$name.err"; exit 1; fi
    grep -q "$name/$stream: damaged .*offset [0-9]" "$name.err" ||
        { echo "$name: no error naming $stream and an offset:"; cat "$name.err"; exit 1; }
    python3 - "$name.txt" intact.txt <<'PY'
import collections, re, sys
def per_thread(path):
    d = collections.defaultdict(list)
    for line in open(path).read().splitlines():
        d[re.match(r"\[[^]]*\] \(([^)]*)\)", line).group(1)].append(line)
    return d
got, want = per_thread(sys.argv[1]), per_thread(sys.argv[2])
for t, lines in got.items():
    if want[t][:len(lines)] != lines:
        sys.exit("%s: thread %s is not a prefix of the intact trace" % (sys.argv[1], t))
if sum(map(len, got.values())) == 0:
    sys.exit("%s: nothing printed before the damage" % sys.argv[1])
PY
    echo "$name: ok ($(wc -l < "$name.txt") lines kept)"
}

damage() { # NAME: a fresh copy of the trace
    cp -r "$good" "$1"
}

damage truncated && truncate -s $((size * 2 / 3)) truncated/$stream && check truncated
# a wrong magic where a packet starts: the packet after the first
damage magic
python3 - magic/$stream <<'PY'
import sys
p = sys.argv[1]; d = bytearray(open(p, "rb").read())
i = d.find(d[:20], 1)
d[i:i + 4] = b"\x00\x00\x00\x00"
open(p, "wb").write(bytes(d))
PY
check magic
# bit flips all over the file: never a crash, always a clear exit status
for seed in 1 2 3 4 5 6 7 8; do
    damage flip$seed
    python3 - flip$seed/$stream $seed <<'PY'
import random, sys
p, seed = sys.argv[1], int(sys.argv[2]); d = bytearray(open(p, "rb").read())
r = random.Random(seed)
for _ in range(4):
    i = r.randrange(len(d)); d[i] ^= 1 << r.randrange(8)
open(p, "wb").write(bytes(d))
PY
    rc=0; "$dump" flip$seed > /dev/null 2> flip$seed.err || rc=$?
    [ "$rc" -le 1 ] || { echo "flip$seed: exit status $rc"; cat flip$seed.err; exit 1; }
done
echo "damaged traces: ok"
