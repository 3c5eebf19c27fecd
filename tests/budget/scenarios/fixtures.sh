# fixtures: the meter between the hooks and the monitors changes nothing
# they see. Fixtures of tests/fixtures with the hard cases (longjmp across
# monitored frames with the tracer's context after it, C++ exceptions
# through monitored frames, three threads, a library loaded and unloaded
# twice) run under their own TF_MONITORS without TF_BUDGET and with
# TF_BUDGET=1000%: traces (pointers aside), stdout and stderr (less the
# budget's exit line) the same. So short a run gives the budget no window
# to judge (2 ms of CPU), which its exit line confirms: nothing deselected.
# fixture NAME COMPILER SOURCES...: built as tests/plugins builds it.
fixture() {
    local name=$1 compiler=$2
    shift 2
    local srcs=() s
    for s in "$@"; do srcs+=("$fixtures/$s"); done
    mkdir -p "$name"
    if [ "$name" = dl_main ]; then
        "$compiler" -O2 -g -fplugin="$plugin" -I"$inc" -I"$fixtures" -fPIC -shared "$fixtures/dl_lib.c" \
            -o "$name/libfixture.so" -L"$libdir" -ltf -Wl,-rpath,"$libdir" || fail "building dl_lib.c"
    fi
    "$compiler" -O2 -g -fplugin="$plugin" -I"$inc" -I"$fixtures" "${srcs[@]}" -o "$name/prog" \
        -L"$libdir" -ltf -Wl,-rpath,"$libdir" -pthread -ldl || fail "building $name"
    local monitors
    monitors=$(sed -n 's/^# env TF_MONITORS=//p' "$fixtures/$name.expected")
    for run in plain budget; do
        local budget=
        [ $run = budget ] && budget=1000%
        (cd "$name" && env TF_MONITORS="$monitors" ${budget:+TF_BUDGET=$budget} TF_OUTPUT=$run.trace \
            ./prog > $run.out 2> $run.err)
        echo $? > "$name/$run.status"
        sed -E 's/0x[0-9a-f]+/0xPTR/g' "$name/$run.trace" | sort -s -t: -k1,1 > "$name/$run.sorted"
    done
    cmp -s "$name/plain.status" "$name/budget.status" || fail "$name: exit status changed by the budget"
    diff -u "$name/plain.sorted" "$name/budget.sorted" || fail "$name: trace changed by the budget"
    cmp -s "$name/plain.out" "$name/budget.out" || fail "$name: stdout changed by the budget"
    grep -vE '^tf: budget[ :]' "$name/budget.err" | sed -E 's/0x[0-9a-f]+/0xPTR/g' > "$name/budget.rest"
    sed -E 's/0x[0-9a-f]+/0xPTR/g' "$name/plain.err" | diff -u - "$name/budget.rest" ||
        fail "$name: stderr changed by the budget"
    # the exit line, then (built -O2 with the default clone-opt=light) the note on
    # the TU whose kept calls ran light copies, if the budget metered any call (a
    # run this short may end before it meters one: dl_main's metered 0 or 2)
    grep -E '^tf: budget[ :]' "$name/budget.err" > "$name/budget.line"
    local light=()
    grep -qE '^tf: budget .*; [1-9][0-9]* calls traced\)' "$name/budget.line" &&
        light=("tf: budget: 1 translation unit was built with light traced copies \(-fplugin-arg-tf-clone-opt=light, the default\): .*; build with -fplugin-arg-tf-clone-opt=full")
    expect_lines "$name: budget" "$name/budget.line" \
        "tf: budget 1000%: the hooks and the budget's thread took $NUM% of the program's own time \($NUM s of $NUM s CPU; [0-9]+ calls traced\); no function was deselected \([0-9]+ measured\)" \
        "${light[@]}"
    [ -s "$name/plain.sorted" ] || fail "$name: no trace at all"
}
fixture longjmp "$cc" longjmp.c
fixture threads "$cc" threads.c
fixture dl_main "$cc" dl_main.c
fixture exceptions "$cxx" exceptions.cc
