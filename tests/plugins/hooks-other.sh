#!/bin/bash
# hooks-other.sh: a TF plugin together with the compiler's own per-function
# hooks, run with each plugin (tests/fixtures/hooks_other.c says what is
# checked).
#   hooks-other.sh MODE COMPILER PLUGIN INCLUDE_DIR LIBDIR WORK OPT
# MODE tsan: -fsanitize=thread, 200,000 traced calls must run clean;
# MODE cyg: -finstrument-functions, one enter and one exit per call of f,
# with and without a monitor; MODE fsan (Clang): C++ with
# -fsanitize=function, which put f's signature data on the traced clone.
set -u
mode=$1 cc=$2 plugin=$3 inc=$4 libdir=$5 work=$6 opt=$7
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
src=$(cd "$(dirname "$0")/../fixtures" && pwd)/hooks_other.c
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
case $mode in
tsan) flags=(-fsanitize=thread) ;;
cyg) flags=(-finstrument-functions) ;;
fsan) flags=(-x c++ -fsanitize=function) ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
if [ "$mode" = tsan ] && ! echo 'int main(void){return 0;}' |
    "$cc" -fsanitize=thread -x c - -o probe 2>/dev/null; then
    echo "skip: $cc cannot link -fsanitize=thread"; exit 77
fi
"$cc" -fplugin="$plugin" -I"$inc" -g "$opt" "${flags[@]}" "$src" -o prog \
    -L"$libdir" -ltf -Wl,-rpath,"$libdir" 2> build.txt
rc=$?
cat build.txt
[ $rc = 0 ] || { echo "FAIL: does not build"; exit 1; }
grep -q "warning\|error" build.txt && { echo "FAIL: diagnostics"; exit 1; }
fail=0
want="sum 20000100000 enters 0 exits 0"
[ "$mode" = cyg ] && want="sum 20000100000 enters 200000 exits 200000"
for monitors in "g=noop" ""; do
    out=$(TF_MONITORS=$monitors ./prog 2> err.txt)
    rc=$?
    [ $rc = 0 ] && [ "$out" = "$want" ] && ! grep -q "WARNING: ThreadSanitizer" err.txt || {
        head -20 err.txt
        echo "FAIL: TF_MONITORS='$monitors': exit $rc, '$out', want '$want'"
        fail=1
    }
done
[ $fail = 0 ] && echo ok
exit $fail
