#!/usr/bin/python3
"""self_time.py TRACE_DIR...: per function of a TF recording, its calls and
its total and self time (the time in its own code, its callees' left out),
most self time first. Reads the recording with babeltrace2's Python
bindings (Debian's python3-bt2), not with tf-dump: the same numbers as

  tf-dump --sql "SELECT full_name, count(dur), sum(dur), sum(self_dur)
                 FROM slice GROUP BY full_name" TRACE_DIR

A call counts once it has returned. An exit closes the innermost open call
of its function and, with it, those above it (left by a longjmp): their
time until then is their caller's time in callees, as tf-dump counts it.
"""
import collections
import sys

import bt2


def func_of(event):
    """The function as "<tu>.<name>": an enumeration's label in a recording, a
    string in an LTTng trace."""
    f = event.payload_field["func"]
    labels = getattr(f, "labels", None)
    return labels[0] if labels else str(f)


def thread_of(msg):
    """(pid, tid): the packet context's tid in a recording, LTTng's vtid."""
    ev = msg.event
    ctx = ev.common_context_field
    tid = ctx["vtid"] if ctx is not None and "vtid" in ctx else ev.packet.context_field["tid"]
    env = ev.stream.trace.environment
    return (int(env["vpid"]) if "vpid" in env else -1, int(tid))


class Frame:
    def __init__(self, func, start):
        self.func, self.start, self.callees = func, start, 0


def self_times(paths):
    stacks = collections.defaultdict(list)
    calls = collections.Counter()
    total = collections.Counter()
    own = collections.Counter()
    for msg in bt2.TraceCollectionMessageIterator(paths):
        if type(msg) is not bt2._EventMessageConst or msg.event.name not in ("tf:enter", "tf:exit"):
            continue
        now = msg.default_clock_snapshot.ns_from_origin
        stack, func = stacks[thread_of(msg)], func_of(msg.event)
        if msg.event.name == "tf:enter":
            stack.append(Frame(func, now))
            continue
        at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].func == func), None)
        if at is None:
            continue  # the recording starts inside this call
        while len(stack) > at:
            f = stack.pop()
            if stack:
                stack[-1].callees += now - f.start
            if len(stack) == at:  # the call that returned
                calls[func] += 1
                total[func] += now - f.start
                own[func] += now - f.start - f.callees
    return calls, total, own


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: self_time.py TRACE_DIR...")
    calls, total, own = self_times(sys.argv[1:])
    print("%-40s %10s %14s %14s" % ("function", "calls", "total_ns", "self_ns"))
    for func in sorted(calls, key=lambda f: (-own[f], f)):
        print("%-40s %10d %14d %14d" % (func, calls[func], total[func], own[func]))


if __name__ == "__main__":
    main()
