# 100 concurrent clients, garbage, silent and vanishing clients while 4
# threads trace: every client gets its answer and the program never waits.
start_app TF_MONITORS='app=timing'
python3 - "$work/run/tf/$pid.sock" <<'PY' &
import os, socket, sys, time
path = sys.argv[1]
silent = []
for i in range(8):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    if i % 4 == 0:
        s.sendall(os.urandom(5000))        # garbage, more than a request line
    elif i % 4 == 1:
        s.sendall(b"status")               # no end of line, then vanishes
    elif i % 4 == 2:
        s.sendall(b"\x00\x01register \xff=\n")
        silent.append(s)                   # never reads its answer
        continue
    else:
        silent.append(s)                   # says nothing
        continue
    s.close()
time.sleep(3)
PY
garbage=$!
clients=()
for i in $(seq 100); do
    ( ctl status >"$work/status.$i" 2>&1 || echo failed >>"$work/status.$i" ) &
    clients+=($!)
done
start=$(date +%s)
say call 1 0
[ $(( $(date +%s) - start )) -le 2 ] || fail "the program waited for the control thread"
wait "${clients[@]}" "$garbage"
for i in $(seq 100); do
    grep -q "^pid	$pid\$" "$work/status.$i" || fail "client $i: $(cat "$work/status.$i")"
done
ctl report | grep -q 'ctlapp.handle' || fail "no report after the flood"
stop_app
