#!/usr/bin/env python3
"""ask_test.py WHAT ...: tf-dump's questions over recordings (docs/design.md
.ask), label ask. Every expected answer below is worked out by hand from the
recording's content (traces.py, the fixtures' comments), never copied from
tf-dump's output.

  questions DUMP MKCTF WORK   --ask's six questions and the schema on trace Q;
                              --explain's SQL run by the sqlite3 CLI; Python's
                              sqlite3 module reading the database
  replay DUMP MKCTF WORK      --format=replay on trace R, and every filter on
                              replay and on the other formats
  errors DUMP MKCTF WORK      malformed --sql, --ask and filter values: exact
                              messages, status 2
  seed CC PLUGIN INC LIB DUMP WORK   the seed's FOO/BAR and cache programs
                              built with a plugin, asked in SQL and by --ask
  diff CC PLUGIN INC LIB DUMP WORK   two runs, one calling work() twice as
                              often: --diff on recordings and on reports
  fork CC PLUGIN INC LIB DUMP WORK   a parent and its forked child in one
                              database and one Chrome timeline
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import traces

HERE = os.path.dirname(os.path.abspath(__file__))
OFF = traces.OFFSET


def fail(msg):
    print("ask_test.py %s: FAIL: %s" % (sys.argv[1], msg))
    sys.exit(1)


def run(cmd, status=0, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if status is not None and p.returncode != status:
        fail("%s exited %d, not %d\nstdout: %s\nstderr: %s" % (
            " ".join(cmd), p.returncode, status, p.stdout[-3000:], p.stderr[-3000:]))
    return p


def same(what, got, want):
    if got != want:
        fail("%s:\n got  %r\n want %r" % (what, got, want))


def fresh(work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return work


def make_trace(mkctf, work, name, events):
    log = os.path.join(work, name + ".log")
    traces.write_log(log, events)
    out = os.path.join(work, name)
    run([sys.executable, mkctf, log, out])
    return out


def ask(dump, question, *inputs, extra=()):
    p = run([dump, "--ask", question, "--format=json", *extra, *inputs])
    return json.loads(p.stdout)


def rows(answer, *cols):
    return [tuple(r[c] for c in cols) for r in answer]


# ---- questions --------------------------------------------------------------
def check_questions(dump, q, db):
    same("callers lookup", rows(ask(dump, "callers lookup", q), "caller", "function", "calls",
                                "total_ns", "mean_ns", "max_ns"),
         [("q.handle", "q.lookup", 5, 700, 140.0, 300),   # ids 3 4 7 11 12
          ("q.work", "q.lookup", 2, 200, 100.0, 100),     # 6, 16
          ("q.main", "q.lookup", 1, 50, 50.0, 50),        # 13
          ("q.parse", "q.lookup", 1, 20, 20.0, 20)])      # 9
    for glob in ("q.look*", "*kup"):
        same("callers " + glob, ask(dump, "callers " + glob, db), ask(dump, "callers lookup", db))
    same("callers main", rows(ask(dump, "callers main", db), "caller", "calls"), [("(outermost)", 1)])
    # all of handle's lookups, parse's too; handle 2: 100+200+50+20, handle 10: 300+50
    same("within handle lookup", rows(ask(dump, "within handle lookup", db), "call_id", "thread", "ts",
                                      "dur", "g_calls", "g_total_ns"),
         [(2, "main", OFF + 1100, 900, 4, 370), (10, "main", OFF + 2100, 900, 2, 350)])
    # work 15 has no exit: everything after it on its thread is inside it
    same("within work lookup", rows(ask(dump, "within work lookup", db), "call_id", "dur", "g_calls",
                                    "g_total_ns"),
         [(5, 500, 1, 100), (15, None, 1, 100)])
    # direct calls only: 9 (inside parse) is none; 7 repeats 3, 12 repeats 11
    same("repeats handle lookup", rows(ask(dump, "repeats handle lookup", db), "function", "args",
                                       "calls", "repeats", "repeat_ns", "total_ns"),
         [("(all)", None, 5, 2, 100, 700), ("q.lookup", "key=7", 4, 2, 100, 500)])
    same("repeats main lookup", rows(ask(dump, "repeats main lookup", db), "function", "calls", "repeats"),
         [("(all)", 1, 0)])
    same("slowest lookup 3", rows(ask(dump, "slowest lookup 3", db), "call_id", "dur", "self_dur",
                                  "args", "result", "thread"),
         [(11, 300, 300, "key=7", "70", "main"), (4, 200, 200, "key=8", "80", "main"),
          (3, 100, 100, "key=7", "70", "main")])  # 3, 6 and 16 take 100: the first begun
    same("slowest work", rows(ask(dump, "slowest work", db), "call_id", "dur", "args", "result"),
         [(5, 500, "n=3", None), (15, None, "n=4", None)])
    same("slowest lookup: 10 at most", len(ask(dump, "slowest lookup", db)), 9)
    same("where key=7", rows(ask(dump, "where key=7", db), "call_id"),
         [(3,), (6,), (7,), (9,), (11,), (12,)])
    same("where return=0", rows(ask(dump, "where return=0", db), "call_id", "function"),
         [(1, "q.main"), (2, "q.handle"), (10, "q.handle")])
    same("where s=a b", rows(ask(dump, "where s=a b", db), "call_id", "args", "result"), [(8, 's="a b"', "2")])
    same("where f=2.5", rows(ask(dump, "where f=2.5", db), "call_id", "result"), [(14, "5")])
    # 20 | 50 50 50 | 100 100 100 | 200 | 300; bars scaled to 40 for 3 calls
    same("histogram lookup", rows(ask(dump, "histogram lookup", db), "from_ns", "to_ns", "calls", "bar"),
         [(16, 31, 1, "#" * 13), (32, 63, 3, "#" * 40), (64, 127, 3, "#" * 40),
          (128, 255, 1, "#" * 13), (256, 511, 1, "#" * 13)])
    # work 15 has no duration: only 5's 500 ns
    same("histogram work", rows(ask(dump, "histogram work", db), "from_ns", "to_ns", "calls", "bar"),
         [(256, 511, 1, "#" * 40)])


def check_formats(dump, db):
    p = run([dump, "--ask", "callers lookup", "--format=csv", db])
    same("csv", p.stdout, "caller,function,calls,total_ns,mean_ns,max_ns\n"
         "q.handle,q.lookup,5,700,140.0,300\nq.work,q.lookup,2,200,100.0,100\n"
         "q.main,q.lookup,1,50,50.0,50\nq.parse,q.lookup,1,20,20.0,20\n")
    p = run([dump, "--ask", "callers lookup", db])
    same("table", p.stdout.splitlines(), [
        "caller    function  calls  total_ns  mean_ns  max_ns",
        "--------  --------  -----  --------  -------  ------",
        "q.handle  q.lookup      5       700    140.0     300",
        "q.work    q.lookup      2       200    100.0     100",
        "q.main    q.lookup      1        50     50.0      50",
        "q.parse   q.lookup      1        20     20.0      20"])
    p = run([dump, "--sql", "SELECT name FROM thread WHERE 0", db])
    same("no rows", p.stdout, "name\n----\n(no rows)\n")
    p = run([dump, "--sql", "SELECT 'a\tb' AS x, NULL AS y, 1.5 AS z", db])
    # text left, numbers right; a column of NULLs only is text
    same("escaped table", p.stdout.splitlines(), ["x     y       z", "----  ----  ---", "a\\tb  NULL  1.5"])
    p = run([dump, "--sql", "SELECT 'a,\"b\"' AS x, NULL AS y", "--format=csv", db])
    same("csv quoting", p.stdout, 'x,y\n"a,""b""",\n')


