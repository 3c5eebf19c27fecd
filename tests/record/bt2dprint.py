#!/usr/bin/env python3
"""bt2dprint.py: babeltrace2's text output of a TF recording (stdin) as dprint
lines (DESIGN.md section 3), so a recording can be compared with dprint's
trace of the same run. Pointers become 0xPTR, as run-record.sh normalises
dprint's. Fails loudly on a line it does not understand."""
import re
import sys

LINE = re.compile(r'^\[[^]]*\] \(\+[^)]*\) \S+ (tf:\w+): \{ tid = \d+, thread = "([^"]*)" \}, \{ (.*) \}$')
ENUM = re.compile(r'^\( "((?:[^"\\]|\\.)*)" : container = -?\d+ \)$')


def fields(text):
    out, i = [], 0
    while i < len(text):
        m = re.match(r'(\w+) = ', text[i:])
        if not m:
            raise ValueError(text[i:])
        i += m.end()
        if text[i] == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            val = text[i:j + 1]
        elif text[i] == '(':
            j = text.index(')', i)
            val = text[i:j + 1]
        else:
            j = text.find(', ', i)
            j = len(text) - 1 if j < 0 else j - 1
            val = text[i:j + 1]
        out.append((m.group(1), val))
        i = j + 1
        if text[i:i + 2] == ', ':
            i += 2
    return out


FIXED = ('func', 'info', 'tp', 'result', 'kind', 'type')


def name(k, earlier):
    """The parameter's name: the recorder prefixes '_' to one that clashes."""
    while k.startswith('_') and (k[1:] in FIXED or k[1:] in earlier):
        k = k[1:]
    return k


def value(v):
    if v.endswith('..."'):  # cut at 64 bytes: dprint closes the quote first
        return v[:-4] + '"...'
    m = ENUM.match(v)
    if m:
        return m.group(1)
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
        elif event == 'tf:exception':
            kind, what = rest[0][1], rest[1][1].strip('"')
            print(f'({thread}): {func}:throw:' + (f'noreturn({what})' if kind == 'noreturn' else what))


main()
