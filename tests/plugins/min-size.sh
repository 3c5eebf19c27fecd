#!/bin/bash
# min-size.sh: what min_size.rules leaves plain (plugin-core/size.h) is never
# silent: the manifest lists each such function with its operation count, and
# verbose names it; -fplugin-arg-tf-min-size=0 leaves nothing out. Run with
# either plugin (C and C++): both must count alike.
#   min-size.sh COMPILER PLUGIN INCLUDE_DIR FIXTURES WORK
set -u
cc=$1 plugin=$2 inc=$3 fix=$4 work=$5
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
small() { # MANIFEST: "function operations" per left-out function, in order
    python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
print(m["min_size"], *("%s=%d" % (f["function"], f["operations"]) for f in m["too_small"]))' "$1"
}
for lang in c c++; do
    base=(-fplugin="$plugin" -fplugin-arg-tf-rules="$fix/min_size.rules" -I"$inc" -I"$fix" -x $lang)
    out=$("$cc" "${base[@]}" -fplugin-arg-tf-manifest=m.json -fplugin-arg-tf-verbose=1 \
          -c "$fix/min_size.c" -o m.o 2>&1) || { echo "$out"; bad "$lang: compile"; continue; }
    got=$(small m.json)
    want="3 get=0 set=1 clamp=2 twice_sum=2"
    [ "$got" = "$want" ] || bad "$lang: too_small is '$got', want '$want'"
    grep -q "get.* is not instrumented: 0 operations, under min-size 3" <<<"$out" ||
        bad "$lang: verbose does not name get: $out"
    for f in pick sum_to find tiny_annotated; do
        grep -q "\"name\": \"$f\"" m.json || bad "$lang: $f not instrumented"
    done
    "$cc" "${base[@]}" -fplugin-arg-tf-min-size=0 -fplugin-arg-tf-manifest=all.json \
        -c "$fix/min_size.c" -o all.o || bad "$lang: min-size=0 compile"
    got=$(small all.json)
    [ "$got" = "0" ] || bad "$lang: min-size=0 still leaves out '$got'"
    # No min-size line: the documented default, 10 (plugin-core/size.h).
    grep -v min-size "$fix/min_size.rules" > default.rules
    "$cc" "${base[@]}" -fplugin-arg-tf-rules=default.rules -fplugin-arg-tf-manifest=d.json \
        -c "$fix/min_size.c" -o d.o || bad "$lang: default compile"
    got=$(small d.json)
    want="10 get=0 set=1 clamp=2 pick=3 sum_to=5 find=5 twice_sum=2"
    [ "$got" = "$want" ] || bad "$lang: by default too_small is '$got', want '$want'"
done
[ $fail = 0 ] && echo "ok"
exit $fail