def check_explain(dump, db, sqlite_cli):
    """--explain's SQL, run by the sqlite3 CLI, gives --ask's rows."""
    for question in ("callers lookup", "within handle lookup", "repeats handle lookup",
                     "slowest lookup 3", "where key=7", "histogram lookup"):
        p = run([dump, "--ask", question, "--explain", db])
        sql, sep, table = p.stdout.partition(";\n\n")
        if not sep or not sql.startswith("-- "):
            fail("--explain %s: no SQL then a blank line: %r" % (question, p.stdout[:200]))
        cli = run([sqlite_cli, "-json", db], input=sql + ";\n")
        same("sqlite3 on --explain's SQL of " + question, json.loads(cli.stdout or "[]"),
             ask(dump, question, db))


def check_schema(db):
    con = sqlite3.connect(db)
    x = con.execute
    same("process", x("SELECT * FROM process").fetchall(), [(1, 100, "main")])
    same("thread", x("SELECT * FROM thread").fetchall(),
         [(1, 1, 100, 100, "main", OFF + 1000, OFF + 4000), (2, 1, 100, 101, "worker", OFF + 1550, OFF + 5300)])
    same("function", x("SELECT name, tu, full_name FROM function ORDER BY name").fetchall(),
         [(n, "q", "q." + n) for n in ("handle", "lookup", "main", "parse", "scale", "work")])
    got = x("SELECT c.id, c.ts - %d, c.dur, c.self_dur, c.utid, f.name, c.depth, c.parent_id "
            "FROM call c JOIN function f ON f.id = c.function_id ORDER BY c.id" % OFF).fetchall()
    same("calls", got, [
        (1, 1000, 3000, 1050, 1, "main", 0, None), (2, 1100, 900, 450, 1, "handle", 1, 1),
        (3, 1200, 100, 100, 1, "lookup", 2, 2), (4, 1400, 200, 200, 1, "lookup", 2, 2),
        (5, 1550, 500, 400, 2, "work", 0, None), (6, 1610, 100, 100, 2, "lookup", 1, 5),
        (7, 1700, 50, 50, 1, "lookup", 2, 2), (8, 1800, 100, 80, 1, "parse", 2, 2),
        (9, 1850, 20, 20, 1, "lookup", 3, 8), (10, 2100, 900, 550, 1, "handle", 1, 1),
        (11, 2200, 300, 300, 1, "lookup", 2, 10), (12, 2600, 50, 50, 1, "lookup", 2, 10),
        (13, 3100, 50, 50, 1, "lookup", 1, 1), (14, 3200, 100, 100, 1, "scale", 1, 1),
        (15, 5000, None, None, 2, "work", 0, None), (16, 5200, 100, 100, 2, "lookup", 1, 15)])
    same("args as text", x("SELECT id, args FROM call WHERE id IN (1, 8, 14, 15) ORDER BY id").fetchall(),
         [(1, ""), (8, 's="a b"'), (14, "f=2.5"), (15, "n=4")])
    same("args of 8, 14, 15", x("SELECT * FROM arg WHERE call_id IN (8, 14, 15) ORDER BY call_id, pos").fetchall(),
         [(8, -1, "return", "2", 2, None), (8, 0, "s", "a b", None, None),
          (14, -1, "return", "5", None, 5.0), (14, 0, "f", "2.5", None, 2.5), (15, 0, "n", "4", 4, None)])
    same("info", x("SELECT * FROM info").fetchall(), [(1, OFF + 2700, 1, 10, "note")])
    same("info_arg", x("SELECT * FROM info_arg").fetchall(), [(1, 0, "what", "done", None, None)])
    same("exception", x("SELECT * FROM exception").fetchall(),
         [(1, OFF + 1810, 2, 5, "std::runtime_error", "throw")])
    same("slice", x("SELECT name, depth, parent_id, category, dur, track_id FROM slice WHERE id = 8").fetchall(),
         [("parse", 2, 2, "q", 100, 1)])
    same("args view", x("SELECT flat_key, value_type, int_value, string_value, real_value, display_value "
                        "FROM args WHERE arg_set_id IN (8, 14) ORDER BY arg_set_id, key").fetchall(),
         [("args.return", "int", 2, None, None, "2"), ("args.s", "string", None, "a b", None, "a b"),
          ("args.f", "real", None, None, 2.5, "2.5"), ("args.return", "real", None, None, 5.0, "5")])
    # a query written for Perfetto's trace processor
    same("perfetto query", x("SELECT t.name, count(*) FROM slice s JOIN thread_track tt ON s.track_id = tt.id "
                             "JOIN thread t USING (utid) GROUP BY t.name ORDER BY t.name").fetchall(),
         [("main", 12), ("worker", 4)])
    same("indexes", x("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL "
                      "ORDER BY name").fetchall(),
         [("arg_value",), ("call_function",), ("call_parent",), ("info_call",)])
    con.close()


