#!/bin/bash
# rules-files.sh: a rules file that is no regular file (a FIFO with no writer,
# a directory, a device) is refused with a message naming it; the compiler
# never blocks on it and never takes it as an empty file. Run with either
# plugin (plugin-core reads the file for both).
#   rules-files.sh COMPILER PLUGIN INCLUDE_DIR WORK
set -u
cc=$1 plugin=$2 inc=$3 work=$4
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
command -v timeout >/dev/null || { echo "skip: no timeout(1)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
mkfifo fifo.rules && mkdir dir.rules || exit 1
printf 'int f(int x) { return x; }\n' > t.c
fail=0
check() { # PATH KIND
    out=$(timeout 60 "$cc" -fplugin="$plugin" -fplugin-arg-tf-rules="$1" -I"$inc" -c t.c -o t.o 2>&1)
    rc=$?
    echo "$out"
    [ $rc = 124 ] && { echo "FAIL: $1: the compiler blocked"; fail=1; return; }
    [ $rc = 0 ] && { echo "FAIL: $1: accepted"; fail=1; }
    grep -q "error: tf: rules file '$1' is $2, not a regular file" <<<"$out" ||
        { echo "FAIL: $1: no message naming it as $2"; fail=1; }
}
check fifo.rules "a FIFO"
check dir.rules "a directory"
check /dev/null "a character device"
out=$("$cc" -fplugin="$plugin" -fplugin-arg-tf-rules=missing.rules -I"$inc" -c t.c -o t.o 2>&1)
grep -q "error: tf: cannot read rules file 'missing.rules': No such file or directory" <<<"$out" ||
    { echo "$out"; echo "FAIL: a missing rules file"; fail=1; }
[ $fail = 0 ] && echo "ok"
exit $fail
