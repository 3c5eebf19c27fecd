# Sourced by run.sh: one TU of 20,000 functions with 1 KiB names, under every
# monitor; each function called once by main, which prints the sum of their
# results (docs/design.md .fid.sizes: record left such TUs out, "factory
# 'record' created no monitor for group"). The recording is checked in its
# metadata (every function named) and summary line: reading 20,000 1 KiB enum
# labels back takes babeltrace2 minutes.
n=20000 len=1024
python3 "$here/gen_bigtu.py" $n $len >big.c || fail "cannot generate big.c"
"$cc" -O0 -fplugin="$plugin" -I"$inc" big.c -L"$libdir" -ltf -Wl,-rpath,"$libdir" -o big ||
    fail "cannot build big.c with $plugin"
sum=$(( n + n * (n - 1) / 2 ))

# under NAME VAR=VALUE...: big under the environment; its sum and no message but want_err.
under() {
    local name=$1
    shift
    env "$@" ./big >"$name.out" 2>"$name.err" || fail "$name: exit status $?: $(head -c 500 "$name.err")"
    [ "$(cat "$name.out")" = "$sum" ] || fail "$name: sum $(cat "$name.out"), want $sum"
}
no_messages() { [ ! -s "$1.err" ] || fail "$1: $(head -c 500 "$1.err")"; }
under none
no_messages none
under noop TF_MONITORS=big=noop
no_messages noop
under tracer TF_MONITORS=big=tracer
no_messages tracer
under dprint TF_MONITORS=big=dprint TF_OUTPUT=dprint.txt
no_messages dprint
[ "$(wc -l <dprint.txt)" = $((2 * n)) ] || fail "dprint: $(wc -l <dprint.txt) lines, want $((2 * n))"
name0=$(python3 -c "print('f00000_' + 'n' * ($len - 7))")
[ "$(head -n 1 dprint.txt)" = "(big): big.$name0->(x=1)" ] || fail "dprint's first line: $(head -c 200 dprint.txt)"
[ "$(awk 'length($0) > '$len' && !/\.\.\.$/' dprint.txt | wc -l)" = $((2 * n)) ] || fail "dprint cut names"
under timing TF_MONITORS=big=timing TF_REPORT=timing.txt
no_messages timing
grep -qx "TF timing report: $n of $n timing points entered, 1 thread" timing.txt ||
    fail "timing: $(head -n 1 timing.txt)"
under record TF_MONITORS=big=record TF_RECORD=rec TF_RECORD_SIZE=16M
[ "$(cat record.err)" = "tf: record: trace in rec (1 thread, ring mode)" ] || fail "record: $(head -c 500 record.err)"
[ "$(grep -c '^	"big\.f[0-9]*_n*" = [0-9]*,$' rec/metadata)" = $((2 * n)) ] ||
    fail "record: the metadata does not name every function (16- and 32-bit enums)"
under compose TF_MONITORS='big=dprint+timing+record' TF_OUTPUT=c.txt TF_REPORT=c.txt.report TF_RECORD=crec TF_RECORD_SIZE=16M
[ "$(cat compose.err)" = "tf: record: trace in crec (1 thread, ring mode)" ] || fail "compose: $(head -c 500 compose.err)"
[ "$(wc -l <c.txt)" = $((2 * n)) ] || fail "compose: dprint has $(wc -l <c.txt) lines"
