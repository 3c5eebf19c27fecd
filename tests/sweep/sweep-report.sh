#!/bin/bash
# sweep-report.sh RESULTS KNOWN: the sweep's table (per compiler and level:
# programs, skipped, clean, and each class of problem), then every problem
# not listed in KNOWN. Exit 1 if there is one.
set -u
results=$1 known=$2
awk -v known="$known" '
BEGIN {
    while ((getline line < known) > 0) {
        sub(/#.*/, "", line); n = split(line, f, " ")
        if (n >= 5) ok[f[1] " " f[2] " " f[3] " " f[4] " " f[5]] = 1
    }
    nclass = split("ice error wrong crash hang", classes, " ")
}
{
    key = $2 " " $3
    if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key }
    prog[key SUBSEP $1] = 1
    if ($4 == "skip") { skip[key]++; next }
    if ($4 == "ok") { clean[key]++; next }
    cls = $4; where = $5
    if (!((key, $1, cls) in counted)) { counted[key, $1, cls] = 1; count[key, cls]++ }
    if (!(($1 " " $2 " " $3 " " cls " " where) in ok)) unexpected[++nun] = $0
    else { if (!((key, $1) in kn)) { kn[key, $1] = 1; knowncount[key]++ } }
    bad[key SUBSEP $1] = 1
}
END {
    printf "%-12s %6s %6s %6s", "compiler", "files", "skip", "clean"
    for (i = 1; i <= nclass; i++) printf " %6s", classes[i]
    printf " %6s\n", "known"
    for (k = 1; k <= nkeys; k++) {
        key = order[k]; n = 0
        for (p in prog) { split(p, q, SUBSEP); if (q[1] == key) n++ }
        printf "%-12s %6d %6d %6d", key, n, skip[key], clean[key]
        for (i = 1; i <= nclass; i++) printf " %6d", count[key, classes[i]]
        printf " %6d\n", knowncount[key]
    }
    if (nun) {
        print "\nunexpected (FILE CC OPT CLASS WHERE):"
        for (i = 1; i <= nun; i++) print "  " unexpected[i]
        exit 1
    }
}' "$results"
