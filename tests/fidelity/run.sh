#!/bin/bash
# run.sh: the program's state kept by every monitor (docs/design.md .fid.fenv,
# .fid.sizes).
#   state:  state.c (FP flags and rounding mode, errno, signal mask,
#           sigaltstack checked around every monitored call, in a handler,
#           a thread and at exit) under each built-in monitor, their
#           composition, a condition, a trigger writing a report, and the
#           timing trace; dprint must print 0.1 as 0.1 under FE_UPWARD.
#   bigtu:  a generated TU of 20,000 functions with 1 KiB names, under each
#           monitor: every function traced, recorded, reported.
#
#   run.sh state|bigtu CC PLUGIN INCLUDE LIBDIR TF_DUMP WORK
set -u
mode=$1 cc=$2 plugin=$3 inc=$4 libdir=$5 dump=$6 work=$7
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

. "$here/$mode.sh"
echo "PASS: $mode"