def questions(dump, mkctf, work):
    fresh(work)
    q = make_trace(mkctf, work, "q", traces.q_events())
    db = os.path.join(work, "q.db")
    run([dump, "--format=sqlite", "-o", db, q])
    check_schema(db)
    check_questions(dump, q, db)
    check_formats(dump, db)
    sqlite_cli = shutil.which("sqlite3")
    if not sqlite_cli:
        fail("no sqlite3 command (Debian package sqlite3)")
    check_explain(dump, db, sqlite_cli)
    same("sqlite3 reads it", run([sqlite_cli, db, "SELECT count(*) FROM slice"]).stdout, "16\n")
    # the LTTng factory's shape (values as text) answers alike
    lq = os.path.join(work, "q-lttng")
    run([sys.executable, mkctf, os.path.join(work, "q.log"), lq, "--style=lttng", "--func=string"])
    for question in ("callers lookup", "within handle lookup", "repeats handle lookup", "slowest lookup 3",
                     "where key=7", "where s=a b", "histogram lookup"):
        same("LTTng's text: " + question, ask(dump, question, lq), ask(dump, question, db))
    p = run([dump, "--sql", "SELECT pos, name, value, int_value, real_value FROM arg WHERE call_id IN (8, 14) "
                            "ORDER BY call_id, pos", "--format=json", lq])
    same("LTTng's text: args", [tuple(r.values()) for r in json.loads(p.stdout)],
         [(-1, "return", "2", 2, None), (0, "s", "a b", None, None),
          (-1, "return", "5", 5, None), (0, "f", "2.5", None, 2.5)])  # "5" reads as an integer
    # two recordings (here two processes) in one database
    r = make_trace(mkctf, work, "r", traces.r_events())
    p = run([dump, "--sql", "SELECT pid, count(*) AS threads FROM thread GROUP BY pid", "--format=json", q, r])
    same("two recordings", json.loads(p.stdout), [{"pid": 100, "threads": 2}, {"pid": 200, "threads": 2}])
    print("ok: questions, formats, --explain in sqlite3, schema")


# ---- replay and filters -------------------------------------------------------
def replay_line(time, dur, tid, thread, text, width=13):
    return "%*s %12s %8d  %s%s| %s" % (width, time, dur, tid, thread, " " * max(0, 15 - len(thread)), text)


HEADER = "#        TIME     DURATION      TID  THREAD           FUNCTION"
M, W = (200, "main"), (201, "w")
NO_EXIT = "/* %s: no exit in the recording */"


