# dl: budlib loaded, 50 rounds of lib_spin and slow, unloaded; twice. Its
# lib_tiny is deselected in the first load; loaded again (the same file and
# names), the library takes its range of function indices back with the
# decision, so lib_tiny is named once. slow and lib_spin keep all their
# calls: 100 each. lib_spin(200000) sums i^5 (19,999,900,000), with slow(3)
# 64,999,750,000 a round: 100 rounds make 6,499,975,000,000.
TF_MONITORS=app=timing TF_BUDGET=5% TF_REPORT=r.csv "$app" dl 50 "$lib" > d.out 2> d.err ||
    fail "budapp: exit status $?"
expect_lines dl-out d.out 'sum 6499975000000' 'budget thread: yes'
expect_lines dl-err d.err "$(head_re 5% 1 3)" "$(fn_re 'budlib\.lib_tiny')"
for f in budlib.lib_spin budapp.slow; do
    [ "$(count_of r.csv $f)" = 100 ] || fail "$f: $(count_of r.csv $f) calls timed, not 100"
done
n=$(count_of r.csv budlib.lib_tiny)
[ "$n" -gt 0 ] && [ "$n" -lt 20000000 ] || fail "lib_tiny: $n calls timed: not deselected"
same_calls dl d.err r.csv
