# threads: the rounds of hot on two threads at once; each thread counts its
# calls in its own counters and the budget thread adds them up: tiny is
# deselected once, for both, and spin and slow keep all 2 x 150 calls.
TF_MONITORS=app=timing TF_BUDGET=5% TF_REPORT=r.csv "$app" threads 150 > t.out 2> t.err ||
    fail "budapp: exit status $?"
expect_lines threads-out t.out 'sum 31499925000000' 'budget thread: yes'
expect_lines threads-err t.err "$(head_re 5% 1 3)" "$(fn_re 'budapp\.tiny')"
for f in spin slow; do
    [ "$(count_of r.csv budapp.$f)" = 300 ] || fail "$f: $(count_of r.csv budapp.$f) calls timed, not 300"
done
same_calls threads t.err r.csv
