"""traces.py: the hand-made recordings of ask_test.py, as mkctf.py event
logs (one JSON object a line). Times are nanoseconds since the clock's
origin; the trace's clock adds OFFSET (mkctf.py's 1700000000 s), so a ts in
the database is OFFSET + the time written here.

Q (questions): a server-like thread `main` (tid 100) and a `worker` (tid
101) in process 100. Calls get ids in the order they begin, across threads:

  id  time  thread  call                    dur   self  parent
   1  1000  main    q.main()                3000  1050  -
   2  1100  main    q.handle(req=1)          900   450  1
   3  1200  main    q.lookup(key=7) = 70     100   100  2
   4  1400  main    q.lookup(key=8) = 80     200   200  2
   5  1550  worker  q.work(n=3)              500   400  -    (throws at 1810)
   6  1610  worker  q.lookup(key=7) = 70     100   100  5
   7  1700  main    q.lookup(key=7) = 70      50    50  2
   8  1800  main    q.parse(s="a b") = 2     100    80  2
   9  1850  main    q.lookup(key=7) = 70      20    20  8
  10  2100  main    q.handle(req=2)          900   550  1    (info note at 2700)
  11  2200  main    q.lookup(key=7) = 70     300   300  10
  12  2600  main    q.lookup(key=7) = 70      50    50  10
  13  3100  main    q.lookup(key=9) = 90      50    50  1
  14  3200  main    q.scale(f=2.5) = 5       100   100  1
  15  5000  worker  q.work(n=4)              NULL  NULL -    (no exit)
  16  5200  worker  q.lookup(key=1) = 10     100   100  15

R (replay and filters): thread `main` (tid 200) and `w` (tid 201), process
200; w's first event is an exit without its enter, as a ring's can be; two
r.deep calls are left by a longjmp (closed by r.outer's exit); r.spin never
returns.
"""
import json

OFFSET = 1700000000 * 10**9


def ev(t, tid, pid, thread, what, func, args=None, result=None, **more):
    e = {"t": t, "tid": tid, "pid": pid, "thread": thread, "ev": what, "func": func}
    if args is not None:
        e["args"] = args
    if result is not None:
        e["result"] = result
    e.update(more)
    return e


def q_events():
    def m(t, what, func, args=None, result=None, **more):
        return ev(t, 100, 100, "main", what, func, args, result, **more)

    def w(t, what, func, args=None, result=None, **more):
        return ev(t, 101, 100, "worker", what, func, args, result, **more)

    def key(k):
        return [["key", "int", k]]

    return [
        m(1000, "enter", "q.main", []),
        m(1100, "enter", "q.handle", [["req", "int", 1]]),
        m(1200, "enter", "q.lookup", key(7)), m(1300, "exit", "q.lookup", result=["int", 70]),
        m(1400, "enter", "q.lookup", key(8)), m(1600, "exit", "q.lookup", result=["int", 80]),
        w(1550, "enter", "q.work", [["n", "int", 3]]),
        w(1610, "enter", "q.lookup", key(7)), w(1710, "exit", "q.lookup", result=["int", 70]),
        w(1810, "exception", "q.work", kind="throw", type="std::runtime_error"),
        w(2050, "exit", "q.work"),
        m(1700, "enter", "q.lookup", key(7)), m(1750, "exit", "q.lookup", result=["int", 70]),
        m(1800, "enter", "q.parse", [["s", "str", "a b"]]),
        m(1850, "enter", "q.lookup", key(7)), m(1870, "exit", "q.lookup", result=["int", 70]),
        m(1900, "exit", "q.parse", result=["int", 2]),
        m(2000, "exit", "q.handle", result=["int", 0]),
        m(2100, "enter", "q.handle", [["req", "int", 2]]),
        m(2200, "enter", "q.lookup", key(7)), m(2500, "exit", "q.lookup", result=["int", 70]),
        m(2600, "enter", "q.lookup", key(7)), m(2650, "exit", "q.lookup", result=["int", 70]),
        m(2700, "info", "q.handle", [["what", "str", "done"]], info="q.note"),
        m(3000, "exit", "q.handle", result=["int", 0]),
        m(3100, "enter", "q.lookup", key(9)), m(3150, "exit", "q.lookup", result=["int", 90]),
        m(3200, "enter", "q.scale", [["f", "float", 2.5]]),
        m(3300, "exit", "q.scale", result=["float", 5.0]),
        m(4000, "exit", "q.main", result=["int", 0]),
        w(5000, "enter", "q.work", [["n", "int", 4]]),
        w(5200, "enter", "q.lookup", key(1)), w(5300, "exit", "q.lookup", result=["int", 10]),
    ]


def r_events():
    def m(t, what, func, args=None, result=None, **more):
        return ev(t, 200, 200, "main", what, func, args, result, **more)

    def w(t, what, func, args=None, result=None, **more):
        return ev(t, 201, 200, "w", what, func, args, result, **more)

    return [
        m(0, "enter", "r.outer", [["x", "int", 1]]),
        m(1000, "enter", "r.leaf", [["i", "int", 0]]), m(1500, "exit", "r.leaf", result=["int", 0]),
        m(2000, "enter", "r.mid", []),
        w(2100, "exit", "r.gone"),
        w(2200, "enter", "r.spin", [["k", "int", 3]]),
        w(2300, "enter", "r.leaf", [["i", "int", 9]]), w(2400, "exit", "r.leaf", result=["int", 18]),
        m(2500, "info", "r.mid", [["v", "int", 5]], info="r.note"),
        m(3000, "enter", "r.leaf", [["i", "int", 1]]), m(3250, "exit", "r.leaf", result=["int", 2]),
        m(4000, "exception", "r.mid", kind="throw", type="E"),
        m(5000, "exit", "r.mid"),
        m(6000, "enter", "r.deep", [["n", "int", 2]]),
        m(6500, "enter", "r.deep", [["n", "int", 1]]),
        m(7000, "exception", "r.deep", kind="noreturn", type="longjmp"),
        m(9000, "exit", "r.outer", result=["int", 7]),
    ]


def h_events():
    """H: one call with a value of every kind, held by --min-duration until
    its exit (hold.c's copies of strings, enums, structs)."""
    args = [["i", "int", -3], ["u", "uint", 7], ["b", "bool", True], ["d", "float", 0.25],
            ["p", "ptr", 4096], ["s", "str", "held \"text\""], ["c", "enum:GREEN", 1],
            ["st", "struct", 0]]
    return [ev(0, 300, 300, "h", "enter", "h.all", args),
            ev(500, 300, 300, "h", "info", "h.all", [["s", "str", "note"], ["c", "enum:RED", 0]],
               info="h.note"),
            ev(1000, 300, 300, "h", "exit", "h.all", result=["str", "back"])]


def write_log(path, events):
    """Per thread in time order, as a recorder writes them."""
    with open(path, "w") as f:
        for e in sorted(events, key=lambda e: (e["tid"], e["t"])):
            f.write(json.dumps(e) + "\n")
