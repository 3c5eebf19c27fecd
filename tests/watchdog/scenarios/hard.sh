# hard: the calls a report lists are the calls open. After a longjmp out of
# four nested calls, the stuck nap's stack holds only jumps and nap (-O2 and
# -O0); after a C++ exception unwound four, only catcher and nap. A forked child runs its own watchdog, for its own calls. A library
# dlopen'ed while the watchdog runs has its lock calls rerouted too.
"$cc" -O0 -g -fplugin="$plugin" -I"$inc" "$here/wdapp.c" -L"$libdir" -ltf -lpthread -ldl \
    -Wl,-rpath,"$libdir" -o wdapp-O0 || fail "cannot compile wdapp at -O0"
for prog in "$app" ./wdapp-O0; do
    env TF_WATCHDOG=500ms "$prog" jump 1 > jump.out 2> jump.err || fail "exit status $?"
    expect_lines "jump $prog" jump.err \
        'tf: watchdog: thread [0-9]+ \(wdapp(-O0)?\): wdapp\.nap has been open for [0-9.]+ (s|ms)' \
        ' +[0-9.]+ (s|ms)  wdapp\.jumps\(seconds=1\)' \
        ' +[0-9.]+ (s|ms)  wdapp\.nap\(seconds=1, why="after the jump"\)' \
        'tf: watchdog: thread [0-9]+ \(wdapp(-O0)?\): wdapp\.nap returned after [0-9.]+ s'
done

"$cxx" -O2 -g -fplugin="$plugin" -I"$inc" "$here/wdexc.cc" -L"$libdir" -ltf -Wl,-rpath,"$libdir" \
    -o wdexc || fail "cannot compile wdexc.cc with $cxx"
env TF_WATCHDOG=500ms ./wdexc > exc.out 2> exc.err || fail "exit status $?"
expect_lines exception exc.err \
    'tf: watchdog: thread [0-9]+ \(wdexc\): wdexc\.nap has been open for [0-9.]+ (s|ms)' \
    ' +[0-9.]+ (s|ms)  wdexc\.catcher\(seconds=1\)' \
    ' +[0-9.]+ (s|ms)  wdexc\.nap\(seconds=1\)' \
    'tf: watchdog: thread [0-9]+ \(wdexc\): wdexc\.nap returned after [0-9.]+ s'

env TF_WATCHDOG=500ms "$app" fork 1 > fork.out 2> fork.err || fail "exit status $?"
child=$(sed -n 's/^child //p' fork.out)
expect_lines fork fork.err \
    "tf: watchdog: thread $child \(wdapp\): wdapp\.nap has been open for [0-9.]+ (s|ms)" \
    ' +[0-9.]+ (s|ms)  wdapp\.run\(n=1, seconds=1\)' \
    ' +[0-9.]+ (s|ms)  wdapp\.nap\(seconds=1, why="test"\)' \
    "tf: watchdog: thread $child \(wdapp\): wdapp\.nap returned after [0-9.]+ s"

"$cc" -O2 -g -shared -fPIC -fplugin="$plugin" -I"$inc" "$here/wdlib.c" -L"$libdir" -ltf -lpthread \
    -Wl,-rpath,"$libdir" -o wdlib.so || fail "cannot compile wdlib.so"
env TF_WATCHDOG=500ms "$app" dldeadlock "$work/wdlib.so" > dl.out 2> dl.err || fail "exit status $?"
grep -qE '^tf: watchdog: lock cycle: 2 threads blocked for ' dl.err || fail "no cycle in the dlopen'ed library"
[ "$(grep -cE '^  thread [0-9]+ \(wdapp\) holds mutex 0x[0-9a-f]+ \(taken in wdlib\.lib_take\) and waits for mutex 0x[0-9a-f]+ \(in wdlib\.lib_take\)$' dl.err)" = 2 ] ||
    fail "the cycle does not name wdlib.lib_take twice"