def expect_replay(dump, r, opts, lines, err=None):
    p = run([dump, "--format=replay", *opts, r])
    want = [HEADER] + [replay_line(t, d, who[0], who[1], text) for t, d, who, text in lines]
    same("replay %s" % " ".join(opts), p.stdout.splitlines(), want)
    if err is not None:
        same("replay %s: stderr" % " ".join(opts), p.stderr.splitlines(), err)


UNMATCHED = "exits without their enter were left out (the recording starts inside those calls)"


def replay(dump, mkctf, work):
    fresh(work)
    r = make_trace(mkctf, work, "r", traces.r_events())
    expect_replay(dump, r, [], [
        ("0.000000000", "", M, "r.outer(x=1) {"),
        ("0.000001000", "0.500 us", M, "  r.leaf(i=0) = 0;"),
        ("0.000002200", "", W, "r.spin(k=3) {"),
        ("0.000002300", "0.100 us", W, "  r.leaf(i=9) = 18;"),
        ("0.000002000", "", M, "  r.mid() {"),
        ("0.000002500", "", M, "    /* note(v=5) */"),
        ("0.000003000", "0.250 us", M, "    r.leaf(i=1) = 2;"),
        ("0.000004000", "", M, "    /* throw E */"),
        ("0.000005000", "3.000 us", M, "  } /* r.mid */"),
        ("0.000006000", "", M, "  r.deep(n=2) {"),
        ("0.000006500", "", M, "    r.deep(n=1) {"),
        ("0.000007000", "", M, "      /* noreturn longjmp */"),
        ("", "", M, "    } " + NO_EXIT % "r.deep"),
        ("", "", M, "  } " + NO_EXIT % "r.deep"),
        ("0.000009000", "9.000 us", M, "} = 7; /* r.outer */"),
        ("", "", W, "} " + NO_EXIT % "r.spin")],
        ["tf-dump: replay: 1 " + UNMATCHED])
    p = run([dump, "--format=replay", "--time=abs", r])
    same("--time=abs", p.stdout.splitlines()[:2], [
        "#               TIME     DURATION      TID  THREAD           FUNCTION",
        replay_line("1700000000.000000000", "", 200, "main", "r.outer(x=1) {", 20)])
    # --function: mid and what it calls; times still from the recording's start
    mid = [("0.000002000", "", M, "r.mid() {"), ("0.000002500", "", M, "  /* note(v=5) */"),
           ("0.000003000", "0.250 us", M, "  r.leaf(i=1) = 2;"), ("0.000004000", "", M, "  /* throw E */"),
           ("0.000005000", "3.000 us", M, "} /* r.mid */")]
    expect_replay(dump, r, ["--function=mid"], mid, ["tf-dump: filters: 1 " + UNMATCHED])
    expect_replay(dump, r, ["--function=r.m?d"], mid)
    # --depth=1: the outermost calls; r.outer becomes a leaf of 9 us
    expect_replay(dump, r, ["--depth=1"], [
        ("0.000000000", "9.000 us", M, "r.outer(x=1) = 7;"),
        ("0.000002200", "", W, "r.spin(k=3) {"), ("", "", W, "} " + NO_EXIT % "r.spin")])
    # --depth counts from the --function match
    expect_replay(dump, r, ["--function=mid", "--depth=1"], [
        ("0.000002000", "", M, "r.mid() {"), ("0.000002500", "", M, "  /* note(v=5) */"),
        ("0.000004000", "", M, "  /* throw E */"), ("0.000005000", "3.000 us", M, "} /* r.mid */")])
    spin = [("0.000002200", "", W, "r.spin(k=3) {"), ("0.000002300", "0.100 us", W, "  r.leaf(i=9) = 18;"),
            ("", "", W, "} " + NO_EXIT % "r.spin")]
    expect_replay(dump, r, ["--thread=w"], spin, ["tf-dump: replay: 1 " + UNMATCHED])
    expect_replay(dump, r, ["--thread=201"], spin)
    expect_replay(dump, r, ["--thread=?"], spin)
    # --from/--to: the calls that begin from 2 us to 3 us, whole
    expect_replay(dump, r, ["--from=2us", "--to=3us"], spin[:2] + [
        ("0.000002000", "", M, "r.mid() {"), ("0.000002500", "", M, "  /* note(v=5) */"),
        ("0.000003000", "0.250 us", M, "  r.leaf(i=1) = 2;"), ("0.000004000", "", M, "  /* throw E */"),
        ("0.000005000", "3.000 us", M, "} /* r.mid */")] + spin[2:])
    expect_replay(dump, r, ["--from=1700000000.000002000", "--to=1700000000.000003000"], spin[:2] + mid + spin[2:])
    # --min-duration=1us: outer 9us, mid 3us, deep 3us and 2.5us until outer's exit, spin
    # 6.8 us until the recording's last event; the leaves are shorter
    expect_replay(dump, r, ["--min-duration=1us"], [
        ("0.000000000", "", M, "r.outer(x=1) {"), ("0.000002000", "", M, "  r.mid() {"),
        ("0.000002500", "", M, "    /* note(v=5) */"), ("0.000004000", "", M, "    /* throw E */"),
        ("0.000005000", "3.000 us", M, "  } /* r.mid */"), ("0.000006000", "", M, "  r.deep(n=2) {"),
        ("0.000006500", "", M, "    r.deep(n=1) {"), ("0.000007000", "", M, "      /* noreturn longjmp */"),
        ("", "", M, "    } " + NO_EXIT % "r.deep"), ("", "", M, "  } " + NO_EXIT % "r.deep"),
        ("0.000009000", "9.000 us", M, "} = 7; /* r.outer */")] + spin[:1] + spin[2:])
    expect_replay(dump, r, ["--min-duration=2.6us"], [
        ("0.000000000", "", M, "r.outer(x=1) {"), ("0.000002000", "", M, "  r.mid() {"),
        ("0.000002500", "", M, "    /* note(v=5) */"), ("0.000004000", "", M, "    /* throw E */"),
        ("0.000005000", "3.000 us", M, "  } /* r.mid */"), ("0.000006000", "", M, "  r.deep(n=2) {"),
        ("", "", M, "  } " + NO_EXIT % "r.deep"), ("0.000009000", "9.000 us", M, "} = 7; /* r.outer */")]
        + spin[:1] + spin[2:])
    other_formats(dump, r, work)
    # every event held until r.all's exit comes out as it went in
    h = make_trace(mkctf, work, "h", traces.h_events())
    for fmt in ("text", "chrome", "replay"):
        plain = run([dump, "--format=" + fmt, h]).stdout
        same("--min-duration holding every kind of value (%s)" % fmt,
             run([dump, "--format=" + fmt, "--min-duration=1us", h]).stdout, plain)
        if fmt == "text" and ('s="held \\"text\\""' not in plain or "c=GREEN" not in plain or
                              "st={...}" not in plain or "c=RED" not in plain or '<-("back")' not in plain):
            fail("trace H's values are not in its text: %s" % plain)
    print("ok: replay, every filter")


