# Per-function selection (docs/design.md .ctl.select) on generated code:
# TF_SELECT at start, tf-ctl select / deselect / selection, each checked against
# the exact trace of the main thread's calls (the 4 serving threads call
# handle(0) and step(0), whose lines are left out), bad items, items that
# matched nothing.
start_app TF_MONITORS='app=dprint' TF_SELECT='-step' TF_OUTPUT="$work/out.txt" TF_OUTPUT_BUFFER=line
# Each group has its own dprint monitor with its own depth: step is not indented.
mine() { grep -v -e 'id=0,' -e '(n=0)' -e '<-(0)$' out.txt; }

say call 5 0 # handle traced, step deselected
ctl functions >functions.txt
expect_same functions 'ctlapp.fail	req	on	selected
ctlapp.handle	req	on	selected
ctlapp.step	work	off	deselected' functions.txt
ctl select 'ctlapp.step' >sel.txt || fail "select"
expect_same select 'selection	-step,+ctlapp.step
selected	3 of 3 monitored functions' sel.txt
say call 6 0 # both traced
ctl deselect 'ctlapp.h*, fail' >sel.txt || fail "deselect"
expect_same deselect 'selection	-step,+ctlapp.step,-ctlapp.h*,-fail
selected	1 of 3 monitored functions' sel.txt
say call 7 0 # step only

ctl select '-step,[abc' 2>err.txt && fail "an unclosed '[' accepted"
grep -q "item 2 '\[abc': an unclosed '\['; nothing changed" err.txt || fail "bad item: $(cat err.txt)"
ctl deselect 'x\' 2>err.txt && fail "a trailing backslash accepted"
grep -q "item 1 '-x\\\\': ends with '\\\\'; nothing changed" err.txt || fail "bad item: $(cat err.txt)"
ctl select 2>err.txt && fail "select without items accepted"
grep -q "select needs items" err.txt || fail "no items: $(cat err.txt)"
ctl selection >sel.txt
expect_same unchanged 'selection	-step,+ctlapp.step,-ctlapp.h*,-fail
selected	1 of 3 monitored functions' sel.txt

ctl selection clear >sel.txt || fail "selection clear"
expect_same cleared 'selection	(everything)
selected	3 of 3 monitored functions' sel.txt
say call 8 0 # both traced
ctl select '+step' >/dev/null || fail "select +step" # a first inclusion: only step
# An item that matches no monitored function of the code loaded would change
# nothing: the whole request is refused, naming it (and the nearest name).
ctl deselect 'nosuch_ctl*' 2>err.txt && fail "deselect nosuch_ctl* accepted"
expect_same unmatched "tf-ctl: process $pid: error: column 10: item 1 '-nosuch_ctl*' matches no monitored function of the code loaded; nothing changed (at 'nosuch_ctl*')" err.txt
ctl select '+step,+handel' 2>err.txt && fail "select +handel accepted"
expect_same misspelt "tf-ctl: process $pid: error: column 8: item 2 '+handel' matches no monitored function of the code loaded; nothing changed; did you mean 'handle'? (at '+step,+handel')" err.txt
ctl functions 'ctlapp.stpe' 2>err.txt && fail "functions listed nothing and succeeded"
expect_same functions-none "tf-ctl: process $pid: error: column 11: no monitored function of the code loaded matches 'ctlapp.stpe'; did you mean 'ctlapp.step'? (at 'ctlapp.stpe')" err.txt
say call 9 0
stop_app
# Only TF_SELECT's own items are said at exit (tf-ctl refused what matched nothing).
grep -q 'nosuch_ctl' app.err && fail "tf-ctl's item reported at exit as TF_SELECT's: $(cat app.err)"

expect_same trace '(ctlapp): ctlapp.handle->(id=5, path="/x", ms=0)
(ctlapp): ctlapp.handle<-(10)
(ctlapp): ctlapp.handle->(id=6, path="/x", ms=0)
(ctlapp): ctlapp.step->(n=6)
(ctlapp): ctlapp.step<-(12)
(ctlapp): ctlapp.handle<-(12)
(ctlapp): ctlapp.step->(n=7)
(ctlapp): ctlapp.step<-(14)
(ctlapp): ctlapp.handle->(id=8, path="/x", ms=0)
(ctlapp): ctlapp.step->(n=8)
(ctlapp): ctlapp.step<-(16)
(ctlapp): ctlapp.handle<-(16)
(ctlapp): ctlapp.step->(n=9)
(ctlapp): ctlapp.step<-(18)' <(mine)

# From the environment: a bad item is named and the others apply; an item
# that matched nothing is said at exit.
TF_MONITORS='app=dprint' TF_SELECT='-handle,[x,-nosuch*' TF_OUTPUT="$work/env.txt" \
    "$app" script 2>env.err || fail "script"
expect_same env-errors "tf: TF_SELECT: item 2 '[x': an unclosed '['; the other items apply
tf: TF_SELECT: item 3 '-nosuch*' matched no monitored function of the code loaded: it changed nothing" env.err
grep -q 'ctlapp.handle' env.txt && fail "handle traced although deselected"
[ "$(grep -c 'ctlapp.step->' env.txt)" = 3 ] || fail "want the 3 step calls of script: $(cat env.txt)"
