#!/bin/bash
# run-record.sh: the recorder end to end (docs/design.md .rec): rec.c built with a
# compiler plugin, recorded, and the trace read by the real babeltrace2.
#
#   run-record.sh CC PLUGIN INCLUDE LIBDIR WORK OPT MODE
#   run-record.sh CC PLUGIN INCLUDE LIBDIR WORK OPT fixture SRC CXX [TF_DUMP]
#
# MODE: calls (babeltrace2's events, converted to dprint lines, equal dprint's
# trace of the same run, per thread), values0, segv|bus|fpe|ill|abrt (the
# post-mortem), fork, dl, snapshot, stream, flood, ring4k; fixture: a shared
# fixture (tests/fixtures) recorded under its expected file's TF_MONITORS with
# dprint replaced by record, compared with its dprint trace (C++ exceptions,
# longjmp, noreturn, threads, `char *` values that are no strings); with
# TF_DUMP, tf-dump's text of the recording too (__int128, complex, vectors).
# Exit 0 pass, 1 fail, 77 skip (no babeltrace2, or a sanitized build).
set -u
cc=$1 plugin=$2 inc=$3 libdir=$4 work=$5 opt=$6 mode=$7
here=$(cd "$(dirname "$0")" && pwd)
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
command -v babeltrace2 > /dev/null || { echo "skip: babeltrace2 is not installed (Debian package babeltrace2)"; exit 77; }
export LC_ALL=C
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
link=(-L"$libdir" -ltf -Wl,-rpath,"$libdir" -pthread -ldl)
if [ "$mode" = fixture ]; then
    src=$8 exp=${8%.*}.expected
    monitors=$(sed -n 's/^# env TF_MONITORS=//p' "$exp" | head -n 1)
    [ "${src##*.}" = cc ] && cc=$9
    $cc -fplugin="$plugin" -I"$inc" -I"$(dirname "$src")" -g $opt "$src" -o fx "${link[@]}" 2> build.log ||
        { cat build.log; echo "FAIL: building $src"; exit 1; }
    env TF_MONITORS="${monitors//dprint/record}" TF_RECORD=t ./fx > /dev/null 2> t.err
    env TF_MONITORS="$monitors" TF_OUTPUT=t.dprint ./fx > /dev/null 2>&1
    babeltrace2 t 2> t.bterr | "$here/bt2dprint.py" | sort -s -t: -k1,1 > t.got ||
        { cat t.bterr; echo "FAIL: $src $cc $opt: cannot read the recording"; exit 1; }
    sed -E 's/0x[0-9a-f]+/0xPTR/g; s/^(\([^)]*\): )[[:space:]]+/\1/' t.dprint | sort -s -t: -k1,1 > t.want
    diff -u t.want t.got || { echo "FAIL: $src $cc $opt: recording and dprint differ"; exit 1; }
    [ -s t.got ] || { echo "FAIL: $src: empty recording"; exit 1; }
    if [ -n "${10:-}" ]; then
        "${10}" t 2> t.dumperr | sed -E 's/^\[[0-9.]+\] //; s/0x[0-9a-f]+/0xPTR/g' | sort -s -t: -k1,1 > t.dump ||
            { cat t.dumperr; echo "FAIL: $src: tf-dump cannot read the recording"; exit 1; }
        diff -u t.want t.dump || { echo "FAIL: $src $cc $opt: tf-dump's text and dprint differ"; exit 1; }
        # Every call held until its exit (tf-dump's hold.c): the same text,
        # captured values included (their trees are the reader's, not the hold's).
        "${10}" --min-duration=1ns t 2> t.dumperr | sed -E 's/^\[[0-9.]+\] //; s/0x[0-9a-f]+/0xPTR/g' |
            sort -s -t: -k1,1 > t.held || { cat t.dumperr; echo "FAIL: $src: tf-dump --min-duration failed"; exit 1; }
        diff -u t.dump t.held || { echo "FAIL: $src $cc $opt: held events print otherwise"; exit 1; }
    fi
    echo "ok: fixture $src $cc $opt ($(wc -l < t.got) events)"
    exit 0