def other_formats(dump, r, work):
    """The filters apply to every format and to the flame graph."""
    p = run([dump, "--function=mid", r])
    same("text --function", [l.split("] ", 1)[1] for l in p.stdout.splitlines()], [
        "(main): r.mid->()", "(main): r.mid::(note)(v=5)", "(main): r.leaf->(i=1)", "(main): r.leaf<-(2)",
        "(main): r.mid:throw:E", "(main): r.mid<-"])
    p = run([dump, "--format=chrome", "--depth=1", r])
    events = json.loads(p.stdout)["traceEvents"]
    same("chrome --depth=1", [(e["ph"], e["name"]) for e in events if e["ph"] in "BE"],
         [("B", "r.outer"), ("B", "r.spin"), ("E", "r.outer"), ("E", "r.spin")])
    p = run([dump, "--format=report", "-o", os.path.join(work, "t.json"), "--thread=w", r])
    timers = json.load(open(os.path.join(work, "t.json")))["timers"]
    # r.spin never returns, r.gone's exit has no enter: r.leaf is the one call timed
    same("report --thread=w", sorted(t["name"] for t in timers if t["count"]), ["r.leaf"])
    same("report --thread=w: main's functions", [t["name"] for t in timers if t["name"] in ("r.mid", "r.outer")], [])
    db = os.path.join(work, "f.db")
    run([dump, "--format=sqlite", "-o", db, "--from=2us", "--to=3us", r])
    con = sqlite3.connect(db)
    same("sqlite --from --to", con.execute("SELECT full_name, depth, dur FROM slice ORDER BY id").fetchall(),
         [("r.mid", 0, 3000), ("r.spin", 0, None), ("r.leaf", 1, 100), ("r.leaf", 1, 250)])
    con.close()
    p = run([dump, "--sql", "SELECT count(*) AS n FROM call", "--format=csv", "--min-duration=1us", r])
    same("--sql --min-duration", p.stdout, "n\n5\n")  # outer, mid, both deep, spin
    p = run([dump, "--ask", "callers leaf", "--format=csv", "--function=mid", r])
    same("--ask --function", p.stdout, "caller,function,calls,total_ns,mean_ns,max_ns\nr.mid,r.leaf,1,250,250.0,250\n")
    svg = os.path.join(work, "w.svg")
    run([dump, "--flamegraph=" + svg, "--thread=w", r])
    text = open(svg).read()
    titles = sorted(set(re.findall(r"<title>([^ <]+) ", text)))
    same("flame --thread=w", titles, ["all", "r.leaf", "r.spin"])
    if "time by call stack, thread w (hover" not in text:
        fail("flame graph title does not name thread w")


# ---- errors -------------------------------------------------------------------
WHEN = ("time: give one since the first event with its unit (250us, 1.5ms, 2s) or in seconds since the "
        "clock's origin as tf-dump prints times (1700000000.000001500)")
QUESTIONS = "callers F, within F G, repeats F G, slowest F [N], where ARG=VALUE, histogram F"


