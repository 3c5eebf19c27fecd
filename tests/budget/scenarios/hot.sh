# hot: TF_BUDGET=5% under timing. tiny's body is a multiply and an add (a
# nanosecond or two) and its hooks cost tens of nanoseconds: past the budget
# in the first window (5 ms), so it is deselected and named at exit. spin and
# slow are called once a round and take about a millisecond each: their
# hooks are a hundred-thousandth of that, so they stay, and every one of
# their 300 calls is in the report; tiny's 300 x 200,000 = 60,000,000 calls
# are not all there. spin(200000) sums 3i+1 (59,999,900,000), slow(3) sums
# i below 300,000 (44,999,850,000): 300 rounds make 31,499,925,000,000.
TF_MONITORS=app=timing TF_BUDGET=5% TF_REPORT=r.csv "$app" hot 300 > hot.out 2> hot.err ||
    fail "budapp: exit status $?"
expect_lines hot-out hot.out 'sum 31499925000000' 'budget thread: yes'
expect_lines hot-err hot.err "$(head_re 5% 1 3)" "$(fn_re 'budapp\.tiny')"
for f in spin slow; do
    [ "$(count_of r.csv budapp.$f)" = 300 ] || fail "$f: $(count_of r.csv budapp.$f) calls timed, not 300"
done
n=$(count_of r.csv budapp.tiny)
[ "$n" -gt 0 ] && [ "$n" -lt 60000000 ] || fail "tiny: $n calls timed: not deselected"
same_calls hot hot.err r.csv

# The same with monitors of other costs: the tracer, the recorder with values.
for m in tracer record; do
    TF_MONITORS=app=$m TF_RECORD=rec TF_BUDGET=5% "$app" hot 100 > $m.out 2> $m.err ||
        fail "budapp under $m: exit status $?"
    grep -v '^tf: record: ' $m.err > $m.budget.err
    expect_lines "hot-$m" $m.budget.err "$(head_re 5% 1 3)" "$(fn_re 'budapp\.tiny')"
done

# Built with the plugin's default (clone-opt=light), the calls kept (spin's,
# slow's) run traced copies compiled light, which the budget cannot see:
# the exit says so and how to build instead (.budget.unseen). At -O0 no
# copy is light, and nothing is said.
LIGHT="tf: budget: 1 translation unit was built with light traced copies \(-fplugin-arg-tf-clone-opt=light, the default\): the calls kept there run bodies compiled light \(GCC -Og, Clang optsize\), a cost the budget cannot see; build with -fplugin-arg-tf-clone-opt=full"
for o in O2 O0; do
    "$cc" -$o -g -fplugin="$plugin" -I"$inc" "$here/budapp.c" -L"$libdir" -ltf -lpthread -ldl \
        -Wl,-rpath,"$libdir" -o app-$o || fail "cannot compile budapp -$o with the default clone-opt"
    TF_MONITORS=app=timing TF_BUDGET=5% TF_REPORT=$o.csv ./app-$o hot 30 > $o.out 2> $o.err ||
        fail "budapp -$o: exit status $?"
    if [ $o = O2 ]; then
        expect_lines "default-$o" $o.err "$(head_re 5% 1 3)" "$(fn_re 'budapp\.tiny')" "$LIGHT"
    else
        expect_lines "default-$o" $o.err "$(head_re 5% 1 3)" "$(fn_re 'budapp\.tiny')"
    fi
done
