#!/bin/sh
# selftest.sh RUN_BOUNDED: what run-bounded promises, each case able to fail.
rb=$1
fail() { echo "FAIL: $*"; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/rb-self.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

# A status passes through, a skip included.
"$rb" -- sh -c 'exit 77'; [ $? = 77 ] || fail "status 77 not passed through"
"$rb" -- sh -c 'kill -TERM $$'; [ $? = 143 ] || fail "death by SIGTERM is not 143"

# A background process left behind fails the run and is killed.
"$rb" -- sh -c "sleep 300 & echo \$! > $out/bg; exit 0" 2> "$out/err1"
[ $? = 1 ] || fail "a left-over process did not fail the run"
grep -q '^run-bounded: left running: [0-9]* sleep 300' "$out/err1" || fail "the left-over was not named: $(cat "$out/err1")"
kill -0 "$(cat "$out/bg")" 2> /dev/null && fail "the left-over still runs"

# So does a daemon that left the process group and session (setsid).
"$rb" -- sh -c "setsid sh -c 'echo \$\$ > $out/daemon; exec sleep 300' & sleep 0.5; exit 0" 2> "$out/err2"
[ $? = 1 ] || fail "a detached daemon did not fail the run"
kill -0 "$(cat "$out/daemon")" 2> /dev/null && fail "the detached daemon still runs"

# At the deadline the command's trap runs, then everything dies: status 124.
start=$(date +%s)
"$rb" --deadline 1 --grace 3 -- sh -c "trap 'echo cleaned > $out/trap; exit 1' TERM; sleep 300 & wait" 2> "$out/err3"
rc=$?
[ $rc = 124 ] || fail "deadline status $rc, not 124"
[ "$(cat "$out/trap" 2> /dev/null)" = cleaned ] || fail "the command's trap did not run at the deadline"
[ $(( $(date +%s) - start )) -lt 10 ] || fail "the deadline was not kept"
grep -q 'still running after 1 s' "$out/err3" || fail "the deadline was not said"

# A command that ignores SIGTERM is killed after the grace period.
"$rb" --deadline 1 --grace 1 -- sh -c "trap '' TERM; sleep 300" 2> /dev/null
[ $? = 124 ] || fail "a command ignoring SIGTERM was not stopped"

"$rb" --deadline x -- true 2> "$out/err4"; [ $? = 2 ] || fail "a bad deadline was accepted"
grep -q "'x' is not a number of seconds" "$out/err4" || fail "a bad deadline was not named"
echo "PASS: run-bounded"
