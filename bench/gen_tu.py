"""gen_tu.py: a large, ordinary C translation unit for bench/run's compile-time and
.text comparison. Nothing in it is annotated: a rules file decides whether the
TF plugin instruments it. Deterministic for a given function count.

Each function is one of a few shapes a real code base is made of: small
arithmetic helpers, loops over arrays, switches, struct updates and string
handling through libc, with calls between them so nothing is dead.
"""

HEADER = """\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>

struct rec { int id; double weight; char name[32]; struct rec *next; };
"""

SHAPES = [
    # small helper
    """int f{i}(int a, int b)
{{
    return (a * {k} + b) ^ (a >> {s});
}}
""",
    # loop over an array, calling the previous function
    """long f{i}(const int *v, int n)
{{
    long acc = {k};
    for (int j = 0; j < n; j++)
        acc += v[j] % {m} == 0 ? f{p}(v[j], j) : v[j] * {s};
    return acc;
}}
""",
    # switch
    """const char *f{i}(int code)
{{
    switch (code % 6) {{
    case 0: return "zero{i}";
    case 1: return code > {k} ? "big{i}" : "one{i}";
    case 2: return "two{i}";
    case 3: return f{p}(code, {s}) > 0 ? "pos{i}" : "neg{i}";
    case 4: return "four{i}";
    default: return "other{i}";
    }}
}}
""",
    # struct update with libc
    """void f{i}(struct rec *r, const char *name, double w)
{{
    while (r) {{
        if (strcmp(r->name, name) == 0) {{
            r->weight = sqrt(r->weight * r->weight + w * {s}.0);
            snprintf(r->name, sizeof r->name, "%s-%d", name, r->id + {k});
            return;
        }}
        r = r->next;
    }}
}}
""",
    # double math with a loop
    """double f{i}(double x, int n)
{{
    double y = x;
    for (int j = 1; j <= n; j++)
        y = y * 0.{k}5 + sin(y / j) + (j % {m} ? f{p}(j, n) : 0);
    return y;
}}
""",
]

def generate(count):
    """The TU's text: count functions, shapes in turn; every shape but the first
    calls the latest small helper (shape 0), so the first function is one."""
    out = [HEADER]
    helper = 0
    for i in range(count):
        shape = i % len(SHAPES)
        k, s, m = (i * 7919) % 97 + 1, i % 5 + 1, i % 3 + 2
        out.append(SHAPES[shape].format(i=i, k=k, s=s, m=m, p=helper))
        if shape == 0:
            helper = i
    return "\n".join(out)
