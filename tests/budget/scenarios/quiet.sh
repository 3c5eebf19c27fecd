# quiet: without TF_BUDGET nothing of it runs (no thread, no line at exit)
# and every one of tiny's 20 x 200,000 calls is timed. A bad TF_BUDGET is
# said once, exactly, and ignored: the program runs as without it.
TF_MONITORS=app=timing TF_REPORT=r.csv "$app" hot 20 > q.out 2> q.err || fail "budapp: exit status $?"
expect_lines quiet-out q.out 'sum 2099995000000' 'budget thread: no'
[ -s q.err ] && fail "without TF_BUDGET, stderr says: $(cat q.err)"
[ "$(count_of r.csv budapp.tiny)" = 4000000 ] || fail "tiny: $(count_of r.csv budapp.tiny) calls timed, not 4000000"

pct="is not a percentage: a number and '%', e.g. 5%; ignored"
range="is not a budget from 0.1% to 1000%; ignored"
check_bad() { # check_bad VALUE MESSAGE
    TF_MONITORS=app=timing TF_REPORT=/dev/null TF_BUDGET="$1" "$app" hot 1 > b.out 2> b.err ||
        fail "budapp with TF_BUDGET='$1': exit status $?"
    expect_lines "bad '$1'" b.out 'sum 104999750000' 'budget thread: no'
    diff <(printf '%s\n' "$2") b.err > /dev/null || fail "TF_BUDGET='$1': stderr is '$(cat b.err)', not '$2'"
}
check_bad 5 "tf: TF_BUDGET: '5' $pct"
check_bad '5 %' "tf: TF_BUDGET: '5 %' $pct"
check_bad ' 5%' "tf: TF_BUDGET: ' 5%' $pct"
check_bad 5.% "tf: TF_BUDGET: '5.%' $pct"
check_bad .5% "tf: TF_BUDGET: '.5%' $pct"
check_bad 5%% "tf: TF_BUDGET: '5%%' $pct"
check_bad -5% "tf: TF_BUDGET: '-5%' $pct"
check_bad 0% "tf: TF_BUDGET: '0%' $range"
check_bad 0.09% "tf: TF_BUDGET: '0.09%' $range"
check_bad 1000.5% "tf: TF_BUDGET: '1000.5%' $range"
check_bad 99999999999999% "tf: TF_BUDGET: '99999999999999%' $range"
check_bad off "tf: TF_BUDGET: 'off' is not a percentage ('off' is for tf-ctl; leave TF_BUDGET unset); ignored"
check_bad $'5%\x1b[2J' "tf: TF_BUDGET: '5%\\x1b[2J' $pct"

# The ends of the range are budgets; with nothing registered there is
# nothing to measure, and the exit line says so.
for v in 0.1% 1000%; do
    TF_BUDGET=$v "$app" hot 1 > e.out 2> e.err || fail "budapp with TF_BUDGET=$v: exit status $?"
    expect_lines "budget $v" e.out 'sum 104999750000' 'budget thread: yes'
    expect_lines "budget $v, nothing registered" e.err \
        "tf: budget ${v//./\\.}: the hooks and the budget's thread took $NUM% of the program's own time \($NUM s of $NUM s CPU; [0-9]+ calls traced\); no function was deselected \(0 measured\)"
done
