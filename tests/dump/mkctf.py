#!/usr/bin/env python3
"""mkctf.py LOG DIR [--func=enum|string] [--style=typed|lttng] [--packet-events=N]

Writes a CTF 1.8 trace (metadata + one stream file per thread) from an event
log of JSON lines, so tf-dump's reader is tested on traces whose content the
test knows. The layout is what a recorder writes (docs/design.md .rec.shape):
event
classes tf:enter/tf:exit/tf:info/tf:exception, one class per function and kind
so that argument fields are typed and named after the parameters; `func` an
enum of "<tu>.<name>" (or a string); vtid/vpid/procname in the event context.
--style=lttng writes the LTTng factory's shape instead: `args` and `result`
as text. A log line:
  {"t": NS, "tid": N, "pid": N, "thread": "name", "ev": "enter|exit|info|exception",
   "func": "tu.name", "info": "name", "args": [[name, kind, value], ...],
   "result": [kind, value], "kind": "throw", "type": "std::runtime_error"}
kinds: int, uint, bool, float, ptr, str, enum:<label>, struct.
"""
import json
import os
import struct
import sys
import uuid as uuidlib

CLOCK_OFFSET_S = 1700000000
TYPES = {
    "int": "integer { size = 64; align = 8; signed = true; }",
    "uint": "integer { size = 64; align = 8; signed = false; }",
    "ptr": "integer { size = 64; align = 8; signed = false; base = 16; }",
    "float": "floating_point { exp_dig = 11; mant_dig = 53; align = 8; }",
    "str": "string",
    "bool": 'enum : integer { size = 8; align = 8; signed = false; } { "false" = 0, "true" = 1 }',
}


def ctf_type(kind, value):
    if kind.startswith("enum:"):
        return 'enum : integer { size = 32; align = 8; signed = true; } { "%s" = %d }' % (
            kind[5:], value)
    if kind == "struct":
        return "struct { }"
    return TYPES[kind]


def pack(kind, value):
    if kind == "int":
        return struct.pack("<q", value)
    if kind in ("uint", "ptr"):
        return struct.pack("<Q", value)
    if kind == "float":
        return struct.pack("<d", value)
    if kind == "str":
        return value.encode() + b"\0"
    if kind == "bool":
        return struct.pack("<B", 1 if value else 0)
    if kind.startswith("enum:"):
        return struct.pack("<i", value)
    return b""


def c_string(s):
    """dprint's string syntax: C escapes, octal for other bytes, cut at 64 bytes"""
    named = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v",
             92: "\\\\", 34: '\\"'}
    b = s.encode()
    out = "".join(named.get(c) or (chr(c) if 0x20 <= c < 0x7f else "\\%03o" % c) for c in b[:64])
    return '"%s"%s' % (out, "..." if len(b) > 64 else "")


def text(kind, value):
    """a value as the LTTng factory writes it: dprint's syntax"""
    if kind == "str":
        return c_string(value)
    if kind == "ptr":
        return hex(value) if value else "NULL"
    if kind == "bool":
        return "true" if value else "false"
    if kind.startswith("enum:"):
        return kind[5:]
    return "{...}" if kind == "struct" else "%g" % value if kind == "float" else str(value)


