# ctl: tf-ctl PID budget on a program started without one. Off at first;
# a bad value is an error at its column and changes nothing; 5% starts it,
# and by the half (30 rounds) tiny is deselected (tf-ctl budget and
# functions say so); 20% changes it; off stops it and gives tiny back, so
# every one of its 30 x 200,000 calls of the second half is timed. At exit
# the line says what was deselected and that it was re-admitted.
coproc APP { exec env TF_CONTROL=1 TF_MONITORS=app=timing TF_REPORT=r.csv "$app" wait 60 2> app.err; }
read -r -t 10 -u "${APP[0]}" word && [ "$word" = ready ] || fail "budapp did not start"
pid=$APP_PID
for _ in $(seq 100); do [ -S "run/tf/$pid.sock" ] && break; sleep 0.05; done
ctl() { "$tfctl" "$pid" "$@"; }

ctl budget > b0.out || fail "budget"
expect_lines budget-off b0.out 'budget	off'
ctl budget 5x > b1.out 2> b1.err && fail "budget 5x succeeded"
expect_lines budget-5x b1.err "tf-ctl: process $pid: error: column 8: '5x' is not a percentage: a number and '%', e\.g\. 5% \(at '5x'\)"
ctl budget 0% > b2.out 2> b2.err && fail "budget 0% succeeded"
expect_lines budget-0 b2.err "tf-ctl: process $pid: error: column 8: '0%' is not a budget from 0\.1% to 1000% \(at '0%'\)"
ctl budget 5% 5% > b3.out 2> b3.err && fail "budget 5% 5% succeeded"
expect_lines budget-twice b3.err "tf-ctl: process $pid: error: column 11: unexpected text after the argument \(at '5%'\)"
ctl budget > b4.out || fail "budget"
expect_lines still-off b4.out 'budget	off'

ctl budget 5% > b5.out || fail "budget 5%"
expect_lines budget-on b5.out 'budget	5%' "hooks	$NUM% of the program's own time so far \(last window $NUM%\)" \
    'functions	0 measured, 0 deselected, 0 on trial'
echo go >&"${APP[1]}"
read -r -t 60 -u "${APP[0]}" word && [ "$word" = half ] || fail "budapp did not reach its half"
ctl budget > b6.out || fail "budget"
expect_lines budget-half b6.out 'budget	5%' "hooks	$NUM% of the program's own time so far \(last window $NUM%\)" \
    'functions	3 measured, 1 deselected, 0 on trial' "deselected	$(fn_re 'budapp\.tiny' | sed 's/^tf:   //')"
ctl functions > f1.out || fail "functions"
expect_lines functions-half f1.out 'budapp\.mix	app	on	selected' 'budapp\.slow	app	on	selected' 'budapp\.spin	app	on	selected' \
    'budapp\.tiny	app	off	selected	deselected by the budget'
ctl budget 20% > b7.out || fail "budget 20%"
expect_lines budget-20 b7.out 'budget	20%' "hooks	$NUM% of the program's own time so far \(last window $NUM%\)" \
    'functions	3 measured, 1 deselected, 0 on trial' "deselected	$(fn_re 'budapp\.tiny' | sed 's/^tf:   //')"
ctl budget off > b8.out || fail "budget off"
expect_lines budget-stop b8.out 'budget	off'
ctl functions > f2.out || fail "functions"
expect_lines functions-off f2.out 'budapp\.mix	app	on	selected' 'budapp\.slow	app	on	selected' 'budapp\.spin	app	on	selected' \
    'budapp\.tiny	app	on	selected'
echo go >&"${APP[1]}"
read -r -t 60 -u "${APP[0]}" word sum && read -r -t 10 -u "${APP[0]}" thread ||
    fail "budapp did not finish"
[ "$word $sum" = "sum 6299985000000" ] || fail "budapp said '$word $sum'"
[ "$thread" = "budget thread: no" ] || fail "budapp said '$thread' (after budget off)"
wait "$pid" || fail "budapp: exit status $?"
expect_lines exit-line app.err "$(head_re off 1 3)" "$(fn_re 'budapp\.tiny' '; re-admitted at [0-9.]+ s')"
n=$(count_of r.csv budapp.tiny)
[ "$n" -ge 6000000 ] && [ "$n" -lt 12000000 ] || fail "tiny: $n calls timed, not the second half's 6000000 and some of the first's"
for f in spin slow; do
    [ "$(count_of r.csv budapp.$f)" = 60 ] || fail "$f: $(count_of r.csv budapp.$f) calls timed, not 60"
done
