#!/usr/bin/env bash
# run.sh ID WORK [--cc CC --plugin PLUGIN] --include DIR --libdir DIR
#        --tools DIR --prefix DIR [--gcc CC --gcc-plugin P --clang CC --clang-plugin P]
#        [--tf-scan EXE]
# Runs the row ID of table.txt (README.md says how rows are written) and
# checks that each expected line is printed exactly once (stdout and stderr
# together), and that no line a row forbids is printed. Exit 0 pass, 1 fail,
# 77 skip.
#
# The row's command runs in WORK under bash, with:
#   $APP      app.c built with CC and PLUGIN, linked with libtf
#   $NOLIB    the same, linked without libtf
#   $REC      a recording of one run of $APP (TF_MONITORS=app=record)
#   $TFCTL $TFDUMP $TFSCAN   the tools; $TFCC the installed tf-cc (PREFIX)
#   $CC $PLUGIN $INC $LIBDIR, and the files of src/ copied into WORK
#   $GCC_CC $GCC_PLUGIN $CLANG_CC $CLANG_PLUGIN   both compilers (cross rows)
#   live ARGS...   runs $APP serving tf-ctl and `tf-ctl PID ARGS...` on it
# Placeholders in expected lines: {pid} (of live's $APP), {work}, {*}.
set -u
id=$1 work=$2
shift 2
cc=cc plugin=/nonexistent inc= libdir= tools= prefix=/nonexistent scan=/nonexistent
export GCC_CC= GCC_PLUGIN= CLANG_CC= CLANG_PLUGIN=
while [ $# -gt 1 ]; do
    case $1 in
    --cc) cc=$2 ;; --plugin) plugin=$2 ;; --include) inc=$2 ;; --libdir) libdir=$2 ;;
    --tools) tools=$2 ;; --prefix) prefix=$2 ;; --tf-scan) scan=$2 ;;
    --gcc) GCC_CC=$2 ;; --gcc-plugin) GCC_PLUGIN=$2 ;; --clang) CLANG_CC=$2 ;; --clang-plugin) CLANG_PLUGIN=$2 ;;
    *) echo "run.sh: unknown option $1"; exit 2 ;;
    esac
    shift 2
done
here=$(cd "$(dirname "$0")" && pwd)

row=$(awk -v id="$id" '/^## / { on = ($2 == id) } on' "$here/table.txt")
[ -n "$row" ] || { echo "FAIL: no row '$id' in table.txt"; exit 1; }
command=$(sed -n 's/^\$ //p' <<<"$row")
rm -rf "$work" && mkdir -p "$work/run" && chmod 700 "$work/run" && cp -r "$here/src/." "$work/" || exit 1
cd "$work" || exit 1
export XDG_RUNTIME_DIR=$work/run LC_ALL=C
unset TF_MONITORS TF_OUTPUT TF_REPORT TF_SELECT TF_TRIGGERS TF_CONTROL TF_RECORD TF_HELP \
    TF_RULES TF_PLUGIN_ARGS TF_CC TF_CXX

fail() {
    echo "FAIL $id: $*"
    echo "--- command: $command"
    echo "--- output:"
    cat "$work/out" 2>/dev/null
    exit 1
}
need() { [ -x "$1" ] || { echo "skip: $2"; exit 77; }; }

export CC=$cc PLUGIN=$plugin INC=$inc LIBDIR=$libdir TFCTL=$tools/tf-ctl/tf-ctl \
    TFDUMP=$tools/tf-dump/tf-dump TFSCAN=$scan TFCC=$prefix/bin/tf-cc
build() { # build OUT [LINK...]: app.c with the plugin
    "$cc" -O1 -fplugin="$plugin" -I"$inc" "$here/app.c" -o "$1" "${@:2}" 2>build.log ||
        { cat build.log; fail "cannot build app.c"; }
}
case $command in *'$APP'* | *live* | *'$REC'*)
    build app -L"$libdir" -Wl,-rpath,"$libdir" -ltf
    export APP=$work/app ;;
esac
case $command in *'$NOLIB'*) build nolib; export NOLIB=$work/nolib ;; esac
case $command in *'$REC'*)
    TF_MONITORS=app=record TF_RECORD=$work/rec ./app >/dev/null 2>&1 || fail "cannot record"
    export REC=$work/rec ;;
esac
case $command in *'$TFDUMP'*) need "$TFDUMP" "tf-dump not built (libbabeltrace2-dev)" ;; esac
case $command in *'$TFSCAN'*) need "$TFSCAN" "tf-scan not built (the Clang plugin)" ;; esac
case $command in *'$TFCC'*) need "$TFCC" "no installed tf-cc in $prefix (install.prefix)" ;; esac

# live ARGS...: $APP serving tf-ctl (alarm(60) in app.c, killed here before).
pid=
live() {
    coproc SERVE { TF_CONTROL=1 exec "$APP" serve 2>"$work/serve.err"; }
    local word
    read -r -t 10 -u "${SERVE[0]}" word pid || fail "app did not start"
    for _ in $(seq 100); do [ -S "$work/run/tf/$pid.sock" ] && break; sleep 0.05; done
    echo "$pid" >"$work/pid"
    "$TFCTL" "$pid" "$@"
    local rc=$?
    echo quit >&"${SERVE[1]}"
    wait "$SERVE_PID" 2>/dev/null
    cat "$work/serve.err" >&2
    return $rc
}
export -f live fail
export work id command

# The row, with its own deadline (ctest's TIMEOUT is longer), in a process
# group of its own that is killed whole.
setsid timeout -k 5 40 bash -c "$command" >"$work/out" 2>&1 </dev/null
rc=$?
[ $rc = 124 ] || [ $rc = 137 ] && fail "timed out"
[ -f "$work/pid" ] && pid=$(cat "$work/pid")

# Expected text as a bash pattern: {*} anything, the rest literally.
pattern() {
    local text=$1 out='' part
    text=${text//\{pid\}/$pid}
    text=${text//\{work\}/$work}
    while [[ $text == *'{*}'* ]]; do
        part=${text%%'{*}'*}
        out+=$(printf '%q' "$part")'*'
        text=${text#*'{*}'}
    done
    out+=$(printf '%q' "$text")
    printf '%s' "$out"
}
count() { # count PATTERN: lines of the output it matches
    local p=$1 n=0 line
    while IFS= read -r line; do
        # shellcheck disable=SC2053
        eval "[[ \$line == $p ]]" && n=$((n + 1))
    done <"$work/out"
    echo $n
}
nexpected=0
while IFS= read -r want; do
    n=$(count "$(pattern "${want#> }")")
    [ "$n" = 1 ] || fail "said $n times, not once: ${want#> }"
    nexpected=$((nexpected + 1))
done < <(grep '^> ' <<<"$row")
while IFS= read -r never; do
    n=$(count "$(pattern "${never#!> }")")
    [ "$n" = 0 ] || fail "said, and should not be: ${never#!> }"
    nexpected=$((nexpected + 1))
done < <(grep '^!> ' <<<"$row")
[ $nexpected -gt 0 ] || fail "the row expects nothing"
echo "ok $id ($(basename "$cc"))"
