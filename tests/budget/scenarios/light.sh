# light: hooks that are most of the CPU time, yet within the budget. mix's
# body is two multiply-xorshift steps (about 4.5 ns a call on the machine
# this was written on); a metered call of the noop monitor costs 6 to 8 ns
# more, measured with perf stat against the build without a monitor: the
# hooks take 1.4 to 1.9 times the program's own time, and the estimate
# (.budget.cost) says 4 to 11 times. There the program's own time, the
# difference of two close numbers, is known badly (.budget.order), and a
# budget of 1000% must still deselect nothing: 20 short runs of a few
# windows each (before the judge read that time most favourably, 4 to 6 in
# 30 runs deselected mix). A budget of 20% deselects it at once.
NOTHING="tf: budget 1000%: the hooks and the budget's thread took $NUM% of the program's own time \($NUM s of $NUM s CPU; [0-9]+ calls traced\); no function was deselected \(1 measured\)"
for i in $(seq 1 20); do
    TF_MONITORS=app=noop TF_BUDGET=1000% "$app" light 4 > light.out 2> light.err ||
        fail "budapp light: exit status $?"
    expect_lines "light-out (run $i)" light.out 'sum [0-9]+' 'budget thread: yes'
    expect_lines "light-err (run $i)" light.err "$NOTHING"
done
TF_MONITORS=app=noop TF_BUDGET=20% "$app" light 20 > low.out 2> low.err || fail "budapp light: exit status $?"
expect_lines low-err low.err "$(head_re 20% 1 1)" "$(fn_re 'budapp\.mix')"
