#!/bin/sh
# check.sh PYTHON SELF_TIME WC_TIMING TF_DUMP WORK: records wc-timing counting
# the words of a file, and checks that self_time.py (babeltrace2's Python
# bindings) and tf-dump's database give every function the same calls, total
# and self time, to the nanosecond. Exit 77 (skipped) without python3-bt2.
set -eu
python=$1 self_time=$2 wc=$3 dump=$4 work=$5
"$python" -c "import bt2" 2>/dev/null || { echo "skip: python3-bt2 is not installed for $python"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$self_time" words.txt # something to count
TF_MONITORS='wc=record' TF_RECORD=rec "$wc" words.txt >/dev/null 2>&1
"$python" "$self_time" rec | tail -n +2 | awk '{print $1 "," $2 "," $3 "," $4}' | sort > bt2.csv
"$dump" --format=csv --sql "SELECT full_name, count(dur), sum(dur), sum(self_dur) FROM slice
                            GROUP BY full_name HAVING count(dur) > 0" rec | tail -n +2 | sort > sql.csv
[ "$(wc -l < bt2.csv)" -ge 5 ] || { echo "FAIL: too few functions: $(cat bt2.csv)"; exit 1; }
diff -u sql.csv bt2.csv || { echo "FAIL: self_time.py and tf-dump's database differ"; exit 1; }
echo "ok: $(wc -l < bt2.csv) functions, the same in both"
