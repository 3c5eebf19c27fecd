#!/usr/bin/env python3
"""check_report.py: validates timing reports written by libtf (docs/design.md
.timing).

  check_report.py json FILE [--expect TIMER:FIELD=VALUE,...]... [--group G:SUB,SUB]...
                            [--summary FIELD=VALUE,...]
  check_report.py csv FILE [--expect TIMER:FIELD=VALUE,...]...
  check_report.py chrome FILE [--tracks N] [--max-per-track K] [--dropped D] [--names A,B]

Exits 0 if the file is well formed, has every field, and meets every
expectation; otherwise prints what is wrong and exits 1.
"""
import csv
import json
import sys

TIMER_FIELDS = {
    "name": str, "tu": str, "tu_file": str, "function": str, "kind": str,
    "group": (str, type(None)), "file": str, "line": int, "enabled": bool, "active": bool,
    "count": int, "total_ns": (int, float), "self_ns": (int, float), "min_ns": (int, float),
    "max_ns": (int, float), "mean_ns": (int, float), "stddev_ns": (int, float),
    "p50_ns": (int, float), "p90_ns": (int, float), "p99_ns": (int, float),
    "unwinds": int, "longjmps": int, "unmatched_exits": int, "abandoned": int,
    "self_pct": (int, float), "hooks_ns": (int, float), "hooks_pct": (int, float),
    "at_overhead_floor": bool,
}
SUMMARY_FIELDS = ("percent_of", "wall_ns", "cpu_ns", "self_ns_total", "calls", "hooks_ns",
                  "hooks_in_self_ns", "hooks_pct", "top_n", "top_self_pct")
CSV_HEADER = ("timer,tu,function,kind,group,count,total_ns,self_ns,min_ns,max_ns,mean_ns,"
              "stddev_ns,p50_ns,p90_ns,p99_ns,unwinds,longjmps,unmatched_exits,abandoned,"
              "enabled,active,self_pct,hooks_ns,hooks_pct,at_overhead_floor").split(",")

errors = []


def fail(msg):
    errors.append(msg)


def parse_expect(args):
    """--expect wc.tokenize:count=4,total_ns=24 -> {timer: {field: value}}"""
    out, groups, opts = {}, {}, {}
    i = 0
    while i < len(args):
        key = args[i]
        val = args[i + 1] if i + 1 < len(args) else ""
        if key == "--expect":
            timer, _, fields = val.partition(":")
            for item in fields.split(","):
                f, _, v = item.partition("=")
                out.setdefault(timer, {})[f] = v
        elif key == "--group":
            g, _, subs = val.partition(":")
            groups[g] = [s for s in subs.split(",") if s]
        else:
            opts[key.lstrip("-")] = val
        i += 2
    return out, groups, opts


def matches(actual, want):
    if isinstance(actual, bool):
        return str(actual).lower() == want
    if actual is None:
        return want == "null"
    if isinstance(actual, (int, float)):
        try:
            return abs(float(actual) - float(want)) < 1e-6
        except ValueError:
            return False
    return str(actual) == want


def check_expect(rows, expect):
    for timer, fields in expect.items():
        row = rows.get(timer)
        if row is None:
            fail(f"timer {timer} missing")
            continue
        for f, v in fields.items():
            if f not in row:
                fail(f"{timer}: no field {f}")
            elif not matches(row[f], v):
                fail(f"{timer}: {f} is {row[f]!r}, expected {v}")


