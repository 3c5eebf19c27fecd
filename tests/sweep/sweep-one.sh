#!/bin/bash
# sweep-one.sh FILE.c CONFIG...: one corpus program through every CONFIG
# ("name:driver:plugin") at -O0 and -O2; sweep.sh's helper (it exports
# corpus, inc, libdir, work, and the monitors to run under). Writes lines "FILE CC OPT CLASS WHERE" to
# $work/results/FILE: "ok -", "skip plain", or one line per problem.
set -u
file=$1; shift
src=$corpus/$file
base=${file%.c}
out=$work/results/$file
mkdir -p "${out%/*}" && : > "$out" || exit 1
limit=10
# The options the test itself asks for (dg-options), where they are not
# for another target.
opts=$(grep -h -E 'dg-(additional-)?options' "$src" | grep -v -E 'target|xfail' |
       sed -E 's/.*dg-(additional-)?options[[:space:]]+"?\{?[[:space:]]*"?([^"}]*)"?.*/\2/' | tr '\n' ' ')
opts=${opts//-O2/}
# The subdirectories, as their .exp files build them on x86-64: ieee/ with
# -fno-inline; builtins/ with the test's -lib.c and lib/main.c linked in (they
# define libc functions that abort when main's optimised code still calls
# them) and builtins.exp's flags, the GCC-only ones for GCC alone. Then the
# test's .x file, its unconditional lines (the indented ones are for other
# targets): `set additional_flags` replaces the directory's flags, `lappend`
# adds to them.
srcs=("$src") dirflags= gccflags=
case $file in
ieee/*) dirflags="-fno-inline" ;;
builtins/*)
    [ -f "$corpus/$base-lib.c" ] && srcs+=("$corpus/$base-lib.c")
    srcs+=("$corpus/builtins/lib/main.c")
    dirflags="-fno-inline-functions -Wl,--allow-multiple-definition"
    gccflags="-fno-tree-dse -fno-tree-loop-distribute-patterns -fno-tracer -fno-ipa-ra" ;;
esac
if [ -f "$corpus/$base.x" ]; then
    set_flags=$(sed -n -E 's/^set additional_flags[[:space:]]+//p' "$corpus/$base.x" | tr -d '"')
    [ -n "$set_flags" ] && dirflags=$set_flags gccflags=
    dirflags+=" $(sed -n -E 's/^lappend additional_flags[[:space:]]+//p' "$corpus/$base.x" | tr -d '"' | tr '\n' ' ')"
fi
opts+=" $dirflags"

run() { # run EXE [ENV...]: prints the class of the run
    local exe=$1; shift
    env "$@" timeout -s KILL $limit "$exe" > /dev/null 2>&1 < /dev/null
    local rc=$?
    if [ $rc = 0 ]; then echo ok
    elif [ $rc = 137 ]; then echo hang
    elif [ $rc = 134 ] || [ $rc -lt 128 ]; then echo wrong
    else echo crash
    fi
}

for config in "$@"; do
    IFS=: read -r name cc plugin <<< "$config"
    for opt in -O0 -O2; do
        d=$work/build/$name$opt/$base
        mkdir -p "$d"
        flags=(-w $opt $opts -fno-diagnostics-color)
        [ "$name" = gcc ] && flags+=($gccflags)
        if ! "$cc" "${flags[@]}" "${srcs[@]}" -o "$d/plain" -lm > "$d/plain.log" 2>&1 ||
           [ "$(run "$d/plain")" != ok ]; then
            echo "$file $name $opt skip plain" >> "$out"
            continue
        fi
        "$cc" "${flags[@]}" -fplugin="$plugin" -fplugin-arg-tf-rules="$work/all.rules" -I"$inc" \
            "${srcs[@]}" -o "$d/inst" -L"$libdir" -ltf -Wl,-rpath,"$libdir" -lm > "$d/inst.log" 2>&1
        rc=$?
        if grep -q -E 'internal compiler error|PLEASE submit a bug report|Stack dump' "$d/inst.log" ||
           [ $rc -ge 128 ]; then
            echo "$file $name $opt ice compile" >> "$out"
            continue
        elif [ $rc != 0 ]; then
            echo "$file $name $opt error compile" >> "$out"
            continue
        fi
        bad=0
        for mon in $monitors; do
            envs=(TF_OUTPUT=/dev/null TF_REPORT=/dev/null)
            [ $mon != off ] && envs+=(TF_MONITORS=all=$mon)
            class=$(run "$d/inst" "${envs[@]}")
            [ "$class" = ok ] && continue
            echo "$file $name $opt $class $mon" >> "$out"
            bad=1
        done
        [ $bad = 0 ] && echo "$file $name $opt ok -" >> "$out"
        [ $bad = 0 ] && rm -rf "$d"
    done
done
exit 0
