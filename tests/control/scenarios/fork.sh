# fork with control on: the child serves its own socket, the parent keeps its own.
start_app TF_MONITORS='app=timing'
say fork
child=${last_reply#child }
for _ in $(seq 100); do [ -S "$work/run/tf/$child.sock" ] && break; sleep 0.05; done
"$tfctl" "$child" status | grep -q "^pid	$child\$" || fail "child $child does not answer"
"$tfctl" "$child" register 'work=noop' || fail "child register"
"$tfctl" "$child" groups | grep -q '^work	noop' || fail "child groups"
ctl groups | grep -q '^work	-' || fail "the child's registration reached the parent"
ctl status | grep -q "^pid	$pid\$" || fail "parent stopped answering"
"$tfctl" list | grep -c . | grep -qx 2 || fail "list: $("$tfctl" list)"
kill "$child"
# A socket that exists answers: each child is asked the moment its socket
# appears (it is renamed into place once listening; bind alone refused
# connections until listen, which this flaked on under load).
for i in $(seq 10); do
    say fork
    child=${last_reply#child }
    for _ in $(seq 100000); do [ -S "$work/run/tf/$child.sock" ] && break; done
    "$tfctl" "$child" status | grep -q "^pid	$child\$" || fail "child $child ($i) refused at once"
    kill "$child"
done
stop_app
