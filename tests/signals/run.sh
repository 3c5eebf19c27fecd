#!/bin/bash
# run.sh: signal handlers running monitored code (docs/design.md .lock.signal).
#   sigsafe:  sigsafe.c (a signal handler's monitored calls while its thread
#             is inside malloc, on the thread's first traced call) under
#             every built-in monitor that traces; each must finish, have seen
#             the handler's calls and skipped none.
#   untraced: untraced.c; the calls the guard skipped, counted exactly.
#
#   run.sh sigsafe|untraced CC PLUGIN INCLUDE LIBDIR TF_DUMP WORK OPT
set -u
mode=$1 cc=$2 plugin=$3 inc=$4 libdir=$5 dump=$6 work=$7 opt=$8
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

if [ "$mode" = untraced ]; then
    "$cc" -g "$opt" -fplugin="$plugin" -I"$inc" "$here/untraced.c" \
        -L"$libdir" -ltf -Wl,-rpath,"$libdir" -o "$work/untraced" || fail "build with $plugin"
    # untraced N [compose] -> expected count: 3 work() calls, N + 1 skipped each, per monitor
    for args in "5 18" "0 3" "5 compose 36"; do
        set -- $args
        want=${!#}
        (cd "$work" && ./untraced "${@:1:$#-1}" > out 2> err) || fail "untraced $args: exit status $?"
        grep -qx 'monitor saw 4 enters' "$work/out" || fail "untraced $args: $(cat "$work/out")"
        line="tf: $want calls not traced: made while a hook or libtf itself ran on the same thread (a signal handler, or a monitor's own code); counted once per monitor that skipped it"
        grep -qxF "$line" "$work/err" || { cat "$work/err"; fail "untraced $args: not the line for $want"; }
        [ "$(wc -l < "$work/err")" = 1 ] || { cat "$work/err"; fail "untraced $args: more on stderr"; }
    done
    echo "ok: skipped calls counted: 18, 3, and 36 for two monitors"
    exit 0
fi

# -fno-builtin-malloc: GCC would drop the malloc/free pair that raises the signal.
"$cc" -g "$opt" -pthread -fno-builtin-malloc -fplugin="$plugin" -I"$inc" "$here/sigsafe.c" \
    -L"$libdir" -ltf -Wl,-rpath,"$libdir" -o "$work/sigsafe" || fail "build with $plugin"

# run NAME VAR=VALUE...: the program under the environment given; its output in NAME.*
run() {
    local name=$1
    shift
    (cd "$work" && env "$@" ./sigsafe > "$name.out" 2> "$name.err")
    local rc=$?
    [ "$rc" = 0 ] || { cat "$work/$name.out" "$work/$name.err"; fail "$name: exit status $rc"; }
    grep -q '^sigsafe: ok$' "$work/$name.out" || fail "$name: no 'sigsafe: ok'"
    ! grep 'not traced' "$work/$name.err" || fail "$name: calls skipped"
}

# count FILE REGEX: lines matching. The timing report's table rows have more than 5 columns.
count() { grep -cE "$2" "$1"; }

for m in noop tracer timing dprint record 'tracer+timing+dprint+record' 'dprint if depth <= 1'; do
    name=$(echo "$m" | tr -c 'a-z+\n' '_')
    run "$name" TF_MONITORS="sig=$m" TF_OUTPUT="$name.trace" TF_REPORT="$name.report" \
        TF_RECORD="$name.ctf"
    case $m in *tracer*)
        n=$(count "$work/$name.out" '^  sigsafe\.in_handler\(who="handler", n=100\)$')
        [ "$n" = 2 ] || fail "$m: the tracer's context in the handler shown $n times, not 2 (main, worker)"
    esac
    case $m in *timing*)
        calls=$(awk '$1 == "sigsafe.in_handler" && NF > 5 { print $2 }' "$work/$name.report")
        deep=$(awk '$1 == "sigsafe.depth" && NF > 5 { print $2 }' "$work/$name.report")
        [ "$calls/$deep" = 4/210 ] || fail "$m: timing counted in_handler/depth $calls/$deep, not 4/210"
    esac
    case $m in dprint*|*+dprint*)
        n=$(count "$work/$name.trace" '^\(main\): *sigsafe\.in_handler->\(who="handler", n=100\)$')
        [ "$n" = 2 ] || fail "$m: the handler's enter traced $n times, not 2"
    esac
    case $m in *record*)
        n=$("$dump" "$work/$name.ctf" | count /dev/stdin 'sigsafe\.in_handler->\(who="handler", n=100\)$')
        [ "$n" = 2 ] || fail "$m: the handler's enter recorded $n times, not 2"
    esac
done

# dprint line by line: stdio would allocate the stream's buffer at its first line.
run line TF_MONITORS=sig=dprint TF_OUTPUT=line.trace TF_OUTPUT_BUFFER=line
n=$(count "$work/line.trace" 'sigsafe\.in_handler->\(who="handler"')
[ "$n" = 2 ] || fail "dprint line by line: the handler's enter traced $n times, not 2"
# The timing event log, made on the thread's first call too.
run trace TF_MONITORS=sig=timing TF_REPORT=/dev/null TF_TIMING_TRACE=trace.json
grep -q '"name":"sigsafe.in_handler"' "$work/trace.json" || fail "timing trace: no in_handler event"
echo "ok: signal handlers inside malloc under noop, tracer, timing, dprint, record, compositions, a condition"