fi
$cc -fplugin="$plugin" -I"$inc" -g $opt "$here/rec.c" -o rec "${link[@]}" 2> build.log ||
    { cat build.log; echo "FAIL: building rec.c"; exit 1; }
$cc -fplugin="$plugin" -I"$inc" -g $opt -fPIC -shared "$here/rec_lib.c" -o librec.so "${link[@]}" 2>> build.log ||
    { cat build.log; echo "FAIL: building rec_lib.c"; exit 1; }

fail() { echo "FAIL: $mode $cc $opt: $*"; exit 1; }
bt() { # bt DIR: babeltrace2's text, its stderr kept in DIR.bterr
    babeltrace2 "$1" 2> "$1.bterr" || { cat "$1.bterr"; fail "babeltrace2 cannot read $1"; }
}
dprint_of() { # the dprint trace of the same run, normalised like bt2dprint.py's
    sed -E 's/0x[0-9a-f]+/0xPTR/g; s/^(\([^)]*\): )[[:space:]]+/\1/' "$1"
}
by_thread() { sort -s -t: -k1,1; }
same_as_dprint() { # same_as_dprint TRACE_DIR DPRINT_FILE
    bt "$1" | "$here/bt2dprint.py" | by_thread > "$1.got" || fail "cannot convert $1"
    dprint_of "$2" | by_thread > "$1.want"
    diff -u "$1.want" "$1.got" > "$1.diff" || { cat "$1.diff"; fail "recording and dprint differ"; }
    [ -s "$1.got" ] || fail "empty recording"
}
run() { # run DIR ARGS...: record into DIR, and the same run under dprint into DIR.dprint
    local d=$1; shift
    env TF_MONITORS=rec=record TF_RECORD="$d" ./rec "$@" > "$d.out" 2> "$d.err"
    echo $? > "$d.rc"
    env TF_MONITORS=rec=dprint TF_OUTPUT="$d.dprint" ./rec "$@" > /dev/null 2>&1
}

case $mode in
calls)
    # An earlier trace's stream file (as TF wrote it) is not part of this one.
    mkdir -m 700 old && env TF_MONITORS=rec=record TF_RECORD=old ./rec calls > /dev/null 2>&1
    mkdir -m 700 t && cp old/metadata t/ && cp old/thread-1 t/thread-9
    run t calls
    [ -e t/thread-9 ] && fail "an earlier trace's thread-9 was left in the directory"
    same_as_dprint t t.dprint
    [ "$(ls t | grep -c '^thread-')" = 3 ] || fail "expected 3 thread files (2 exited threads), got: $(ls t)"
    grep -q 'tf: record: trace in t (3 threads, ring mode)' t.err || fail "no summary on stderr: $(cat t.err)"
    [ "$(stat -c %a t)" = 700 ] || fail "trace directory mode $(stat -c %a t), want 700"
    ;;
values0)
    env TF_MONITORS=rec=record TF_RECORD=t TF_RECORD_VALUES=0 ./rec calls > /dev/null 2>&1
    env TF_MONITORS=rec=dprint TF_OUTPUT=t.dprint ./rec calls > /dev/null 2>&1
    bt t | "$here/bt2dprint.py" | by_thread > t.got || fail "cannot convert"
    # Without values dprint's lines lose their values: compare names and kinds.
    dprint_of t.dprint | sed -E 's/->\(.*\)$/->()/; s/<-\(.*\)$/<-/; s/::\(([a-z]+)\)\(.*\)$/::(\1)()/' | by_thread > t.want
    diff -u t.want t.got || fail "names and order differ from dprint's"
    ;;
