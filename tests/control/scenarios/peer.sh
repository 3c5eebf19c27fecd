# A peer of another uid is refused (SO_PEERCRED) and the refusal recorded. The
# program runs as a test user; root, another uid, connects.
if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v runuser >/dev/null; then
    echo "SKIP: needs root with useradd and runuser to create a second user"
    exit 77
fi
user=tfctl$$
useradd -M -s /bin/sh "$user" || fail "useradd"
tmp=$(mktemp -d /tmp/tfctl-peer.XXXXXX)
# The program, its runuser and its sleep are one process group of their own
# (setsid), ended together.
trap '[ -n "$group" ] && kill -KILL -- "-$group" 2>/dev/null; userdel "$user" 2>/dev/null; rm -rf "$tmp"' EXIT
cp "$app" "$libdir"/libtf.so.0 "$tfctl" "$tmp"/ && mkdir -m 700 "$tmp/run" && chown -R "$user" "$tmp"
chmod 755 "$tmp"
setsid runuser -u "$user" -- env XDG_RUNTIME_DIR="$tmp/run" LD_LIBRARY_PATH="$tmp" TF_CONTROL=1 \
    sh -c 'sleep 30 | "$0/ctlapp" serve 1' "$tmp" >/dev/null 2>"$work/app.err" &
group=$!
for _ in $(seq 100); do
    sock=$(ls "$tmp"/run/tf/*.sock 2>/dev/null | head -1)
    [ -n "$sock" ] && break
    sleep 0.05
done
[ -n "$sock" ] || fail "the test user's program serves no socket"
upid=$(basename "$sock" .sock)
# tf-ctl itself refuses a socket directory of another user (root included);
# a raw client gets as far as the server, which refuses it.
XDG_RUNTIME_DIR=$tmp/run "$tfctl" "$upid" register 'app=dprint' 2>err.txt && fail "root was served"
expect_same client-refusal "tf-ctl: not using $tmp/run/tf: it belongs to uid $(id -u "$user"), not to you (uid 0)" err.txt
python3 - "$sock" >err.txt <<'PY' || fail "raw client: $(cat err.txt)"
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
try:
    s.sendall(b"register app=dprint\n")
except BrokenPipeError: # refused before it was read: the answer is there
    pass
print(s.recv(4096).decode(), end="")
PY
expect_same server-refusal "error: permission denied" err.txt
runuser -u "$user" -- env XDG_RUNTIME_DIR="$tmp/run" "$tmp/tf-ctl" "$upid" status >status.txt ||
    fail "the owner was not served"
grep -qx 'denials	1' status.txt || fail "the refusal was not recorded: $(cat status.txt)"
grep -q 'tf: permission denied: connect from control socket peer uid 0' "$work/app.err" ||
    fail "no denial on stderr"
