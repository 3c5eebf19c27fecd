# record: under the recorder with TF_BUDGET=5%, the decision is an event of
# the budget's own thread (tf-budget) in the recording: tf:budget with the
# numbers, the function and the action, read by tf-dump (text, with each
# reader, and Chrome) and babeltrace2. tiny's events end there (give or
# take the calls under way while the slot was written); slow's go on to the
# end.
[ -x "$tfdump" ] || skip "no tf-dump (libbabeltrace2 missing)"
TF_MONITORS=app=record TF_RECORD=rec TF_BUDGET=5% "$app" hot 50 > r.out 2> r.err ||
    fail "budapp: exit status $?"
G='[-+0-9.e]+'
# tf-dump's own reader (events.def's class) and babeltrace2 under it say the same.
for reader in tf babeltrace2; do
    "$tfdump" --reader=$reader rec > dump.$reader.txt 2> dump.err || fail "tf-dump --reader=$reader: $(cat dump.err)"
    grep ': budget ' dump.$reader.txt > budget.txt
    expect_lines "tf-dump --reader=$reader" budget.txt "\[[0-9]+\.[0-9]{9}\] \(tf-budget\): budget calls_per_s=$G, ns_per_call=$G, share_pct=$G, overhead_pct=$G, budget_pct=5, function=\"budapp\.tiny\", action=\"deselected\""
done
cp dump.tf.txt dump.txt
at=$(sed -E 's/^\[([0-9.]+)\].*/\1/' budget.txt)
last() { grep -E "\(budapp\): budapp\.$1(->|<-)" dump.txt | tail -1 | sed -E 's/^\[([0-9.]+)\].*/\1/'; }
tiny=$(last tiny) slow=$(last slow)
[ -n "$tiny" ] && [ -n "$slow" ] || fail "no events of tiny ('$tiny') or slow ('$slow') in the recording"
awk -v a="$at" -v t="$tiny" -v s="$slow" 'BEGIN { exit !(t < a + 0.1 && s > a) }' ||
    fail "tiny's last event at $tiny, slow's at $slow, the decision at $at"
"$tfdump" --format=chrome rec > c.json 2> c.err || fail "tf-dump --format=chrome: $(cat c.err)"
grep -q '"ph":"i",[^}]*"name":"budget","s":"p","args":{[^}]*"function":"\\"budapp.tiny\\"","action":"\\"deselected\\""' c.json ||
    fail "no budget instant event in the Chrome trace"
if command -v babeltrace2 > /dev/null; then
    babeltrace2 rec > bt.txt 2> bt.err || fail "babeltrace2: $(cat bt.err)"
    grep 'tf:budget' bt.txt > bt-budget.txt
    expect_lines babeltrace2 bt-budget.txt ".* tf:budget: \{ tid = [0-9]+, thread = \"tf-budget\" \}, \{ calls_per_s = $G, ns_per_call = $G, share_pct = $G, overhead_pct = $G, budget_pct = 5, function = \"budapp\.tiny\", action = \"deselected\" \}"
fi
