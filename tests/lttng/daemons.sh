# daemons.sh: private LTTng daemons for one test (sourced by run.sh).
#
# daemons_setup       a temporary directory $tmp with an LTTNG_HOME of its own
# sessiond_start      an lttng-sessiond for that LTTNG_HOME
# relayd_start        an lttng-relayd on 127.0.0.1 at three free ports
#                     (port_ctrl, port_data, port_live), output in $tmp/relay
# daemons_stop        stops what was started, by pid, and removes the temp dir
#                     (kept when TF_TEST_KEEP is set, to look into)
# as_user CMD...      runs CMD as the daemons' user with their LTTNG_HOME
# as_user_bg CMD...   the same in the background, its pid in bg_pid
# lt ARGS...          the lttng client of that session daemon
#
# Daemons are never found by name, and the system's (if any) never touched.

tmp= sessiond_pid= relayd_pid= app_pid= viewer_pid= run_pid=

as_user() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups -- \
            env LTTNG_HOME="$tmp/home" HOME="$tmp/home" "$@"
    else
        env LTTNG_HOME="$tmp/home" HOME="$tmp/home" "$@"
    fi
}

# as_user_bg CMD...: CMD as as_user runs it, in the background; its own pid
# (not a subshell's: the function's body backgrounds the command itself) in bg_pid.
as_user_bg() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups -- \
            env LTTNG_HOME="$tmp/home" HOME="$tmp/home" "$@" &
    else
        env LTTNG_HOME="$tmp/home" HOME="$tmp/home" "$@" &
    fi
    bg_pid=$!
}

lt() { as_user lttng "$@" 2>> "$tmp/lttng.err"; }

# alive PID: running (a child that ended but was not waited for is not).
alive() { [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status"; }

stop_pid() {
    [ -n "$1" ] && alive "$1" || return 0
    kill -TERM "$1" 2> /dev/null
    for _ in $(seq 50); do alive "$1" || return 0; sleep 0.1; done
    kill -KILL "$1" 2> /dev/null
}

daemons_setup() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-lttng.XXXXXX") || return 1
    chmod 755 "$tmp" && mkdir "$tmp/home" || return 1
    if [ "$(id -u)" = 0 ]; then
        chown 65534:65534 "$tmp" "$tmp/home" || return 1
    fi
}

sessiond_start() {
    # --daemonize returns once the daemon takes commands; its pid file names it.
    as_user lttng-sessiond --daemonize --no-kernel > "$tmp/sessiond.log" 2>&1 || {
        cat "$tmp/sessiond.log"; return 1; }
    sessiond_pid=$(cat "$tmp/home/.lttng/lttng-sessiond.pid" 2> /dev/null)
    [ -n "$sessiond_pid" ] && alive "$sessiond_pid"
}

listening() { ss -Hltn "sport = :$1" | grep -q .; }

# Three consecutive free ports above 20000; a clash with another test that
# picked the same ones in the same instant makes relayd fail: try again.
relayd_start() {
    for _ in 1 2 3 4 5; do
        local base=$((20000 + RANDOM % 40000))
        listening $base || listening $((base + 1)) || listening $((base + 2)) && continue
        port_ctrl=$base port_data=$((base + 1)) port_live=$((base + 2))
        as_user_bg lttng-relayd -C "tcp://127.0.0.1:$port_ctrl" -D "tcp://127.0.0.1:$port_data" \
            -L "tcp://127.0.0.1:$port_live" -o "$tmp/relay" > "$tmp/relayd.log" 2>&1
        relayd_pid=$bg_pid
        for _ in $(seq 100); do
            alive $relayd_pid || break
            listening $port_ctrl && listening $port_data && listening $port_live && return 0
            sleep 0.05
        done
        stop_pid $relayd_pid
    done
    cat "$tmp/relayd.log"
    return 1
}

daemons_stop() {
    local rc=$?
    if [ $rc != 0 ] && [ -n "$tmp" ]; then
        tail -n 20 "$tmp/lttng.err" 2> /dev/null
    fi
    for pid in "$app_pid" "$run_pid" "$viewer_pid"; do stop_pid "$pid"; done
    [ -n "$sessiond_pid" ] && lt destroy --all > /dev/null 2>&1
    stop_pid "$sessiond_pid"
    stop_pid "$relayd_pid"
    if [ -n "${TF_TEST_KEEP:-}" ]; then
        echo "kept: $tmp"
    elif [ -n "$tmp" ]; then
        rm -rf "$tmp"
    fi
    exit $rc
}
