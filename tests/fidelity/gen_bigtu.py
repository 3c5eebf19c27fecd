#!/usr/bin/env python3
"""gen_bigtu.py N LEN: a C translation unit with N monitored functions whose
names are LEN bytes long (docs/design.md .fid.sizes), and a main that calls each
once.
Function i returns i + its argument; main prints the sum, which is
sum(i + 1 for i in range(N))."""
import sys

n, length = int(sys.argv[1]), int(sys.argv[2])


def name(i):
    stem = "f%05d_" % i
    return stem + "n" * (length - len(stem))


out = ["#include <stdio.h>", "#include <tf/tf.h>", "TF_GROUP(big);"]
for i in range(n):
    out.append("TF_MONITOR(big) __attribute__((noinline)) long %s(long x) { return x + %d; }" % (name(i), i))
out.append("int main(void)\n{\n    long sum = 0;")
for i in range(n):
    out.append("    sum += %s(1);" % name(i))
out.append('    printf("%ld\\n", sum);\n    return 0;\n}')
sys.stdout.write("\n".join(out) + "\n")