class Trace:
    def __init__(self, func_enum, lttng):
        self.func_enum, self.lttng = func_enum, lttng
        self.funcs, self.classes, self.class_ids = [], [], {}

    def func_id(self, name):
        if name not in self.funcs:
            self.funcs.append(name)
        return self.funcs.index(name)

    def fields(self, e):
        """[(name, kind, value)] of e's payload, func first."""
        f = [("func", "func", e["func"])]
        if e["ev"] == "info":
            f.append(("info", "str", e["info"]))
        if e["ev"] == "exception":
            f += [("kind", "str", e["kind"]), ("type", "str", e["type"])]
        if self.lttng:
            if e["ev"] in ("enter", "info"):
                f.append(("args", "str", ", ".join(
                    "%s=%s" % (n, text(k, v)) for n, k, v in e.get("args", []))))
            if e["ev"] == "exit":
                r = e.get("result")
                f.append(("result", "str", text(*r) if r else ""))
            return f
        f += [tuple(a) for a in e.get("args", [])]
        if e.get("result"):
            f.append(("result",) + tuple(e["result"]))
        return f

    def class_of(self, e, fields):
        shape = (e["ev"], e["func"], tuple((n, k if k != "func" else "f") for n, k, _ in fields))
        if shape not in self.class_ids:
            self.class_ids[shape] = len(self.classes)
            self.classes.append((e["ev"], fields))
        return self.class_ids[shape]

    def encode(self, e):
        fields = self.fields(e)
        cid = self.class_of(e, fields)
        out = struct.pack("<IQ", cid, e["t"])
        out += struct.pack("<ii", e["tid"], e["pid"]) + e["thread"].encode() + b"\0"
        for _, k, v in fields:
            if k == "func":
                out += struct.pack("<I", self.func_id(v)) if self.func_enum else v.encode() + b"\0"
            else:
                out += pack(k, v)
        return out

    def metadata(self, uuid):
        enum = ", ".join('"%s" = %d' % (n, i) for i, n in enumerate(self.funcs))
        ftype = ("enum : integer { size = 32; align = 8; signed = false; } { %s }" % enum
                 if self.func_enum else "string")
        m = ["/* CTF 1.8 */",
             "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;",
             "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;",
             "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;",
             "trace { major = 1; minor = 8; uuid = \"%s\"; byte_order = le;" % uuid,
             "  packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; }; };",
             'env { domain = "ust"; tracer_name = "%s"; };' % ("lttng-ust" if self.lttng else "tf"),
             "clock { name = monotonic; freq = 1000000000; offset_s = %d; offset = 0; };"
             % CLOCK_OFFSET_S,
             "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }"
             " := uint64_clock_t;",
             "stream { id = 0;",
             "  packet.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;"
             " uint64_t content_size; uint64_t packet_size; uint64_t events_discarded; };",
             "  event.header := struct { uint32_t id; uint64_clock_t timestamp; };",
             "  event.context := struct { integer { size = 32; align = 8; signed = true; } vtid;"
             " integer { size = 32; align = 8; signed = true; } vpid; string procname; }; };"]
        for cid, (ev, fields) in enumerate(self.classes):
            decl = " ".join("%s %s;" % (ftype if k == "func" else ctf_type(k, v), n)
                            for n, k, v in fields)
            m.append('event { name = "tf:%s"; id = %d; stream_id = 0; fields := struct { %s }; };'
                     % (ev, cid, decl))
        return "\n".join(m) + "\n"


def packet(uuid, events, t0, t1):
    body = b"".join(events)
    header_size = 4 + 16 + 4 + 5 * 8
    size = header_size + len(body)
    ctx = struct.pack("<QQQQQ", t0, t1, size * 8, size * 8, 0)
    return struct.pack("<I", 0xC1FC1FC1) + uuid.bytes + struct.pack("<I", 0) + ctx + body


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    log, out = args
    per_packet = int(opts.get("packet-events", "1000000"))
    tr = Trace(opts.get("func", "enum") == "enum", opts.get("style", "typed") == "lttng")
    streams = {}
    with open(log) as f:
        for line in f:
            if line.strip():
                e = json.loads(line)
                streams.setdefault(e["tid"], []).append((e["t"], tr.encode(e)))
    # fixed: inputs saved by the fuzz target (fuzz-regress/) carry it
    uuid = uuidlib.UUID("3810d8e7-6178-4668-b9a1-79fe22a70994")
    os.makedirs(out, exist_ok=True)
    for tid, evs in streams.items():
        with open(os.path.join(out, "tf_%d" % tid), "wb") as f:
            for i in range(0, len(evs), per_packet):
                chunk = evs[i:i + per_packet]
                f.write(packet(uuid, [b for _, b in chunk], chunk[0][0], chunk[-1][0]))
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(tr.metadata(uuid))


if __name__ == "__main__":
    main()
