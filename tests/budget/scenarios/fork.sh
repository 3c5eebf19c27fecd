# fork: 50 rounds (tiny is deselected in the first), then a child does 50
# and exits, then the parent does 50 more. The child inherits the decision
# and runs a budget thread of its own; each says at its exit what was
# deselected, the child first (the parent waits for it). The child's timing
# report (r.csv.<pid>) has only its own 50 calls of spin and slow; the
# parent's its 100.
TF_MONITORS=app=timing TF_BUDGET=5% TF_REPORT=r.csv "$app" fork 100 > f.out 2> f.err ||
    fail "budapp: exit status $?"
expect_lines fork-out f.out 'child sum 5249987500000' 'child budget thread: yes' 'child status 0' \
    'sum 10499975000000' 'budget thread: yes'
expect_lines fork-err f.err "$(head_re 5% 1 3)" "$(fn_re 'budapp\.tiny')" \
    "$(head_re 5% 1 3)" "$(fn_re 'budapp\.tiny')"
child=$(ls r.csv.* 2>/dev/null)
[ -n "$child" ] || fail "no timing report of the child"
for f in spin slow; do
    [ "$(count_of "$child" budapp.$f)" = 50 ] || fail "child: $f timed $(count_of "$child" budapp.$f) times, not 50"
    [ "$(count_of r.csv budapp.$f)" = 100 ] || fail "parent: $f timed $(count_of r.csv budapp.$f) times, not 100"
done
