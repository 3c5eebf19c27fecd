#!/usr/bin/env bash
# files.sh CC PLUGIN INCLUDE LIBDIR TF_DUMP WORK: the files TF writes, as an
# attacker and a careless root would meet them (CMakeLists.txt).
set -u
cc=$1 plugin=$2 inc=$3 libdir=$4 dump=$5 work=$6
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
manifest_opt=-fplugin-arg-tf-manifest # the same for both plugins
build() { # build [-fplugin-arg-tf-manifest=FILE]: app, 2> build.err
    "$cc" -O1 -fplugin="$plugin" "$@" -I"$inc" "$(dirname "$0")/app.c" -L"$libdir" -ltf \
        -Wl,-rpath,"$libdir" -o app 2>build.err
}
build || fail "cannot build app: $(cat build.err)"
env TF_MONITORS=g=record TF_RECORD=rec0 ./app 2>/dev/null || fail "no first recording"

# refused_all TARGET WHY [RECORD_WHY]: every writer refuses TARGET, saying
# WHY (the recorder, which wants a directory there, RECORD_WHY).
refused_all() {
    local target=$1 why=$2 record_why=${3:-$2} line
    env TF_MONITORS=g=dprint TF_OUTPUT="$target" ./app 2>err.txt
    line="tf: TF_OUTPUT: cannot write '$target': $why"
    grep -qxF "$line" err.txt || fail "TF_OUTPUT=$target: $(cat err.txt)"
    env TF_MONITORS=g=timing TF_REPORT="$target" TF_TIMING_TRACE="$target" ./app 2>err.txt
    grep -qxF "tf: TF_REPORT: cannot write '$target': $why" err.txt || fail "TF_REPORT=$target: $(cat err.txt)"
    grep -qxF "tf: TF_TIMING_TRACE: cannot write '$target': $why" err.txt ||
        fail "TF_TIMING_TRACE=$target: $(cat err.txt)"
    env TF_MONITORS=g=record TF_RECORD="$target" ./app 2>err.txt
    grep -qxF "tf: record: cannot write the trace directory '$target': $record_why" err.txt ||
        fail "TF_RECORD=$target: $(cat err.txt)"
    "$dump" -o "$target" rec0 2>err.txt && fail "tf-dump -o $target succeeded"
    grep -qxF "tf-dump: cannot write '$target': $why" err.txt || fail "tf-dump -o $target: $(cat err.txt)"
    build "$manifest_opt=$target" && fail "the manifest $target was written"
    grep -qF "$why" build.err || fail "manifest $target: $(cat build.err)"
}

# A symbolic link on the way, to a directory of ours: followed by nobody.
mkdir -m 700 realdir && ln -s realdir linkdir
refused_all linkdir/x "directory 'linkdir' on the way is a symbolic link, which TF never follows"
[ -z "$(ls realdir)" ] || fail "written through the link: $(ls realdir)"

# Files TF did not write are kept; TF's own are replaced, private again.
echo precious >mine.txt && chmod 644 mine.txt
TF_MONITORS=g=timing TF_REPORT=mine.txt ./app 2>err.txt
grep -qxF "tf: TF_REPORT: cannot write 'mine.txt': it exists and is no timing report TF wrote, which is all TF replaces (remove it first, or set TF_OVERWRITE=1)" err.txt ||
    fail "report over mine.txt: $(cat err.txt)"
"$dump" -o mine.txt rec0 2>err.txt && fail "tf-dump -o replaced mine.txt"
grep -qxF "tf-dump: cannot write 'mine.txt': it exists and is no tf-dump output TF wrote, which is all TF replaces (remove it first, or use --force)" err.txt ||
    fail "tf-dump over mine.txt: $(cat err.txt)"
[ "$(cat mine.txt)" = precious ] && [ "$(stat -c %a mine.txt)" = 644 ] || fail "mine.txt changed"
TF_MONITORS=g=timing TF_REPORT=mine.txt TF_OVERWRITE=1 ./app 2>err.txt || fail "TF_OVERWRITE=1"
grep -q '^TF timing report' mine.txt && [ "$(stat -c %a mine.txt)" = 600 ] || fail "TF_OVERWRITE=1 did not replace mine.txt"
"$dump" -o dump.txt rec0 && chmod 644 dump.txt && "$dump" -o dump.txt rec0 || fail "tf-dump -o twice"
[ "$(stat -c %a dump.txt)" = 600 ] || fail "tf-dump's own output kept mode $(stat -c %a dump.txt)"
echo precious >mine.txt && "$dump" --force -o mine.txt rec0 && grep -q '^\[' mine.txt || fail "tf-dump --force"
build "$manifest_opt=m.json" && chmod 644 m.json && build "$manifest_opt=m.json" || fail "manifest twice: $(cat build.err)"
[ "$(stat -c %a m.json)" = 600 ] || fail "the manifest kept mode $(stat -c %a m.json)"
echo '{}' >notes.json
build "$manifest_opt=notes.json" && fail "a manifest replaced notes.json"
grep -qF "it exists and is no TF manifest TF wrote" build.err || fail "manifest over notes.json: $(cat build.err)"

