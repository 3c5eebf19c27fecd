# cycle: two threads taking two mutexes in opposite order, each inside a
# monitored function (then an rwlock and a mutex, timedlock): the cycle names both threads, the mutex each holds
# (its address, the function that took it) and the one it waits for; then
# each thread's stack. The process hangs: said once, with the threads above.
env TF_WATCHDOG=500ms "$app" deadlock > cycle.out 2> cycle.err || fail "exit status $?"
a=$(sed -n 's/^a=\(0x[0-9a-f]*\) b=.*/\1/p' cycle.out) b=$(sed -n 's/.* b=\(0x[0-9a-f]*\)$/\1/p' cycle.out)
[ -n "$a" ] && [ -n "$b" ] || fail "no addresses: $(cat cycle.out)"
one="thread [0-9]+ \(one\) holds mutex $a \(taken in wdapp\.take_ab\) and waits for mutex $b \(in wdapp\.take_ab\)"
two="thread [0-9]+ \(two\) holds mutex $b \(taken in wdapp\.take_ba\) and waits for mutex $a \(in wdapp\.take_ba\)"
grep -qE '^tf: watchdog: lock cycle: 2 threads blocked for [0-9.]+ (s|ms), each waiting for a lock the next one holds$' cycle.err ||
    fail "no cycle line"
[ "$(grep -cE "^  ($one|$two)\$" cycle.err)" = 2 ] || fail "the cycle does not name both threads, locks and functions"
grep -qE '^tf: watchdog: thread [0-9]+ \(one\): wdapp\.take_ab has been open for ' cycle.err || fail "no stack of one"
grep -qE "^ +[0-9.]+ (s|ms)  wdapp\.take_ab\(first=$a, second=$b\)\$" cycle.err || fail "no call of take_ab"
grep -qE "^ +[0-9.]+ (s|ms)  wdapp\.take_ba\(first=$b, second=$a\)\$" cycle.err || fail "no call of take_ba"
[ "$(grep -c 'lock cycle' cycle.err)" = 1 ] || fail "the cycle reported more than once"
# (the hang is seen in the scan that finds the cycle, or in the next one)
grep -qE '^tf: watchdog: hang: no monitored call entered or left in any thread for [0-9.]+ (s|ms); 2 threads have calls open(, all reported above)?$' cycle.err ||
    fail "no hang line"
[ "$(grep -c '^tf: watchdog: ' cycle.err)" = 4 ] || fail "more lines than the cycle, two stacks and the hang"

# rwdeadlock: an rwlock's reader (known from the watchdog's records only)
# blocked in pthread_mutex_timedlock, the mutex's holder in pthread_rwlock_wrlock.
env TF_WATCHDOG=500ms "$app" rwdeadlock > rw.out 2> rw.err || fail "exit status $?"
rw=$(sed -n 's/^rw=\(0x[0-9a-f]*\) m=.*/\1/p' rw.out) m=$(sed -n 's/.* m=\(0x[0-9a-f]*\)$/\1/p' rw.out)
reader="thread [0-9]+ \(reader\) holds rwlock \(read\) $rw \(taken in wdapp\.read_then_lock\) and waits for mutex $m \(in wdapp\.read_then_lock\)"
writer="thread [0-9]+ \(writer\) holds mutex $m \(taken in wdapp\.lock_then_write\) and waits for rwlock \(write\) $rw \(in wdapp\.lock_then_write\)"
[ "$(grep -cE "^  ($reader|$writer)\$" rw.err)" = 2 ] || fail "the rwlock cycle is not named as expected"

# hang2: two threads each sleeping in a call: the hang lists both, under one line.
env TF_WATCHDOG=500ms "$app" hang2 > hang.out 2> hang.err || fail "exit status $?"
# (the worker's nap begins 50 ms before main's: a scan may see its stall first)
grep -qE '^tf: watchdog: hang: no monitored call entered or left in any thread for [0-9.]+ (s|ms); 2 threads have calls open(, 1 reported above)?$' hang.err ||
    fail "no hang line in hang2"
grep -qE '^ +[0-9.]+ (s|ms)  wdapp\.nap\(seconds=30, why="worker"\)$' hang.err || fail "no worker in the hang"
grep -qE '^ +[0-9.]+ (s|ms)  wdapp\.nap\(seconds=3, why="main"\)$' hang.err || fail "no main in the hang"
[ "$(grep -c 'has been open for' hang.err)" = 2 ] || fail "a thread reported twice"
