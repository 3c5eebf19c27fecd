#!/usr/bin/env python3
"""bt2dprint.py: babeltrace2's text output of a TF recording (stdin) as dprint
lines (docs/design.md .use.dprint), so a recording can be compared with dprint's
trace of the same run. Pointers become 0xPTR, as run-record.sh normalises
dprint's. Fails loudly on a line it does not understand."""
import re
import sys

LINE = re.compile(r'^\[[^]]*\] \(\+[^)]*\) \S+ (tf:\w+): \{ tid = \d+, thread = "([^"]*)" \}, \{ (.*) \}$')
LABEL = r'\( (?:"(?:[^"\\]|\\.)*"|<unknown>) : container = -?\d+ \)'
ENUM = re.compile(r'^\( (?:"((?:[^"\\]|\\.)*)"|<unknown>) : container = (-?\d+) \)$')
VALUE = re.compile(r'"(?:[^"\\]|\\.)*"|\{ type = ' + LABEL + r' \}|' + LABEL + r'|[^,]+')


def braced(text, i):
    """The end of the { ... } or [ ... ] that opens at text[i] (no strings inside)."""
    depth = 0
    for j in range(i, len(text)):
        depth += text[j] in '{[' and 1 or text[j] in '}]' and -1 or 0
        if depth == 0:
            return j + 1
    raise ValueError(text[i:])


class Span:
    def __init__(self, text, start, end):
        self.text, self.end_ = text[start:end], end

    def group(self, n):
        return self.text

    def end(self):
        return self.end_


def value_at(text, i):
    if text[i:i + 2] in ('{ ', '[ ') and not text.startswith('{ type = ', i):
        return Span(text, i, braced(text, i))
    return VALUE.match(text, i)


def fields(text):
    out, i = [], 0
    while i < len(text):
        m = re.match(r'(\w+) = ', text[i:])
        v = m and value_at(text, i + m.end())
        if not v:
            raise ValueError(text[i:])
        out.append((m.group(1), v.group(0)))
        i = v.end()
        if text[i:i + 2] == ', ':
            i += 2
    return out


FIXED = ('func', 'info', 'tp', 'result', 'kind', 'type')


def name(k, earlier):
    """The parameter's name: the recorder prefixes '_' to one that clashes."""
    while k.startswith('_') and (k[1:] in FIXED or k[1:] in earlier):
        k = k[1:]
    return k


NAMED = {'a': 7, 'b': 8, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11, '\\': 92, '"': 34}


def restring(body):
    """babeltrace2's escapes (\\n, \\xNN, raw UTF-8) as dprint's (\\n, octal)."""
    raw, i = bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == '\\' and body[i + 1] == 'x':
            raw.append(int(body[i + 2:i + 4], 16))
            i += 4
        elif c == '\\':
            raw.append(NAMED[body[i + 1]])
            i += 2
        else:
            raw += c.encode()
            i += 1
    out = ''
    for b in raw:
        named = [k for k, n in NAMED.items() if n == b]
        if named:
            out += '\\' + named[0]
        elif b < 0x20 or b >= 0x7f:
            out += '\\%03o' % b
        else:
            out += chr(b)
    return '"' + out + '"'


def number(v):
    """An integer as it is, a floating one as dprint's %g."""
    return v if re.match(r'^-?\d+$', v) else '%g' % float(v)


def wide(v):
    """The recorder's structs for __int128, complex and vector values
    (docs/trace-format.md, "Values") as dprint shows them."""
    f = dict(fields(v[2:-2]))
    if 'hi' in f:
        return str(int(f['hi']) * 2**64 + int(f['lo']))
    if 're' in f:
        im = number(f['im'])
        return number(f['re']) + ('' if im.startswith('-') else '+') + im + 'i'
    if 'v' in f:
        elems = [e for _, e in fields(f['v'][2:-2].replace('[', '_').replace(']', ''))]
        return '{' + ', '.join(wide(e) if e.startswith('{') else number(e) for e in elems) + '}'
    if 'unknown' in f:
        return '?'
    raise ValueError(v)


def value(v):
    if v.startswith('{ ') and not v.startswith('{ type = '):
        return wide(v)
    if v.startswith('"'):
        v = restring(v[1:-1])
        if v.endswith('..."'):  # cut at 64 bytes: dprint closes the quote first
            return v[:-4] + '"...'
        return v
    if v.startswith('{ type = '):
        return '{...}'  # a struct by value is recorded as its type's spelling
    m = ENUM.match(v)
    if m:
        return m.group(1) if m.group(1) is not None else m.group(2)
    if re.match(r'^0x0*$', v, re.I):
        return 'NULL'
    if re.match(r'^0x[0-9a-f]+$', v, re.I):
        return '0xPTR'
    return v


def main():
    for n, line in enumerate(sys.stdin, 1):
        m = LINE.match(line.rstrip('\n'))
        if not m:
            sys.exit(f'bt2dprint: line {n} not understood: {line.rstrip()}')
        event, thread, body = m.groups()
        f = fields(body)
        func = value(f[0][1])
        rest = []
        for k, v in f[1:]:
            rest.append((name(k, [r[0] for r in rest]), value(v)))
        args = ', '.join(f'{k}={v}' for k, v in rest)
        if event == 'tf:enter':
            print(f'({thread}): {func}->({args})')
        elif event == 'tf:exit':
            print(f'({thread}): {func}<-' + (f'({rest[0][1]})' if rest else ''))
        elif event == 'tf:info':
            info = value(f[1][1]).split('.', 1)[1]
            args = ', '.join(f'{k}={v}' for k, v in rest[2:])
            print(f'({thread}): {func}::({info})({args})')
        elif event == 'tf:signal':  # the signal that ended the process (tf-dump's line)
            code, addr = rest[0][1], dict(f)['addr']
            fault = func in ('SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGTRAP') and int(code) > 0
            addr = addr if addr == '0x0' else '0xPTR'
            print(f'({thread}): signal {func} (code {code}' + (f', address {addr})' if fault else ')'))
        elif event == 'tf:exception':
            kind, what = rest[0][1], rest[1][1].strip('"')
            print(f'({thread}): {func}:throw:' + (f'noreturn({what})' if kind == 'noreturn' else what))


main()