segv|bus|fpe|ill|abrt)
    declare -A sig=([segv]=11 [bus]=7 [fpe]=8 [ill]=4 [abrt]=6)
    declare -A name=([segv]=SIGSEGV [bus]=SIGBUS [fpe]=SIGFPE [ill]=SIGILL [abrt]=SIGABRT)
    # si_code and si_addr as the kernel gives them: a write to NULL is SEGV_MAPERR (1) at
    # 0x0; a division by zero FPE_INTDIV (1) and ud2 ILL_ILLOPN (2) at the instruction;
    # raise() and abort() send with tgkill: SI_TKILL (-6), no address.
    declare -A marker=([segv]='(code 1, address 0x0)' [bus]='(code -6)' [fpe]='(code 1, address 0xPTR)'
                       [ill]='(code 2, address 0xPTR)' [abrt]='(code -6)')
    run t "$mode"
    ./rec "$mode" > /dev/null 2>&1; plain=$?
    [ "$(cat t.rc)" = $((128 + ${sig[$mode]})) ] || fail "exit status $(cat t.rc), want $((128 + ${sig[$mode]}))"
    [ "$plain" = "$(cat t.rc)" ] || fail "exit status $(cat t.rc) differs from the untraced run's $plain"
    grep -Eq "^tf: record: fatal signal ${name[$mode]} \\(code -?[0-9]+(, address 0x[0-9a-f]+)?\\) in thread-1 'rec' \\(tid [0-9]+\\): writing the flight recorder to t$" t.err ||
        fail "no post-mortem message naming the signal and the thread: $(cat t.err)"
    # the signal is the thread's last event; the calls before it are dprint's
    bt t | "$here/bt2dprint.py" > t.all || fail "cannot convert"
    [ "$(tail -n 1 t.all)" = "(rec): signal ${name[$mode]} ${marker[$mode]}" ] ||
        fail "last event '$(tail -n 1 t.all)', want the signal ${name[$mode]} ${marker[$mode]}"
    head -n -1 t.all | by_thread > t.got
    dprint_of t.dprint | by_thread > t.want
    diff -u t.want t.got || fail "recording and dprint differ"
    last=$(tail -n 1 t.got)
    case $mode in
    abrt) want='(rec): rec.crash:throw:noreturn(abort)' ;;
    *) want='(rec): rec.crash->(how="'$mode'")' ;;
    esac
    [ "$last" = "$want" ] || fail "last call '$last', want '$want'"
    ;;
fork)
    env TF_MONITORS=rec=record TF_RECORD=t ./rec fork > t.out 2> t.err || fail "rec fork failed"
    child=$(head -n 1 t.out)
    [ -d "t.$child" ] || fail "no child directory t.$child: $(ls)"
    bt t | "$here/bt2dprint.py" > t.got && bt "t.$child" | "$here/bt2dprint.py" > c.got || fail "cannot convert"
    [ "$(grep -c 'rec.fib->' t.got)" = 4 ] || { cat t.got; fail "parent: want fib(2) and fib(1): 4 calls"; }
    [ "$(grep -c 'rec.fib->' c.got)" = 5 ] || { cat c.got; fail "child: want only fib(3): 5 calls"; }
    head -n 1 c.got | grep -qx '(rec): rec.fib->(n=3)' || fail "child's first event: $(head -n 1 c.got)"
    ;;
dl)
    run t dl ./librec.so
    [ "$(cat t.rc)" = 0 ] || fail "rec dl failed: $(cat t.err)"
    same_as_dprint t t.dprint
    grep -q 'rec_lib.twice->(x=21)' t.got || fail "the unloaded library's function is missing"
    ;;
