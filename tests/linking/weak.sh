#!/bin/bash
# weak.sh CC PLUGIN INCLUDE LIBDIR OPT TF_VERSION WORK: weak.c and weak_lib.c
# built with PLUGIN, linked every way that matters, run, and checked: the
# program's output is always 49*2, it traces exactly when libtf is linked,
# and its descriptor and the verbose banner carry TF_VERSION.
set -u
cc=$1 plugin=$2 inc=$3 libdir=$4 opt=$5 version=$6 work=$7
[ -n "${TF_SANITIZE:-}" ] && { echo "skip: TF_SANITIZE set"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fails=0
fail() { echo "FAIL ($cc $opt): $*"; fails=$((fails + 1)); }
compile() { # compile OUT.o SRC [FLAGS...]
    local out=$1 src=$2; shift 2
    "$cc" -I"$inc" -g -Wall $opt -fplugin="$plugin" "$@" -c "$here/$src" -o "$out" 2> "$out.log" ||
        { cat "$out.log"; fail "compiling $src"; }
}
link() { # link OUT OBJECTS-AND-FLAGS...
    local out=$1; shift
    "$cc" "$@" -o "$out" 2> "$out.log" || { cat "$out.log"; fail "linking $out: $*"; }
}
# check PROG traced|untraced: output 98; a trace exactly when libtf is linked;
# without it, TF_MONITORS gets the notice of docs/code-shape.md section 6.
check() {
    local prog=$1 want=$2
    rm -f trace
    LD_LIBRARY_PATH=. TF_MONITORS=calc=dprint TF_OUTPUT=trace "./$prog" > out 2> err ||
        { fail "$prog exits $?: $(cat err)"; return; }
    [ "$(cat out)" = 98 ] || fail "$prog prints '$(cat out)'"
    if [ "$want" = traced ]; then
        grep -q 'weak_lib\.square->(x=7)' trace 2> /dev/null && grep -q 'weak\.twice<-(98)' trace ||
            fail "$prog: no trace ($(cat trace 2> /dev/null))"
        grep -qx "weak.c built by TF $version" err || fail "$prog: descriptor version: $(cat err)"
    else
        [ ! -s trace ] || fail "$prog traced without libtf: $(cat trace)"
        # Said once for the program, however many of its objects are instrumented.
        [ "$(cat err)" = "$nolibtf" ] || fail "$prog: stderr, not the notice once: $(cat err)"
        LD_LIBRARY_PATH=. TF_CPP_MIN_LOG_LEVEL=2 "./$prog" > out 2> err
        [ ! -s err ] || fail "$prog without TF_MONITORS: stderr: $(cat err)"
    fi
}
nolibtf="tf: TF_MONITORS, TF_TRIGGERS, TF_SELECT, TF_CONTROL or TF_HELP is set, but this program was linked without libtf (-ltf): nothing is traced"
libtf=(-L"$libdir" -Wl,-rpath,"$libdir" -ltf)

compile weak.o weak.c -fplugin-arg-tf-verbose=1
compile weak_lib.o weak_lib.c -fPIC
banner="TF $version ($(basename "$plugin") in "
grep -qF "tf: $banner" weak.o.log || fail "no '$banner' in the verbose output: $(cat weak.o.log)"
nm weak.o | grep -q ' w tf_tu_register$' || fail "tf_tu_register is not weak in weak.o"

link nolib weak.o weak_lib.o
check nolib untraced
link withlib weak.o weak_lib.o "${libtf[@]}"
check withlib traced
link asneeded -Wl,--as-needed weak.o weak_lib.o "${libtf[@]}"
check asneeded traced
link noasneeded -Wl,--no-as-needed weak.o weak_lib.o "${libtf[@]}"
check noasneeded traced

# A shared library that gets the plugin but not libtf, with --no-undefined;
# it traces once the program brings libtf.
link libweak.so -shared -Wl,--no-undefined weak_lib.o
link shared_nolib weak.o -L. -lweak
check shared_nolib untraced
link shared_withlib -Wl,--as-needed weak.o -L. -lweak "${libtf[@]}"
check shared_withlib traced

# Static: a weak reference pulls nothing out of libtf.a; --undefined does.
if [ -f "$libdir/libtf.a" ] && [ -f "$("$cc" -print-file-name=libc.a)" ]; then
    link static_nolib -static weak.o weak_lib.o
    check static_nolib untraced
    link static_withlib -static weak.o weak_lib.o -L"$libdir" -Wl,--undefined=tf_tu_register -ltf -lpthread -ldl -lm
    # The registry is linked and holds the TU. (Tracing from TF_MONITORS also
    # needs libtf.a's initializer, runtime/init.o, which no symbol pulls in.)
    ./static_withlib > out 2> err && [ "$(cat out)" = 98 ] && grep -qx "weak.c built by TF $version" err ||
        fail "static_withlib: $(cat out err)"
else
    echo "note: no static libc or libtf.a: static links not checked"
fi

[ $fails = 0 ] && echo "ok: $cc $opt links and runs with and without libtf"
exit $((fails > 0))