def errors(dump, mkctf, work):
    fresh(work)
    q = make_trace(mkctf, work, "q", traces.q_events())
    db = os.path.join(work, "q.db")
    run([dump, "--format=sqlite", "-o", db, q])
    cases = [
        (["--from=abc", q], "tf-dump: --from: 'abc' is no " + WHEN),
        (["--to=1.5x", q], "tf-dump: --to: '1.5x' is no " + WHEN),
        (["--from=a\tb\x01", q], "tf-dump: --from: 'a\\tb\\x01' is no " + WHEN),
        (["--min-duration=5", q], "tf-dump: --min-duration: '5' is no duration: give one above 0 with its "
                                  "unit (40ns, 250us, 1.5ms, 2s)"),
        (["--min-duration=0us", q], "tf-dump: --min-duration: '0us' is no duration: give one above 0 with "
                                    "its unit (40ns, 250us, 1.5ms, 2s)"),
        (["--depth=0", q], "tf-dump: --depth: '0' is no depth: give a count of levels from 1"),
        (["--depth=2x", q], "tf-dump: --depth: '2x' is no depth: give a count of levels from 1"),
        (["--thread=", q], "tf-dump: --thread: '' is no thread id or name"),
        (["--function=", q], "tf-dump: --function: '' is no function name or glob"),
        (["--from=3us", "--to=1us", q], "tf-dump: --from=3us is after --to=1us"),
        (["--time=x", q], "tf-dump: --time: 'x' is no way to show times: give abs or rel"),
        (["--format=sqlite", q], "tf-dump: --format=sqlite writes a database file: name it with -o FILE.db"),
        (["--ask", "", q], "tf-dump: --ask wants a question: " + QUESTIONS),
        (["--ask", "calers lookup", q], "tf-dump: --ask: unknown question 'calers'; the questions: " + QUESTIONS),
        (["--ask", "within handle", q], "tf-dump: --ask: within takes 2 functions (within F G), not 1"),
        (["--ask", "callers a b", q], "tf-dump: --ask: callers takes 1 function (callers F), not 2"),
        (["--ask", "slowest lookup x", q], "tf-dump: --ask: slowest F N: N is a count from 1, not 'x'"),
        (["--ask", "slowest lookup 0", q], "tf-dump: --ask: slowest F N: N is a count from 1, not '0'"),
        (["--ask", "where key", q], "tf-dump: --ask: where wants ARG=VALUE (an argument's name, then its value "
                                    "as tf-dump shows it), not 'key'"),
        (["--ask", "where =7", q], "tf-dump: --ask: where wants ARG=VALUE (an argument's name, then its value "
                                   "as tf-dump shows it), not '=7'"),
        (["--ask"], "tf-dump: --ask wants a question after it"),
        (["--sql", "", q], "tf-dump: --sql: the query is empty"),
        (["--sql", "SELECT 1; SELECT 2", q], "tf-dump: --sql: one statement at a time; a second begins at ' SELECT 2'"),
        (["--sql", "-- only a comment", q], "tf-dump: --sql: no statement in the query, only blanks or comments"),
        (["--sql", "SELECT 1", "--format=xml", q], "tf-dump: --format: unknown format 'xml' (known: table, csv, json)"),
        (["--sql", "SELECT 1", "--explain", q], "tf-dump: --explain shows the SQL of an --ask question"),
        (["--sql", "SELECT 1", "--ask", "callers x", q], "tf-dump: --sql or --ask, one at a time"),
        (["--sql", "SELECT 1", "--thread=main", db],
         "tf-dump: %s is a database: the filters choose what a recording loads; write them in SQL instead" % db),
        (["--diff", q], "tf-dump: --diff compares two runs, A and B (recordings or TF_REPORT=x.json reports), not 1"),
    ]
    for args, msg in cases:
        p = run([dump, *args], status=2)
        same("message of %r" % args, p.stderr.splitlines(), [msg])
    # what needs the recording: said after reading it, status 2, nearest names
    named = [
        (["--ask", "callers lokup", q], ["tf-dump: --ask: no function of the recording matches 'lokup' "
                                         "(nearest: q.lookup)"]),
        (["--ask", "within handle lookupp", db], ["tf-dump: --ask: no function of the recording matches "
                                                  "'lookupp' (nearest: q.lookup)"]),
        (["--ask", "where kee=7", db], ["tf-dump: --ask: no call has an argument named 'kee' (nearest: key, req)"]),
        (["--sql", "SELEC * FROM call", db], ['tf-dump: --sql: near "SELEC": syntax error', "  SELEC * FROM call",
                                              "  ^"]),
        (["--sql", "SELECT * FROM calls", db], ["tf-dump: --sql: no such table: calls (nearest: call)"]),
        (["--sql", "SELECT durr FROM call", db], ["tf-dump: --sql: no such column: durr (nearest: dur)"]),
        (["--sql", "SELECT c.depht FROM call c", db], ["tf-dump: --sql: no such column: c.depht (nearest: depth)"]),
    ]
    for args, msg in named:
        p = run([dump, *args], status=2)
        same("message of %r" % args, p.stderr.splitlines(), msg)
    # a query SQLite accepts but fails while running: status 1
    p = run([dump, "--sql", "SELECT abs(-9223372036854775807 - 1)", db], status=1)
    same("a failing query", p.stderr.splitlines(), ["tf-dump: --sql: integer overflow"])
    # filters naming nothing: said once each, with the nearest names; the rest goes on
    p = run([dump, "--thread=mian", "--function=lokup", q])
    same("unmatched filters", p.stderr.splitlines(), [
        "tf-dump: --thread=mian matches no thread of the recording (nearest: main)",
        "tf-dump: --function=lokup matches no function of the recording (nearest: q.lookup)"])
    same("unmatched filters: nothing shown", p.stdout, "")
    print("ok: %d malformed values, each said exactly" % (len(cases) + len(named) + 2))


