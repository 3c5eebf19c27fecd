#!/bin/bash
# run.sh: the factory `lttng` with the real LTTng daemons (docs/design.md
# .lttng).
#
#   run.sh SCENARIO --cc CC --plugin PATH --include DIR --libdir DIR --work DIR SRC
#
# SCENARIO: net (a session streamed to lttng-relayd holds exactly dprint's
# events), live (a viewer sees events while the program runs), snapshot (a
# snapshot taken after the program crashed holds its last events), multi (two
# processes and a forked child in one session), alone (no session daemon:
# the program runs as it does untraced).
#
# Each run starts its own lttng-sessiond and lttng-relayd, with LTTNG_HOME in
# a temporary directory and the relay on 127.0.0.1 at free ports, and stops
# them by pid, whatever happens. Run as root (CI), everything LTTng-related
# runs as the user nobody: a root session daemon would use the system's
# /var/run/lttng, and one per user is what keeps parallel tests apart.
# Exit 0 pass, 1 fail, 77 skip (LTTng or libtf-lttng.so absent).
set -u
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# Whether liblttng-ust forks as the program starts depends on files earlier
# runs left in /dev/shm (its wait file): each run gets a fresh, empty one of
# its own, in a private mount namespace, so the machine's history can hide
# nothing (a deadlock of libtf's once did).
if [ -z "${TF_FRESH_SHM:-}" ]; then
    [ "$(id -u)" = 0 ] || skip "a fresh /dev/shm needs root (unshare -m); run as root, as CI does"
    command -v unshare > /dev/null || skip "unshare not installed (Debian: util-linux)"
    exec unshare -m --propagation private env TF_FRESH_SHM=1 sh -c \
        'mount -t tmpfs -o mode=1777,size=256m tf-fresh-shm /dev/shm && exec "$0" "$@"' "$0" "$@"
fi
scenario=$1; shift
cc= plugin= inc= libdir= work= src=
while [ $# -gt 0 ]; do
    case "$1" in
    --cc) cc=$2; shift 2 ;;
    --plugin) plugin=$2; shift 2 ;;
    --include) inc=$2; shift 2 ;;
    --libdir) libdir=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) src=$1; shift ;;
    esac
done
export LC_ALL=C

for tool in lttng lttng-sessiond lttng-relayd babeltrace2 ss; do
    command -v $tool > /dev/null ||
        skip "$tool not installed (Debian: lttng-tools babeltrace2 iproute2)"
done
[ -f "$libdir/libtf-lttng.so" ] ||
    skip "$libdir/libtf-lttng.so not built (Debian: liblttng-ust-dev)"

rm -rf "$work" && mkdir -p "$work" || exit 1
app=$work/app
$cc -fplugin="$plugin" -I"$inc" -g -O2 -Wall "$src" -o "$app" -L"$libdir" -ltf \
    -Wl,-rpath,"$libdir" -pthread 2> "$work/build.log" ||
    { cat "$work/build.log"; fail "building $src with $plugin"; }

. "$here/daemons.sh"
daemons_setup || fail "cannot set up a private LTTng home"
trap daemons_stop EXIT
as_user test -x "$app" -a -r "$libdir/libtf-lttng.so" ||
    fail "user $(as_user id -un) cannot run $app or read $libdir (a directory above is not world-searchable)"
[ "$scenario" = alone ] || sessiond_start || fail "lttng-sessiond did not start"

