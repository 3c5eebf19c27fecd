#!/usr/bin/env bash
# run.sh SCENARIO CC PLUGIN INCLUDE LIBDIR TF_CTL WORK: compiles ctlapp with CC
# and PLUGIN, then runs scenarios/SCENARIO.sh (see CMakeLists.txt). Sockets
# live under WORK/run (XDG_RUNTIME_DIR), so tests never see each other.
set -u
scenario=$1 cc=$2 plugin=$3 inc=$4 libdir=$5 tfctl=$6 work=$7
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/run" && chmod 700 "$work/run" && cd "$work" || exit 1
export XDG_RUNTIME_DIR=$work/run
app=$work/ctlapp

fail() {
    echo "FAIL: $*"
    [ -f "$work/app.err" ] && { echo "--- program's stderr:"; cat "$work/app.err"; }
    exit 1
}

"$cc" -O2 -fplugin="$plugin" -I"$inc" "$here/ctlapp.c" -L"$libdir" -ltf -lpthread \
    -Wl,-rpath,"$libdir" -o "$app" || fail "cannot compile ctlapp with $cc"

# expect_same NAME EXPECTED_TEXT FILE
expect_same() {
    diff -u <(printf '%s\n' "$2") "$3" || fail "$1: output differs from what is expected"
}

# start_app [VAR=VALUE...]: ctlapp serve 4 with TF_CONTROL=1 as a coprocess;
# sets pid. say LINE sends LINE and waits for its "done".
start_app() {
    coproc APP { env TF_CONTROL=1 "$@" "$app" serve 4 2>"$work/app.err"; }
    read -r -t 10 -u "${APP[0]}" word pid || fail "ctlapp did not start"
    [ "$word" = ready ] || fail "ctlapp said '$word'"
    for _ in $(seq 100); do [ -S "$work/run/tf/$pid.sock" ] && return; sleep 0.05; done
    fail "no socket $work/run/tf/$pid.sock"
}
say() {
    echo "$*" >&"${APP[1]}"
    local reply
    while read -r -t 10 -u "${APP[0]}" reply; do
        [ "$reply" = done ] && return
        last_reply=$reply
    done
    fail "no answer to '$*'"
}
stop_app() {
    echo quit >&"${APP[1]}"
    wait "$APP_PID" 2>/dev/null
}
ctl() { "$tfctl" "$pid" "$@"; }

. "$here/scenarios/$scenario.sh"
echo "PASS: $scenario"