# ---- programs built with a plugin -------------------------------------------------
def build(cc, plugin, inc, lib, src, out):
    run([cc, "-O2", "-g", "-fplugin=" + plugin, "-I" + inc, src, "-o", out, "-L" + lib, "-ltf",
         "-Wl,-rpath," + lib, "-pthread"])


def record(prog, group, trace, *args):
    env = dict(os.environ, TF_MONITORS=group + "=record", TF_RECORD=trace)
    return run([prog, *args], env=env)


SEED_SQL = """SELECT f.name AS function, a.int_value AS c, c.dur AS dur, c.id AS call_id
  FROM call c
  JOIN function f ON f.id = c.function_id
  JOIN arg a ON a.call_id = c.id AND a.pos = 0
 WHERE a.int_value <> 0
   AND EXISTS (SELECT 1 FROM call k JOIN function kf ON kf.id = k.function_id
                WHERE k.parent_id = c.id AND kf.name = 'FOO')
   AND EXISTS (SELECT 1 FROM call k JOIN function kf ON kf.id = k.function_id
                WHERE k.parent_id = c.id AND kf.name = 'BAR')
 ORDER BY c.id"""


def seed(cc, plugin, inc, lib, dump, work):
    fresh(work)
    os.chdir(work)
    build(cc, plugin, inc, lib, os.path.join(HERE, "foobar.c"), "foobar")
    record("./foobar", "seed", "fb")
    db = "fb.db"
    run([dump, "--format=sqlite", "-o", db, "fb"])
    p = run([dump, "--sql", SEED_SQL, "--format=json", db])
    got = json.loads(p.stdout)
    same("the seed's question", [(r["function"], r["c"]) for r in got], [("BOTH", 3), ("BOTH", 5), ("EITHER", 7)])
    con = sqlite3.connect(db)
    for r in got:  # a call's time holds its callees'
        kids = con.execute("SELECT coalesce(sum(dur), 0) FROM call WHERE parent_id = ?", (r["call_id"],)).fetchone()[0]
        self_dur = con.execute("SELECT self_dur FROM call WHERE id = ?", (r["call_id"],)).fetchone()[0]
        if not (r["dur"] > 0 and r["dur"] == self_dur + kids):
            fail("call %d: dur %s is not self %s + callees %s" % (r["call_id"], r["dur"], self_dur, kids))
    same("python sqlite3: the seed's question", [(n, c) for n, c, _, _ in con.execute(SEED_SQL)],
         [("BOTH", 3), ("BOTH", 5), ("EITHER", 7)])
    cli = run(["sqlite3", "-json", db], input=SEED_SQL + ";\n")
    same("sqlite3 CLI: the seed's question", json.loads(cli.stdout), got)
    con.close()
    # by --ask: FOO within each call of BOTH (3, 0, -2, 5): only c > 0 calls it
    same("within BOTH FOO", rows(ask(dump, "within BOTH FOO", db), "g_calls"), [(1,), (0,), (0,), (1,)])
    same("callers BAR", sorted(rows(ask(dump, "callers BAR", db), "caller", "calls")),
         [("foobar.BOTH", 4), ("foobar.EITHER", 2), ("foobar.IR", 1)])
    # BOTH(0) and the BAR(0) in it, then EITHER(0), its FOO(0) and BAR(0)
    same("where c=0", rows(ask(dump, "where c=0", db), "function"),
         [("foobar.BOTH",), ("foobar.BAR",), ("foobar.EITHER",), ("foobar.FOO",), ("foobar.BAR",)])
    cache_question(cc, plugin, inc, lib, dump)
    print("ok: the seed's FOO/BAR question and the cache question")