snapshot)
    run t snapshot s
    bt s | "$here/bt2dprint.py" > s.got || fail "cannot convert the snapshot"
    [ "$(grep -c 'rec.fib->' s.got)" = 3 ] || { cat s.got; fail "snapshot: want fib(2)'s 3 calls"; }
    same_as_dprint t t.dprint
    [ "$(head -n 1 t.out)" = 0 ] || fail "tf_record_snapshot returned $(head -n 1 t.out)"
    ln -s s link && env TF_MONITORS=rec=record TF_RECORD=t2 ./rec snapshot link > link.out 2> link.err
    [ "$(head -n 1 link.out)" = -1 ] || fail "a snapshot through a symlink returned $(head -n 1 link.out), want TF_EPERM"
    grep -q "cannot write the trace directory 'link': it is a symbolic link, which TF never follows" link.err || fail "no error naming the symlink: $(cat link.err)"
    ;;
stream)
    env TF_MONITORS=rec=record TF_RECORD=t TF_RECORD_MODE=stream ./rec stream > /dev/null 2> t.err || fail "rec stream failed"
    bt t > t.txt
    grep -qi discarded t.bterr t.err && { cat t.bterr t.err; fail "events lost at a modest rate"; }
    [ "$(grep -c 'tf:enter' t.txt)" = $((2 * 100 * 177)) ] || fail "want 35400 enters, got $(grep -c 'tf:enter' t.txt)"
    ;;
flood) # a writer not waited for (TF_RECORD_WAIT=0) does not keep up with 4K rings,
    # and what is lost is said by both, babeltrace2 and stderr. Not always: where
    # the thread and the writer share one busy CPU, the writer woken at half a ring
    # can run at once and keep pace (1 run in 20 here); so up to 5 runs, each
    # consistent, until one loses events.
    lost=0
    for run in 1 2 3 4 5; do
        rm -rf t
        env TF_MONITORS=rec=record TF_RECORD=t TF_RECORD_MODE=stream TF_RECORD_SIZE=4K TF_RECORD_WAIT=0 ./rec flood > /dev/null 2> t.err
        bt t > t.txt
        if grep -q 'events discarded' t.err; then
            grep -q 'Tracer discarded [0-9]* events' t.bterr || { cat t.bterr; fail "babeltrace2 does not warn of discarded events"; }
            lost=1
            break
        fi
        grep -qi 'discarded' t.bterr && { cat t.bterr t.err; fail "babeltrace2 warns of a loss stderr does not report"; }
    done
    [ "$lost" = 1 ] || fail "5 runs lost no event: the writer kept up every time: $(cat t.err)"
    ;;
flood-wait) # the default: a thread waits for the writer, nothing is lost
    env TF_MONITORS=rec=record TF_RECORD=t TF_RECORD_MODE=stream TF_RECORD_SIZE=4K ./rec flood > /dev/null 2> t.err || fail "rec flood failed"
    bt t > t.txt
    grep -qi discarded t.bterr t.err && { cat t.bterr t.err; fail "events lost although threads wait"; }
    # fib(22) makes 2 * fib(23) - 1 = 57313 calls
    [ "$(grep -c 'tf:enter' t.txt)" = 57313 ] || fail "want 57313 enters, got $(grep -c 'tf:enter' t.txt)"
    [ "$(grep -c 'tf:exit' t.txt)" = 57313 ] || fail "want 57313 exits, got $(grep -c 'tf:exit' t.txt)"
    grep -q 'threads waited for the writer [0-9]* times*, ' t.err || fail "the waits are not reported: $(cat t.err)"
    ;;
ring4k)
    env TF_MONITORS=rec=record TF_RECORD=t TF_RECORD_SIZE=4K ./rec flood > /dev/null 2> t.err
    bt t | "$here/bt2dprint.py" > t.got || fail "cannot convert"
    [ "$(wc -c < t/thread-1)" -le 4096 ] || fail "a 4K ring wrote $(wc -c < t/thread-1) bytes"
    tail -n 1 t.got | grep -qx '(rec): rec.fib<-(17711)' || fail "last event: $(tail -n 1 t.got)"
    grep -q 'older events overwritten' t.err || fail "the ring's bound is not reported: $(cat t.err)"
    ;;
*) fail "unknown mode" ;;
esac
echo "ok: $mode $cc $opt"
