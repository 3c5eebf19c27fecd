# tf-ctl as a client (docs/design.md .ctl.client): it checks what the server
# checks, escapes what it prints and bounds what it reads. Fake servers (python)
# play a hostile program; as root, another user (uid 65534) plants them.
fake=$work/fake.py
cat >"$fake" <<'PY'
# fake.py SOCKET WHAT: serves one connection, answering WHAT; gone after 30 s.
import os, signal, socket, sys
signal.alarm(30)
path, what = sys.argv[1], sys.argv[2]
if os.path.lexists(path):
    os.unlink(path)
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(1)
print("ready", flush=True)
c, _ = s.accept()
c.recv(4096)
try:
    if what == "escapes":
        c.sendall(b"ok\n\x1b[31mred\x1b]0;title\x07 \xc2\x9b \xe2\x82\xac\ttab\r\n")
    elif what == "error":
        c.sendall(b"error: \x1b[2J cleared\n")
    elif what == "huge":
        chunk = b"a" * (1 << 20)
        c.sendall(b"ok\n")
        for _ in range(300):
            c.sendall(chunk)
except OSError: # a refused server: tf-ctl hung up
    pass
c.close()
PY
# serve WHO WHAT DIR: the fake server as WHO (root or nobody) at DIR/4242.sock.
serve() {
    local who=$1 what=$2 dir=$3
    if [ "$who" = nobody ]; then
        coproc FAKE { exec setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$fake" "$dir/4242.sock" "$what"; }
    else
        coproc FAKE { exec python3 "$fake" "$dir/4242.sock" "$what"; }
    fi
    fake_pid=$FAKE_PID
    read -r -t 10 -u "${FAKE[0]}" word || fail "the fake server did not start"
}
stop_fake() { kill "$fake_pid" 2>/dev/null; wait "$fake_pid" 2>/dev/null; }

mkdir -m 700 "$work/own" "$work/own/tf"
serve root escapes "$work/own/tf"
XDG_RUNTIME_DIR=$work/own "$tfctl" 4242 status >esc.out 2>esc.err || fail "escapes: $(cat esc.err)"
wait "$fake_pid"
expect_same escapes '\x1b[31mred\x1b]0;title\x07 \xc2\x9b €	tab\r' esc.out
serve root error "$work/own/tf"
XDG_RUNTIME_DIR=$work/own "$tfctl" 4242 status 2>err.txt && fail "an error answer exited 0"
wait "$fake_pid"
expect_same error-escaped 'tf-ctl: process 4242: error: \x1b[2J cleared' err.txt

# 300 MiB of answer: shown up to ANSWER_MAX as it comes, never held whole.
serve root huge "$work/own/tf"
python3 - "$tfctl" "$work/own" >huge.txt 2>&1 <<'PY' || fail "huge: $(cat huge.txt)"
import os, resource, subprocess, sys
env = dict(os.environ, XDG_RUNTIME_DIR=sys.argv[2])
p = subprocess.Popen([sys.argv[1], "4242", "status"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
n = 0
while True:
    b = p.stdout.read(1 << 20)
    if not b:
        break
    n += len(b)
err = p.stderr.read().decode()
rc = p.wait()
rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(rc, n, rss_kib < 32 * 1024)
print(err, end="")
PY
wait "$fake_pid"
expect_same huge "1 268435456 True

tf-ctl: process 4242: the answer is longer than 256 MiB (ANSWER_MAX); the rest is not shown" huge.txt

# A pid is written as the server names its socket.
for bad in 04242 ' 4242' +4242 4242x 99999999999; do
    "$tfctl" "$bad" status 2>err.txt && fail "pid '$bad' accepted"
    expect_same "pid '$bad'" "tf-ctl: '$bad' is not a process id (decimal digits, no sign, blanks or leading zeros)" err.txt
done

# A directory open to others, or a link, is not used (as the server refuses it).
mkdir -m 777 "$work/open" "$work/open/tf" && chmod 777 "$work/open/tf"
XDG_RUNTIME_DIR=$work/open "$tfctl" 4242 status 2>err.txt && fail "open directory used"
expect_same open-dir "tf-ctl: not using $work/open/tf: it is open to group or others (mode 0777; the server makes it 0700)" err.txt
mkdir -m 700 "$work/linked" && ln -s "$work/own/tf" "$work/linked/tf"
XDG_RUNTIME_DIR=$work/linked "$tfctl" 4242 status 2>err.txt && fail "symlinked directory used"
expect_same linked-dir "tf-ctl: not using $work/linked/tf: it is a symbolic link or not a directory" err.txt
XDG_RUNTIME_DIR=$work/linked "$tfctl" list 2>err.txt && fail "list used a symlinked directory"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
    echo "SKIP (the rest): planting as another user needs root and setpriv"
    return 0
fi
# Another user's directory, mode 0777, with their socket in it.
mkdir -m 777 "$work/theirs" && setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -m 777 "$work/theirs/tf"
serve nobody escapes "$work/theirs/tf"
XDG_RUNTIME_DIR=$work/theirs "$tfctl" 4242 status 2>err.txt && fail "another user's directory used"
expect_same theirs-dir "tf-ctl: not using $work/theirs/tf: it belongs to uid 65534, not to you (uid 0)" err.txt
XDG_RUNTIME_DIR=$work/theirs "$tfctl" list >list.txt 2>err.txt && fail "list used another user's directory"
stop_fake
# Our own private directory, but a socket another user serves (moved in).
mkdir -m 777 "$work/drop"
serve nobody escapes "$work/drop"
mv "$work/drop/4242.sock" "$work/own/tf/4242.sock"
XDG_RUNTIME_DIR=$work/own "$tfctl" 4242 status >out.txt 2>err.txt && fail "another user's server used"
grep -qx "tf-ctl: process 4242: its socket is served by uid 65534 (pid [0-9]*), not by you (uid 0); refused" err.txt ||
    fail "server uid: $(cat err.txt)"
[ -s out.txt ] && fail "printed what another user's server said: $(cat out.txt)"
stop_fake
# /tmp/tf-<uid> (no XDG_RUNTIME_DIR) planted by another user, in a private /tmp.
# tf-ctl runs from a descriptor opened before the mount: the build tree may
# be under /tmp itself (a fresh clone there), which the mount hides.
if unshare -m true 2>/dev/null; then
    unshare -m bash -c '
        exec 9<"$0"
        mount -t tmpfs tmpfs /tmp || exit 3
        setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -m 777 /tmp/tf-0 || exit 3
        env -u XDG_RUNTIME_DIR /proc/self/fd/9 4242 status' "$tfctl" 2>err.txt
    [ $? = 3 ] && fail "cannot plant /tmp/tf-0 in a private /tmp"
    expect_same tmp-dir "tf-ctl: not using /tmp/tf-0: it belongs to uid 65534, not to you (uid 0)" err.txt
else
    echo "SKIP (/tmp/tf-0): unshare -m is not allowed here"
fi
