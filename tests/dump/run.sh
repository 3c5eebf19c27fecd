#!/usr/bin/env bash
# run.sh CC PLUGIN_FLAG INCLUDE LIBDIR TF_DUMP WORK
# Builds app.c with a TF plugin, runs it with dprint and logmon on the same
# run, turns the log into CTF (typed, and LTTng-shaped), and checks every
# tf-dump output against what the program did (check.py).
set -euo pipefail
cc=$1 plugin=$2 inc=$3 libdir=$4 dump=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$cc" -O2 -g "$plugin" -I"$inc" -c "$here/app.c" -o app.o
"$cc" -O2 -g -I"$inc" -c "$here/logmon.c" -o logmon.o
"$cc" app.o logmon.o -L"$libdir" -ltf -lpthread -Wl,-rpath,"$libdir" -o app
./app dprint.txt events.log
python3 "$here/mkctf.py" events.log typed --packet-events=32
python3 "$here/mkctf.py" events.log lttng --style=lttng --func=string
babeltrace2 typed > /dev/null # the trace is valid CTF for the reference reader too
for t in typed lttng; do
    "$dump" $t > $t.txt
    python3 "$here/check.py" text $t.txt dprint.txt
done
"$dump" --format=chrome typed > chrome.json
python3 -m json.tool chrome.json > /dev/null
python3 "$here/check.py" chrome chrome.json dprint.txt
for ext in json csv txt; do
    "$dump" --format=report -o report.$ext --flamegraph=flame.svg typed
done
python3 "$here/check.py" report report.json dprint.txt
python3 "$here/check.py" csv report.csv dprint.txt
grep -q "^  app.leaf " report.txt || { echo "text report without app.leaf"; exit 1; }
python3 "$here/check.py" flame flame.svg dprint.txt

# The same program recorded (a CTF trace, and a ring file left by _exit): read
# by tf-dump's own reader, it says what dprint said, and every output equals
# what babeltrace2 reading the same trace gives (the oracle).
TF_RECORD=rec ./app rec.dprint rec.log record 2> rec.err
TF_RECORD=killed TF_RECORD_SIZE=4K TF_RECORD_TOTAL=16K ./app killed.dprint killed.log record-_exit
[ -n "$(ls -A killed | grep '^\.rings-')" ] || { echo "_exit left no ring file: $(ls -A killed)"; exit 1; }
for t in rec killed; do
    "$dump" --reader=tf $t > $t.txt
    python3 "$here/check.py" text $t.txt $t.dprint
done
for fmt in text chrome report; do # (the report's clock line measures this machine's clock reads)
    "$dump" --reader=tf --format=$fmt rec | grep -v '^clock: ' > rec.tf.$fmt
    "$dump" --reader=babeltrace2 --format=$fmt rec | grep -v '^clock: ' > rec.bt.$fmt
    cmp rec.tf.$fmt rec.bt.$fmt || { echo "--format=$fmt: tf-dump's reader and babeltrace2 differ"; exit 1; }
done
echo "all tf-dump outputs agree with dprint"