def cache_question(cc, plugin, inc, lib, dump):
    build(cc, plugin, inc, lib, os.path.join(HERE, "cache.c"), "cache")
    record("./cache", "cache", "ca")
    got = ask(dump, "repeats F G", "ca")
    same("repeats F G: the total", rows(got[:1], "function", "args", "calls", "repeats"), [("(all)", None, 12, 6)])
    same("repeats F G: per arguments", sorted(rows(got[1:], "function", "args", "calls", "repeats")),
         [("cache.G", "x=1, y=2", 6, 4), ("cache.G", "x=3, y=4", 4, 2)])
    same("repeats F G: the most time first", [r["repeat_ns"] for r in got[1:]],
         sorted((r["repeat_ns"] for r in got[1:]), reverse=True))
    # the repeats' time, found again from the call table: the 2nd and 3rd (1,2) and the 2nd
    # (3,4) among each F call's direct calls of G, in call order
    run([dump, "--format=sqlite", "-o", "ca.db", "ca"])
    con = sqlite3.connect("ca.db")
    want, total = 0, 0
    for (f,) in con.execute("SELECT c.id FROM call c JOIN function f ON f.id = c.function_id "
                            "WHERE f.name = 'F' ORDER BY c.id"):
        seen = set()
        for gid, dur in con.execute("SELECT c.id, c.dur FROM call c JOIN function f ON f.id = c.function_id "
                                    "WHERE f.name = 'G' AND c.parent_id = ? ORDER BY c.id", (f,)):
            a = tuple(con.execute("SELECT value FROM arg WHERE call_id = ? AND pos >= 0 ORDER BY pos", (gid,)))
            total += dur
            if a in seen:
                want += dur
            seen.add(a)
    con.close()
    same("repeats F G: time", (got[0]["repeat_ns"], got[0]["total_ns"]), (want, total))
    if not 0 < want < total:
        fail("repeat time %d of %d" % (want, total))


def diff(cc, plugin, inc, lib, dump, work):
    fresh(work)
    os.chdir(work)
    build(cc, plugin, inc, lib, os.path.join(HERE, "twice.c"), "twice")
    record("./twice", "tw", "a")
    record("./twice", "tw", "b", "2")
    for side, args in (("a", []), ("b", ["2"])):
        env = dict(os.environ, TF_MONITORS="tw=timing", TF_REPORT=side + ".json")
        run(["./twice", *args], env=env)
    for a, b in (("a", "b"), ("a.json", "b.json"), ("a", "b.json")):
        p = run([dump, "--diff", "--format=json", a, b])
        got = json.loads(p.stdout)
        what = "--diff %s %s" % (a, b)
        same(what + ": first", [(r["function"], r["calls_a"], r["calls_b"], r["only_in"]) for r in got[:1]],
             [("twice.work", 20, 40, "")])
        same(what + ": the others", sorted((r["function"], r["calls_a"], r["calls_b"], r["only_in"]) for r in got[1:]),
             [("twice.only_a", 1, None, "A"), ("twice.only_b", None, 1, "B"), ("twice.setup", 1, 1, "")])
        order = [(-abs(r["self_change_ns"]), -abs(r["total_change_ns"]), r["function"]) for r in got]
        same(what + ": sorted by the change in self time", order, sorted(order))
        work_row = got[0]
        for kind in ("total", "self"):
            change = work_row[kind + "_b_ns"] - work_row[kind + "_a_ns"]
            same("work's %s change" % kind, work_row[kind + "_change_ns"], change)
    p = run([dump, "--diff", "a", "b"])
    lines = p.stdout.splitlines()
    same("table head", lines[:3], ["A: a", "B: b", ""])
    same("table columns", lines[3].split()[:4], ["function", "calls_a", "calls_b", "total_a_ns"])
    same("table's first row", lines[5].split()[:3], ["twice.work", "20", "40"])
    print("ok: --diff on recordings and on reports")


def fork(cc, plugin, inc, lib, dump, work):
    fresh(work)
    os.chdir(work)
    build(cc, plugin, inc, lib, os.path.join(HERE, "forked.c"), "forked")
    os.makedirs("runs")
    child = int(record("./forked", "fk", "runs/t").stdout.split()[0])
    parent_dirs = ["runs/t", "runs/t.%d" % child]
    for inputs in (parent_dirs, ["runs"]):
        if os.path.exists("all.db"):
            os.unlink("all.db")
        run([dump, "--format=sqlite", "-o", "all.db", *inputs])
        con = sqlite3.connect("all.db")
        got = con.execute("SELECT p.pid, f.name, count(*) FROM call c JOIN function f ON f.id = c.function_id "
                          "JOIN thread t USING (utid) JOIN process p USING (upid) GROUP BY p.pid, f.name "
                          "ORDER BY p.pid = %d, f.name" % child).fetchall()
        parent = got[0][0] if got else None
        same("processes in one database from %s" % inputs, got,
             [(parent, "parent_work", 2), (child, "child_work", 2)])
        if parent == child:
            fail("one pid for both processes")
        same("two processes", con.execute("SELECT count(*) FROM process").fetchone()[0], 2)
        con.close()
    p = run([dump, "--format=chrome", *parent_dirs])
    events = json.loads(p.stdout)["traceEvents"]
    same("one timeline, both pids", sorted({e["pid"] for e in events}), sorted({parent, child}))
    same("its begins", sorted((e["pid"] == child, e["name"]) for e in events if e["ph"] == "B"),
         [(False, "forked.parent_work"), (False, "forked.parent_work"), (True, "forked.child_work"),
          (True, "forked.child_work")])
    print("ok: a parent and its child in one database and one timeline")


def main():
    what, args = sys.argv[1], sys.argv[2:]
    {"questions": questions, "replay": replay, "errors": errors, "seed": seed, "diff": diff,
     "fork": fork}[what](*args)


if __name__ == "__main__":
    main()
