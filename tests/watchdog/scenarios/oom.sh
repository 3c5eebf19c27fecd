# oom: a program that outgrows its memory cgroup's limit is killed by the
# kernel's OOM killer, and tf-watch says so, naming the count that rose.
# Needs root and a memory cgroup this test can make: cgroup v2 with the
# memory controller, else a v1 memory hierarchy; skipped with the reason
# otherwise. tf-watch and the program both run in the cgroup (the OOM killer
# takes the biggest, the program); the cgroup is removed at the end.
[ "$(id -u)" = 0 ] || skip "not root: making a memory cgroup needs root"
cg=
cgroup_dir() { # cgroup_dir FSTYPE CONTROLLER: our cgroup's directory in that hierarchy
    local point
    point=$(awk -v t="$1" -v c="$2" '{ for (i = 1; i <= NF; i++) if ($i == "-") break;
            if ($(i+1) == t && (c == "" || $(i+3) ~ ("(^|,)" c "(,|$)"))) { print $5; exit } }' /proc/self/mountinfo)
    [ -n "$point" ] || return 1
    local path
    if [ "$1" = cgroup2 ]; then path=$(sed -n 's/^0:://p' /proc/self/cgroup)
    else path=$(sed -n "s/^[0-9]*:\([^:]*,\)*$2\(,[^:]*\)*://p" /proc/self/cgroup); fi
    echo "$point${path%/}"
}
# A cgroup of an earlier run killed at its deadline goes once its test is gone.
clean_stale() {
    for d in "$1"/tf-oom-*; do
        [ -d "$d" ] && ! kill -0 "${d##*-}" 2>/dev/null && rmdir "$d" 2>/dev/null
    done
    true
}
try_v2() {
    local dir
    dir=$(cgroup_dir cgroup2 "") || return 1
    clean_stale "$dir"
    grep -qw memory "$dir/cgroup.subtree_control" 2>/dev/null || return 1
    mkdir "$dir/tf-oom-$$" 2>/dev/null || return 1
    cg=$dir/tf-oom-$$ file=memory.events
    echo 64M > "$cg/memory.max" && { echo 0 > "$cg/memory.swap.max" 2>/dev/null; true; }
}
try_v1() {
    local dir
    dir=$(cgroup_dir cgroup memory) || return 1
    clean_stale "$dir"
    mkdir "$dir/tf-oom-$$" 2>/dev/null || return 1
    cg=$dir/tf-oom-$$ file=memory.oom_control
    echo 64M > "$cg/memory.limit_in_bytes" &&
        { [ ! -e "$cg/memory.memsw.limit_in_bytes" ] || echo 64M > "$cg/memory.memsw.limit_in_bytes"; }
}
trap 'for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null; done; [ -n "$cg" ] && rmdir "$cg" 2>/dev/null' EXIT
try_v2 || try_v1 || skip "no memory cgroup can be made here (cgroup v2 without the memory controller delegated, and no v1 memory hierarchy)"
[ -f "$cg/$file" ] || fail "$cg has no $file"

sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" --log oom.json -- "$2" hog' "$cg" "$tfwatch" "$app" > oom.out 2> oom.err
rc=$?
[ "$rc" = 137 ] || fail "exit status $rc, not 137"
expect_lines oom oom.err \
    "tf-watch: $app \(pid [0-9]+\) killed by SIGKILL, by the kernel's OOM killer \(oom_kill 0 -> 1 in $cg/$file\)"
python3 - "$cg/$file" <<'PY' || fail "oom.json: $(cat oom.json)"
import json, sys
(r,) = [json.loads(line) for line in open("oom.json")]
assert r["verdict"] == "oom" and r["oom"] is True and r["signal"] == "SIGKILL" and r["status"] == 137, r
assert r["detail"] == "oom_kill 0 -> 1 in " + sys.argv[1], r
PY
