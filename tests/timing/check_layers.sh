#!/bin/sh
# The timing files call each other without a circle (timing_internal.h lists
# their layers): every call from one object into another is an edge, and
# tsort fails on a loop. Usage: check_layers.sh NM "OBJECT;..." (libtf's
# objects as CMake lists them; those of runtime/timing/ are checked).
set -u
nm=$1
set -- $(printf '%s\n' "$2" | tr ';' '\n' | grep '/runtime/timing/')
[ $# -ge 2 ] || { echo "check_layers: no timing objects in libtf's list" >&2; exit 1; }
defs=$(mktemp) && undefs=$(mktemp) && edges=$(mktemp) || exit 1
trap 'rm -f "$defs" "$undefs" "$edges"' EXIT
for o in "$@"; do
  f=$(basename "$o" | sed 's/\..*//')
  echo "$f $f" >>"$edges"
  "$nm" --defined-only "$o" | awk -v f="$f" '$2 ~ /^[TDRB]$/ {print $3, f}' >>"$defs" || exit 1
  "$nm" -u "$o" | awk -v f="$f" '{print $2, f}' >>"$undefs" || exit 1
done
awk 'NR == FNR {def[$1] = $2; next} ($1 in def) && def[$1] != $2 {print $2, def[$1]}' \
  "$defs" "$undefs" >>"$edges"
sort -u "$edges" | sed 's/^/  /'
if ! tsort "$edges" >/dev/null; then
  echo "check_layers: the timing files call each other in a circle (above: caller callee)" >&2
  exit 1
fi
echo "check_layers: no circle among $# timing objects"
