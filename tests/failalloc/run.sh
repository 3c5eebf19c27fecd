#!/usr/bin/env bash
# run.sh LIBDIR IOSTREAM API_PROBE TF_DUMP WORK: every allocation of libtf failed in
# turn (README.md). LIBDIR holds the failing-allocation libtf.so.0, which
# LD_LIBRARY_PATH puts before the build's own.
#
# 1. The IOStream example under each monitor: for N = 1, 2, ... until the
#    run no longer reaches allocation N, once failing only the Nth
#    allocation and once the Nth and all after. Each run must end within
#    20 s, by exit 0, with the program's own output unchanged; when the
#    trace it leaves (dprint's lines, the timing report, the recording)
#    differs from the full one, stderr must say that memory ran out.
# 2. api_probe, a program using libtf's whole interface that expects any
#    call to fail for want of memory (the unit tests assume every call
#    succeeds: a NULL they then use would crash their own code), for each N:
#    it must end within 20 s, by exit 0, printing "done".
# TF_DUMP reads the recordings.
set -u
libdir=$1 iostream=$2 probe=$3 tfdump=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export LC_ALL=C
fail() { echo "FAIL: $*"; exit 1; }
failures=0
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run N MODE OUT CMD...: CMD with allocation N failing (MODE "" or "+");
# its status in $rc, the log line in $log.
run() {
    local n=$1 mode=$2 out=$3
    shift 3
    rm -f "$work/fa.log"
    LD_LIBRARY_PATH=$libdir TF_TEST_FAIL_ALLOC=$n$mode TF_TEST_FAIL_ALLOC_LOG=$work/fa.log \
        timeout 20 "$@" > "$out.stdout" 2> "$out.stderr"
    rc=$?
    log=$(cat "$work/fa.log" 2> /dev/null)
}

# The trace a monitor leaves, as text: dprint's lines, the timing report's
# points with their call counts, the recording's events as tf-dump prints
# them without times (addresses differ from run to run).
traced_output() {
    case "$1" in
    dprint) sed 's/0x[0-9a-f]*/ADDR/g' trace.txt 2> /dev/null ;;
    timing) awk '$1 ~ /^iostream\./ && $2 ~ /^[0-9]+$/ {print $1, $2}' report.txt 2> /dev/null | sort -u ;;
    record) "$tfdump" rec 2> /dev/null | sed 's/^\[[0-9.]*\] //; s/0x[0-9a-f]*/ADDR/g' ;;
    compose) traced_output dprint; traced_output timing; traced_output record ;;
    esac
}

monitor_env() { # the environment of one monitor's run
    case "$1" in
    dprint) echo "TF_MONITORS=IO=dprint TF_OUTPUT=$PWD/trace.txt" ;;
    timing) echo "TF_MONITORS=IO=timing TF_REPORT=$PWD/report.txt" ;;
    record) echo "TF_MONITORS=IO=record TF_RECORD=$PWD/rec" ;;
    compose) echo "TF_MONITORS=IO=dprint+tracer+timing+record TF_OUTPUT=$PWD/trace.txt TF_REPORT=$PWD/report.txt TF_RECORD=$PWD/rec" ;;
    *) echo "TF_MONITORS=IO=$1" ;;
    esac
}

clean_outputs() { rm -rf trace.txt report.txt rec; }

# FA_ONE=MONITOR:N[+] runs that one case and shows where allocation N was
# asked for (a maintainer's aid: which branch to look at).
if [ -n "${FA_ONE:-}" ]; then
    m=${FA_ONE%%:*} n=${FA_ONE#*:}
    clean_outputs
    LD_LIBRARY_PATH=$libdir TF_TEST_FAIL_ALLOC=$n TF_TEST_FAIL_ALLOC_TRACE=1 \
        env $(monitor_env "$m") "$iostream" > r.stdout 2> r.stderr
    echo "status $?"
    grep -v '^/\|^\[' r.stderr
    grep -o 'libtf.so.0(+0x[0-9a-f]*)' r.stderr | sed 's/.*(+\(0x[0-9a-f]*\))/\1/' |
        while read -r off; do addr2line -f -e "$libdir/libtf.so.0" "$off" | head -1; done | tr '\n' ' '
    echo
    traced_output "$m" > r.trace
    clean_outputs
    LD_LIBRARY_PATH=$libdir env $(monitor_env "$m") "$iostream" > /dev/null 2>&1
    traced_output "$m" | diff - r.trace | head -5
    exit 0
fi

"$iostream" > plain.stdout 2> /dev/null || fail "the example fails untraced"
for m in noop dprint tracer timing record compose; do
    clean_outputs
    env $(monitor_env $m) LD_LIBRARY_PATH="$libdir" "$iostream" > full.stdout 2> full.stderr ||
        fail "$m: the example fails with no allocation failing"
    traced_output $m > full.trace
    cmp -s plain.stdout full.stdout || fail "$m: the program's output differs even with no failure"
    for mode in "" "+"; do
        n=0 runs=0
        while :; do
            n=$((n + 1))
            clean_outputs
            run $n "$mode" r env $(monitor_env $m) "$iostream"
            runs=$((runs + 1))
            what="$m, allocation $n$mode failing"
            [ $rc = 124 ] && bad "$what: hung (killed after 20 s)"
            [ $rc -ge 128 ] && bad "$what: killed by signal $((rc - 128)): $(tail -3 r.stderr)"
            [ $rc -ne 0 ] && [ $rc -lt 124 ] && bad "$what: exit status $rc: $(tail -3 r.stderr)"
            cmp -s plain.stdout r.stdout || bad "$what: the program's output changed"
            traced_output $m > r.trace
            if ! cmp -s full.trace r.trace && ! grep -q 'out of memory\|Cannot allocate memory' r.stderr; then
                bad "$what: less was traced, and stderr does not say memory ran out"
                diff full.trace r.trace | head -5
            fi
            case "$log" in
            *"allocations"*) break ;; # the run ended before allocation n
            esac
            [ $failures -lt 20 ] || fail "too many failures"
        done
        echo "$m${mode:+ (persistent)}: $runs runs, allocations 1 to $((n - 1)) failed in turn"
    done
done

# The interface, each allocation failing in turn, once or for good.
for mode in "" "+"; do
    n=0
    while :; do
        n=$((n + 1))
        rm -rf snap
        run $n "$mode" p "$probe" "$work/snap"
        what="api_probe, allocation $n$mode failing"
        [ $rc = 124 ] && bad "$what: hung (killed after 20 s)"
        [ $rc -ge 128 ] && bad "$what: killed by signal $((rc - 128)): $(tail -3 p.stderr)"
        [ "$(cat p.stdout)" = done ] || bad "$what: status $rc, output '$(head -c 200 p.stdout)'"
        case "$log" in *"allocations"*) break ;; esac
        [ $failures -lt 20 ] || fail "too many failures"
    done
    echo "api_probe${mode:+ (persistent)}: $n runs, allocations 1 to $((n - 1)) failed in turn"
done
[ $failures = 0 ] || fail "$failures runs went wrong"
echo "PASS: failalloc"
