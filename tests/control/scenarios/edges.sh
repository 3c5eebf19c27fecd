# The control socket's edges (docs/design.md .ctl.limits): each limit named and
# said, a NUL refused, a last line without its newline served, every connection
# its own deadline (silent clients never lock tf-ctl out).
start_app TF_MONITORS='app=timing'
python3 - "$work/run/tf/$pid.sock" >edges.txt <<'PY' || fail "edges: $(cat edges.txt)"
import socket, sys, time
path = sys.argv[1]
def connect():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s
def answer(s):
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            return out.decode(errors="replace")
        out += b
def ask(data, shut=False):
    s = connect()
    s.sendall(data)
    if shut:
        s.shutdown(socket.SHUT_WR)
    return answer(s)
first = lambda text: text.splitlines()[0]
print("4095:", first(ask(b"status" + b" " * 4089 + b"\n")))
print("4096:", ask(b"status" + b" " * 4090 + b"\n"), end="")
print("5000:", ask(b"x" * 5000), end="")
print("nul:", ask(b"status\0garbage\n"), end="")
print("eof:", first(ask(b"status", shut=True)))
t0 = time.monotonic()
silent = [connect() for _ in range(130)]
t1 = time.monotonic()
quick = first(ask(b"status\n"))
print("130 silent, then:", quick, "at once" if time.monotonic() - t1 < 0.5 else "late")
print("a silent one:", answer(silent[-1]), end="")
print("after READ_MS:", time.monotonic() - t0 >= 1.0)
many = [connect() for _ in range(300)]
print("300 at once, the last:", answer(many[-1]), end="")
PY
expect_same edges "4095: ok
4096: error: the request line is longer than 4095 bytes (REQUEST_MAX)
5000: error: the request line is longer than 4095 bytes (REQUEST_MAX)
nul: error: the request line holds a NUL byte (at byte 7)
eof: ok
130 silent, then: ok at once
a silent one: error: no request line within 1000 ms (READ_MS)
after READ_MS: True
300 at once, the last: error: the server has 256 connections open (CONN_MAX); try again" edges.txt
ctl status | grep -q "^pid	$pid\$" || fail "no status after the edges"
stop_app

# tf-ctl groups lists every group and subgroup (it kept 512 and 64).
python3 - >groups.c <<'PY'
print("#include <stdio.h>\n#include <tf/tf.h>")
for i in range(600):
    print("TF_GROUP(g%03d);" % i)
print("TF_GROUP(top, %s);" % ", ".join("g%03d" % i for i in range(70)))
print("TF_MONITOR(top) int f(int x) { return x; }")
print('#include <unistd.h>')
print('int main(void) { printf("ready %d\\n", (int)getpid()); fflush(stdout); getchar(); return f(0); }')
PY
"$cc" -fplugin="$plugin" -I"$inc" groups.c -L"$libdir" -ltf -Wl,-rpath,"$libdir" -o groups ||
    fail "cannot build groups.c"
coproc GRPAPP { exec env TF_CONTROL=1 ./groups; }
read -r -t 10 -u "${GRPAPP[0]}" word gpid || fail "groups did not start"
for _ in $(seq 100); do [ -S "$work/run/tf/$gpid.sock" ] && break; sleep 0.05; done
"$tfctl" "$gpid" groups >groups.txt || fail "tf-ctl groups"
echo >&"${GRPAPP[1]}"
wait "$gpid"
[ "$(wc -l <groups.txt)" = 601 ] || fail "groups: $(wc -l <groups.txt) lines, want 601"
[ "$(grep '^top	' groups.txt | tr ' ' '\n' | grep -c '^g0')" = 70 ] || fail "top's subgroups: $(grep '^top' groups.txt | head -c 300)"
