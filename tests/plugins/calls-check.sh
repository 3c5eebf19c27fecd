#!/bin/bash
# calls-check.sh: call sites beyond their traces (docs/design.md .call), with
# one plugin: the manifest of calls.c lists every call its rules and TF_CALLS
# ask for, traced or not and why (calls.manifest.json, written by hand, but
# "compiler"), and the timing report puts each call site under the function
# that made the calls (write under handle_request).
#
#   calls-check.sh CC PLUGIN INCLUDE_DIR LIBDIR FIXTURES WORK
# Exit 0 pass, 1 fail, 77 skip (sanitized builds have no plugin).
set -u
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
cc=$1 plugin=$2 inc=$3 libdir=$4 fix=$5 work=$6
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$fix" || exit 1
flags=(-fplugin="$plugin" -fplugin-arg-tf-rules=calls.rules -I"$inc" -I"$fix" -O2)
"$cc" "${flags[@]}" -fPIC -shared calls_lib.c -o "$work/libfixture.so" || exit 1
"$cc" "${flags[@]}" -fplugin-arg-tf-manifest="$work/m.json" calls.c -o "$work/prog" \
    -L"$work" -Wl,-rpath,"$work" -lfixture -L"$libdir" -ltf -Wl,-rpath,"$libdir" -pthread || exit 1
name=$(basename "$cc" | sed 's/[-+].*//; s/^g$/gcc/')
sed -E 's/"compiler": "[a-z]+"/"compiler": "COMPILER"/' "$work/m.json" | diff -u calls.manifest.json - ||
    bad "the manifest differs from calls.manifest.json"

# The timing report: the call sites of handle_request under it, report's
# printf under report, main's call of report under no one (main is no
# timing point): JSON's "calls", as caller callee count.
(cd "$work" && TF_MONITORS=io=timing,app=timing TF_REPORT="$work/t.json" ./prog > /dev/null) || bad "the run failed"
got=$(python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["calls"]:
    print(c["caller"], c["callee"], c["count"])' "$work/t.json" | sort)
want=$(printf '%s\n' "calls.handle_request calls.free 1" "calls.handle_request calls.lib_scale 1" \
    "calls.handle_request calls.malloc 1" "calls.handle_request calls.strlen 1" \
    "calls.handle_request calls.twice 1" "calls.handle_request calls.write 1" "calls.report calls.printf 1")
[ "$got" = "$want" ] || bad "timing report's calls: got
$got
want
$want"
(cd "$work" && TF_MONITORS=io=timing,app=timing TF_REPORT=- ./prog 2>&1 >/dev/null) |
    grep -A1 '^  calls.handle_request$' | grep -q '^    calls\.' || bad "the text report has no call sites under calls.handle_request"
[ $fail = 0 ] && echo "ok: calls.c's manifest and timing report ($cc)"
exit $fail