# A recording again into its directory: replaced, metadata private again; an
# earlier trace's stream removed; a directory of other files refused whole.
chmod 644 rec0/metadata && cp rec0/thread-1 rec0/thread-7
TF_MONITORS=g=record TF_RECORD=rec0 ./app 2>err.txt || fail "recording again: $(cat err.txt)"
[ "$(stat -c %a rec0/metadata)" = 600 ] || fail "metadata kept mode $(stat -c %a rec0/metadata)"
[ -e rec0/thread-7 ] && fail "the earlier trace's thread-7 was kept"
mkdir -m 700 notes && echo mine >notes/metadata && echo mine >notes/thread-1
TF_MONITORS=g=record TF_RECORD=notes ./app 2>err.txt
grep -qxF "tf: record: cannot write the trace directory 'notes': it holds files and is no recording TF wrote (it has no metadata of TF's), which is all TF writes into (remove it first, or set TF_OVERWRITE=1)" err.txt ||
    fail "notes: $(cat err.txt)"
[ "$(cat notes/metadata notes/thread-1)" = "mine
mine" ] || fail "notes changed"

# A second name (hard link): TF never writes through one.
TF_MONITORS=g=timing TF_REPORT=r.txt ./app && ln r.txt r2.txt || fail "r.txt"
TF_MONITORS=g=timing TF_REPORT=r.txt ./app 2>err.txt
grep -qxF "tf: TF_REPORT: cannot write 'r.txt': it has other names (hard links), which TF never writes through" err.txt ||
    fail "hard link: $(cat err.txt)"

# Names are escaped in every message.
esc=$'t\e[31mred'
TF_MONITORS=g=record TF_RECORD="$esc" ./app 2>err.txt || fail "record into $esc"
grep -qxF 'tf: record: trace in t\x1b[31mred (1 thread, ring mode)' err.txt || fail "escape: $(cat -v err.txt)"
TF_MONITORS=g=record TF_RECORD="nodir/$esc" ./app 2>err.txt
grep -qxF "tf: record: cannot write the trace directory 'nodir/t\\x1b[31mred': No such file or directory" err.txt ||
    fail "escape: $(cat -v err.txt)"
XDG_RUNTIME_DIR="$work/x$esc" TF_CONTROL=1 ./app 2>err.txt
grep -qxF "tf: TF_CONTROL: not serving: $work/xt\\x1b[31mred/tf No such file or directory" err.txt ||
    fail "escape: $(cat -v err.txt)"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
    echo "SKIP (the rest): planting as another user needs root and setpriv"
    echo "PASS"
    exit 0
fi
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 755 "$work"
# A sticky directory (/tmp's mode) where uid 65534 plants a directory of its
# own holding a link to a root-owned directory, and a link of its own.
mkdir -m 700 victim && echo precious >victim/metadata && echo precious >victim/thread-1
mkdir -m 1777 sticky
nobody mkdir sticky/dir && nobody ln -s ../../victim sticky/dir/alink && nobody ln -s ../victim sticky/alink
refused_all sticky/dir/alink/x "directory 'sticky/dir' on the way belongs to uid 65534, neither this process's user nor root"
refused_all sticky/alink/x "directory 'sticky/alink' on the way is a symbolic link, which TF never follows"
# Pointed at a root-owned directory of other files: nothing deleted or overwritten.
TF_MONITORS=g=record TF_RECORD=victim ./app 2>err.txt
grep -qF "cannot write the trace directory 'victim': it holds files and is no recording TF wrote" err.txt ||
    fail "victim: $(cat err.txt)"
[ "$(cat victim/metadata victim/thread-1)" = "precious
precious" ] && [ -z "$(ls victim | grep -v '^metadata$\|^thread-1$')" ] || fail "victim changed: $(ls -l victim)"
# Their file, under the name TF will use.
nobody sh -c 'echo theirs >sticky/r.txt'
refused_all sticky/r.txt "it belongs to uid 65534, not to this process's uid 0" "it is not a directory"
[ "$(cat sticky/r.txt)" = theirs ] || fail "their file changed"
# A directory others may write, not sticky.
mkdir -m 777 open && chmod 777 open
refused_all open/x "directory 'open' on the way may be written by others and is not sticky"
[ -z "$(ls open)" ] || fail "written into open/: $(ls open)"
echo PASS
