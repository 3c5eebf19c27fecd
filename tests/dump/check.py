#!/usr/bin/env python3
"""check.py WHAT FILE DPRINT: checks a tf-dump output against dprint's text of
the same run. text: the same lines per thread once the [s.ns] prefix is off;
chrome: balanced B/E per thread, one B per dprint enter line, arguments;
report/csv: counts equal the calls dprint saw; flame: well-formed SVG naming
every function, totals nested."""
import collections
import csv
import json
import re
import sys
import xml.etree.ElementTree as ET

LINE = re.compile(r"^\((?P<thread>[^)]*)\): (?P<func>[\w.]+?)(?P<rest>->|<-|::|:throw:)")


def fail(msg):
    print("check.py: %s: %s" % (sys.argv[2], msg))
    sys.exit(1)


def by_thread(lines):
    out = collections.defaultdict(list)
    for line in lines:
        m = LINE.match(line)
        if not m:
            fail("not a dprint line: %r" % line)
        out[m.group("thread")].append(line)
    return out


def calls(dprint):
    """function -> number of enters, from dprint's lines"""
    c = collections.Counter()
    for line in dprint:
        m = LINE.match(line)
        if m and m.group("rest") == "->":
            c[m.group("func")] += 1
    return c


def text(path, dprint):
    lines = open(path).read().splitlines()
    stripped = []
    for line in lines:
        if not re.match(r"^\[\d+\.\d{9}\] ", line):
            fail("line without its time prefix: %r" % line)
        stripped.append(line.split("] ", 1)[1])
    got, want = by_thread(stripped), by_thread(dprint)
    if got != want:
        for t in want:
            for a, b in zip(got.get(t, []), want[t]):
                if a != b:
                    fail("thread %s: tf-dump %r, dprint %r" % (t, a, b))
        fail("threads or line counts differ: %s vs %s" % (
            {t: len(v) for t, v in got.items()}, {t: len(v) for t, v in want.items()}))


def chrome(path, dprint):
    events = json.load(open(path))["traceEvents"]
    stacks, begins = collections.defaultdict(list), collections.Counter()
    for e in events:
        key = (e["pid"], e["tid"])
        if e["ph"] == "B":
            stacks[key].append(e["name"])
            begins[e["name"]] += 1
            if e["name"].endswith(".leaf") and set(e["args"]) != {"i", "u", "b", "d", "c", "s", "p"}:
                fail("leaf's arguments missing: %s" % e["args"])
        elif e["ph"] == "E":
            if not stacks[key] or stacks[key].pop() != e["name"]:
                fail("unbalanced E %s on %s" % (e["name"], key))
    if any(stacks.values()):
        fail("B without E: %s" % dict(stacks))
    if begins != calls(dprint):
        fail("B events %s, dprint enters %s" % (begins, calls(dprint)))
    names = {e["args"]["name"] for e in events if e["ph"] == "M"}
    if names != set(by_thread(dprint)):
        fail("thread tracks %s, dprint threads %s" % (names, set(by_thread(dprint))))


def report(path, dprint):
    timers = {t["name"]: t["count"] for t in json.load(open(path))["timers"]}
    if timers != dict(calls(dprint)):
        fail("report counts %s, calls %s" % (timers, dict(calls(dprint))))


def csv_report(path, dprint):
    rows = {r["timer"]: int(r["count"]) for r in csv.DictReader(open(path))}
    if rows != dict(calls(dprint)):
        fail("csv counts %s, calls %s" % (rows, dict(calls(dprint))))


def flame(path, dprint):
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    titles = [g.find(ns + "title").text for g in root.iter(ns + "g")]
    names = {t.split(" (")[0] for t in titles}
    if names != set(calls(dprint)) | {"all"}:
        fail("flame graph boxes %s, functions %s" % (names, set(calls(dprint))))
    if not any(t.startswith("all (") and "100.00%" in t for t in titles):
        fail("no root box with 100%")


def main():
    what, path, dprint_path = sys.argv[1:4]
    dprint = open(dprint_path).read().splitlines()
    if not dprint:
        fail("dprint printed nothing")
    {"text": text, "chrome": chrome, "report": report, "csv": csv_report, "flame": flame}[what](path, dprint)


if __name__ == "__main__":
    main()