# bt2dprint: babeltrace2's text of tf:* events as dprint lines,
# "(<procname>): <line>", each followed by " @<vpid>/<vtid>/<tid>".
bt2dprint() {
    sed -nE '/ tf:[a-z]+: /!d
        s/\\\\/\x01/g; s/\\"/"/g; s/\x01/\\/g
        s/^.* (tf:[a-z]+): \{ cpu_id = [0-9]+ \}, \{ vpid = ([0-9]+), vtid = ([0-9]+), procname = "([^"]*)" \}, \{ func = "([^"]*)", (.*), tid = ([0-9]+) \}$/\1 (\4): \5 \6 @\2\/\3\/\7/
        s/^(tf:[a-z]+ .*)(args|result) = "void" /\1\2 = "" /
        s/^tf:enter ([^ ]+ [^ ]+) args = "(.*)" (@.*)$/\1->(\2) \3/p
        s/^tf:exit ([^ ]+ [^ ]+) result = "" (@.*)$/\1<- \2/p
        s/^tf:exit ([^ ]+ [^ ]+) result = "(.*)" (@.*)$/\1<-(\2) \3/p
        s/^tf:info ([^ ]+ [^ ]+) info = "[^".]*\.([^"]*)", tp = \( "[a-z]+" : container = [0-9] \), args = "(.*)" (@.*)$/\1::(\2)(\3) \4/p
        s/^tf:exception ([^ ]+ [^ ]+) kind = \( "noreturn" : container = 3 \), type = "(.*)" (@.*)$/\1:throw:noreturn(\2) \3/p
        s/^tf:exception ([^ ]+ [^ ]+) kind = \( "[a-z]+" : container = [0-9] \), type = "(.*)" (@.*)$/\1:throw:\2 \3/p'
}

# read_trace DIR OUT: the trace as dprint lines; every tf event must convert.
read_trace() {
    babeltrace2 "$1" > "$2.bt" 2> "$2.bt.err" || { cat "$2.bt.err"; fail "babeltrace2 $1"; }
    bt2dprint < "$2.bt" > "$2"
    local events lines
    events=$(grep -c ' tf:[a-z]*: ' "$2.bt")
    lines=$(wc -l < "$2")
    [ "$events" -gt 0 ] || fail "no tf events in $1"
    [ "$events" = "$lines" ] || { grep ' tf:' "$2.bt" | head -5; fail "$events tf events but $lines understood"; }
    # the event's own tid is the thread LTTng saw
    awk '{ split($NF, t, "/"); if (t[2] != t[3]) { print "tid mismatch: " $0; bad = 1 } } END { exit bad }' "$2" ||
        fail "a tf event's tid differs from LTTng's vtid"
}

# of_pid PID FILE: the lines of process PID, without the ids.
of_pid() { grep " @$1/" "$2" | sed -E 's/ @[0-9/]+$//'; }

session_events() { # session_events NAME: the usual events and contexts
    lt enable-event -u -s "$1" 'tf:*' > /dev/null &&
        lt add-context -u -s "$1" -t vpid -t vtid -t procname > /dev/null &&
        lt start "$1" > /dev/null
}

traced() { as_user env TF_MONITORS=app=lttng "$app" "$@"; }
traced_bg() { as_user_bg env TF_MONITORS=app=lttng "$app" "$@"; }

dprint_of() { # dprint_of OUT MODE: the same program under dprint, as root
    TF_MONITORS=app=dprint TF_OUTPUT="$work/dprint" "$app" "$2" > /dev/null && mv "$work/dprint" "$1"
}

scenario_net() {
    relayd_start || fail "lttng-relayd did not start"
    lt create s --set-url="net://127.0.0.1:$port_ctrl:$port_data" > /dev/null || fail "lttng create"
    session_events s || fail "lttng session set-up"
    traced run > "$tmp/app.out" || fail "the traced program failed"
    lt stop s > /dev/null && lt destroy s > /dev/null || fail "lttng stop/destroy"
    read_trace "$tmp/relay" "$tmp/trace"
    dprint_of "$tmp/dprint" run || fail "the program under dprint failed"
    pid=$(sed -n 's/^pid //p' "$tmp/app.out")
    of_pid "$pid" "$tmp/trace" > "$tmp/lttng"
    diff -u "$tmp/dprint" "$tmp/lttng" || fail "the relay's trace differs from dprint's lines"
    grep -q '^(worker): ' "$tmp/lttng" || fail "no event of the second thread"
}

scenario_live() {
    relayd_start || fail "lttng-relayd did not start"
    lt create s --live=100000 --set-url="net://127.0.0.1:$port_ctrl:$port_data" > /dev/null ||
        fail "lttng create --live"
    session_events s || fail "lttng session set-up"
    traced_bg wait "$tmp/go" > "$tmp/app.out"
    app_pid=$bg_pid
    babeltrace2 --input-format=lttng-live \
        "net://127.0.0.1:$port_live/host/$(uname -n)/s" > "$tmp/live.bt" 2> "$tmp/live.err" &
    viewer_pid=$!
    for _ in $(seq 200); do
        grep -q ' tf:enter: ' "$tmp/live.bt" && break
        alive $app_pid || break
        sleep 0.1
    done
    grep -q ' tf:enter: ' "$tmp/live.bt" || { cat "$tmp/live.err"; fail "the live viewer saw no event"; }
    alive $app_pid || fail "the program ended before the viewer saw its events"
    touch "$tmp/go"
    wait $app_pid || fail "the traced program failed"
    app_pid=
    lt stop s > /dev/null && lt destroy s > /dev/null || fail "lttng stop/destroy"
    stop_pid $viewer_pid; viewer_pid=
    bt2dprint < "$tmp/live.bt" | grep -q '^(app): app.work->(rounds=2) ' ||
        fail "the live events are not the program's"
}

scenario_snapshot() {
    lt create s --snapshot --output="$tmp/snap" > /dev/null || fail "lttng create --snapshot"
    session_events s || fail "lttng session set-up"
    traced crash > "$tmp/app.out" 2> "$tmp/app.err"
    rc=$?
    [ $rc = 134 ] || fail "the program should have died of SIGABRT, exit status $rc"
    lt snapshot record -s s > /dev/null || fail "lttng snapshot record"
    lt destroy s > /dev/null || fail "lttng destroy"
    read_trace "$tmp/snap" "$tmp/trace"
    pid=$(sed -n 's/^pid //p' "$tmp/app.out")
    of_pid "$pid" "$tmp/trace" | tail -3 > "$tmp/last"
    printf '%s\n' '(app): app.last_words->(code=42)' '(app): app.last_words<-' \
        '(app): app.die:throw:noreturn(abort)' | diff -u - "$tmp/last" ||
        fail "the snapshot lacks the crashed program's last events"
}

scenario_multi() {
    lt create s --output="$tmp/multi" > /dev/null || fail "lttng create"
    session_events s || fail "lttng session set-up"
    traced_bg run > "$tmp/run.out"
    run_pid=$bg_pid
    traced fork > "$tmp/fork.out" || fail "the forking program failed"
    wait $run_pid || fail "the second program failed"
    lt stop s > /dev/null && lt destroy s > /dev/null || fail "lttng stop/destroy"
    read_trace "$tmp/multi" "$tmp/trace"
    dprint_of "$tmp/dprint" run || fail "the program under dprint failed"
    of_pid "$(sed -n 's/^pid //p' "$tmp/run.out")" "$tmp/trace" | diff -u "$tmp/dprint" - ||
        fail "the first process's events differ from dprint's"
    parent=$(sed -n 's/^pid //p' "$tmp/fork.out")
    child=$(sed -n 's/^child //p' "$tmp/fork.out")
    [ "$(of_pid "$parent" "$tmp/trace" | grep -c 'app.work->')" = 2 ] ||
        fail "the forking process's events are missing"
    # the child's own thread id, not the parent's cached one
    grep -q " @$child/$child/$child\$" "$tmp/trace" || fail "no event with the child's tid"
    printf '%s\n' '(app): app.child_work->(n=7)' '(app): app.square->(n=7)' \
        '(app): app.square<-(49)' '(app): app.child_work<-(50)' |
        diff -u - <(of_pid "$child" "$tmp/trace") || fail "the forked child's events"
    ids=$(sed -nE 's/.* @([0-9]+)\/.*/\1/p' "$tmp/trace" | sort -u | wc -l)
    [ "$ids" = 3 ] || fail "expected 3 processes in the session, found $ids"
}

# alone: no session daemon, in an empty /dev/shm, as an ordinary user and as
# root (liblttng-ust forks as it loads then): the program runs exactly as
# untraced, within seconds.
alone_as() { # alone_as WHO CMD...: WHO's run of the traced program
    local who=$1
    shift
    "$@" env TF_MONITORS=app=lttng timeout 20 "$app" run > "$tmp/$who.out" 2> "$tmp/$who.err"
    local rc=$?
    [ $rc != 124 ] || fail "the program hung as $who with no session daemon (killed after 20 s)"
    [ $rc = 0 ] || fail "the program failed as $who with no session daemon (status $rc)"
    [ ! -s "$tmp/$who.err" ] || { cat "$tmp/$who.err"; fail "messages on stderr as $who with no session daemon"; }
    diff <(grep -v '^pid ' "$tmp/plain.out") <(grep -v '^pid ' "$tmp/$who.out") ||
        fail "the program's output changed as $who"
}

scenario_alone() {
    [ -z "$(ls -A /dev/shm)" ] || fail "/dev/shm is not empty: $(ls -A /dev/shm | head -3)"
    "$app" run > "$tmp/plain.out" || fail "the program failed untraced"
    alone_as user as_user
    [ "$(id -u)" != 0 ] || alone_as root env LTTNG_HOME="$tmp/root-home" HOME="$tmp/root-home"
}

scenario_$scenario
echo "PASS: lttng $scenario"