def check_json(path, args):
    expect, groups, opts = parse_expect(args)
    with open(path) as f:
        doc = json.load(f)
    for key in ("format", "version", "units", "clock", "overhead", "threads", "anomalies",
                "summary", "timers", "groups", "group_tree"):
        if key not in doc:
            fail(f"top-level key {key} missing")
    if doc.get("units", {}).get("time") != "ns":
        fail("units.time is not ns")
    clock = doc.get("clock", {})
    for key in ("source", "ticks_per_second", "read_ns", "tsc_read_ns", "monotonic_read_ns",
                "tsc_invariant"):
        if key not in clock:
            fail(f"clock.{key} missing")
    for key in SUMMARY_FIELDS:
        if key not in doc.get("summary", {}):
            fail(f"summary.{key} missing")
    if "summary" in opts:
        check_expect({"summary": doc.get("summary", {})},
                     {"summary": dict(kv.split("=", 1) for kv in opts["summary"].split(","))})
    selfs = [t.get("self_ns", 0) for t in doc.get("timers", [])]
    if selfs != sorted(selfs, reverse=True):
        fail("timers are not sorted by self time")
    for key in ("unmatched_exits", "abandoned", "lost_frames"):
        if key not in doc.get("anomalies", {}):
            fail(f"anomalies.{key} missing")
    for key in ("subtracted_from_self", "per_nested_call_ns", "note"):
        if key not in doc.get("overhead", {}):
            fail(f"overhead.{key} missing")
    rows = {}
    for t in doc.get("timers", []):
        for field, typ in TIMER_FIELDS.items():
            if field not in t:
                fail(f"timer {t.get('name')}: field {field} missing")
            elif not isinstance(t[field], typ) or (typ is int and isinstance(t[field], bool)):
                fail(f"timer {t.get('name')}: field {field} has type {type(t[field]).__name__}")
        if t.get("count", 0) and not (t["min_ns"] <= t["p50_ns"] <= t["p90_ns"] <= t["p99_ns"]
                                      <= t["max_ns"]):
            fail(f"timer {t['name']}: percentiles out of order")
        if t.get("self_ns", 0) > t.get("total_ns", 0) + 1e-6:
            fail(f"timer {t['name']}: self > total")
        rows[t.get("name")] = t
    check_expect(rows, expect)
    by_name = {g["name"]: g for g in doc.get("groups", [])}
    for g in by_name.values():
        for key in ("enabled", "active", "self_ns", "self_ns_with_subgroups", "subgroups",
                    "timers"):
            if key not in g:
                fail(f"group {g['name']}: {key} missing")
        for t in g.get("timers", []):
            if t not in rows:
                fail(f"group {g['name']} lists unknown timer {t}")
    for g, subs in groups.items():
        if g not in by_name:
            fail(f"group {g} missing")
        elif sorted(by_name[g]["subgroups"]) != sorted(subs):
            fail(f"group {g}: subgroups {by_name[g]['subgroups']}, expected {subs}")

    def walk(node, depth):
        if depth > 40:
            fail("group tree too deep")
            return
        if node.get("name") not in by_name:
            fail(f"group tree names unknown group {node.get('name')}")
        for sub in node.get("subgroups", []):
            walk(sub, depth + 1)
    for root in doc.get("group_tree", []):
        walk(root, 0)


def check_csv(path, args):
    expect, _, _ = parse_expect(args)
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != CSV_HEADER:
            fail(f"CSV header is {header}")
            return
        rows = {}
        for line in reader:
            if len(line) != len(CSV_HEADER):
                fail(f"CSV row has {len(line)} fields: {line}")
                continue
            row = dict(zip(CSV_HEADER, line))
            for k in CSV_HEADER[5:]:
                try:
                    row[k] = float(row[k])
                except ValueError:
                    fail(f"CSV {row['timer']}: {k} is not a number: {row[k]!r}")
            rows[row["timer"]] = row
    check_expect(rows, expect)


def check_chrome(path, args):
    _, _, opts = parse_expect(args)
    with open(path) as f:
        doc = json.load(f)
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        fail("traceEvents missing")
        return
    tracks, named = {}, set()
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            named.add((e["pid"], e["tid"]))
            continue
        if e.get("ph") != "X":
            fail(f"unexpected event {e}")
            continue
        for key, typ in (("name", str), ("cat", str), ("pid", int), ("tid", int),
                         ("ts", (int, float)), ("dur", (int, float))):
            if not isinstance(e.get(key), typ):
                fail(f"event {e}: {key} missing or of the wrong type")
        tracks.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    for track, evs in tracks.items():
        if track not in named:
            fail(f"track {track} has no thread_name")
        # Complete events on one track must nest (Perfetto drops overlaps).
        stack = []
        for e in sorted(evs, key=lambda e: (e["ts"], -e["dur"])):
            end = e["ts"] + e["dur"]
            while stack and stack[-1][0] <= e["ts"] + 1e-6:
                stack.pop()
            if stack and end > stack[-1][0] + 1e-6:
                fail(f"track {track}: {e['name']} overlaps {stack[-1][1]} without nesting")
            stack.append((end, e["name"]))
        if "max-per-track" in opts and len(evs) > int(opts["max-per-track"]):
            fail(f"track {track} has {len(evs)} events, more than {opts['max-per-track']}")
    if "tracks" in opts and len(tracks) != int(opts["tracks"]):
        fail(f"{len(tracks)} tracks, expected {opts['tracks']}")
    if "dropped" in opts and doc.get("otherData", {}).get("dropped_events") != int(opts["dropped"]):
        fail(f"dropped_events is {doc.get('otherData', {}).get('dropped_events')}, "
             f"expected {opts['dropped']}")
    if "names" in opts:
        seen = {e["name"] for evs in tracks.values() for e in evs}
        for n in opts["names"].split(","):
            if n not in seen:
                fail(f"no event named {n}")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("json", "csv", "chrome"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        {"json": check_json, "csv": check_csv, "chrome": check_chrome}[mode](path, args)
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: {type(e).__name__}: {e}")
    for e in errors:
        print(f"check_report: {mode} {path}: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
