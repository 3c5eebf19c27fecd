# quiet: 10,000,000 short calls inside one long call under the watchdog
# report nothing (the long call moves: its callees enter and leave). Without
# TF_WATCHDOG no lock function is rerouted; with it they are.
env TF_WATCHDOG=300ms "$app" busy 10000000 > busy.out 2> busy.err || fail "exit status $?"
[ -s busy.err ] && fail "something reported: $(head -3 busy.err)"
"$app" bound > off.out 2> off.err || fail "exit status $?"
[ "$(cat off.out)" = "rerouted no" ] || fail "without TF_WATCHDOG: $(cat off.out)"
env TF_WATCHDOG=1s "$app" bound > on.out 2> on.err || fail "exit status $?"
[ "$(cat on.out)" = "rerouted yes" ] || fail "with TF_WATCHDOG: $(cat on.out)"
# A bad value is said once, exactly, and nothing runs.
env TF_WATCHDOG=2 "$app" bound > bad.out 2> bad.err || fail "exit status $?"
expect_lines bad bad.err "tf: TF_WATCHDOG: '2' does not start with a duration: a number and a unit \(ns, us, ms, s\), e\.g\. 2s; ignored"
[ "$(cat bad.out)" = "rerouted no" ] || fail "a bad TF_WATCHDOG still rerouted"
env TF_WATCHDOG=$'1s,abrt\e[2J' "$app" bound > bad2.out 2> bad2.err || fail "exit status $?"
expect_lines bad2 bad2.err "tf: TF_WATCHDOG: '1s,abrt\\\\x1b\[2J' has an unknown action 'abrt\?\[2J' \(known: abort, report, snapshot\); ignored"
