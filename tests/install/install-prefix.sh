#!/bin/sh
# install-prefix.sh BUILD SOURCE PREFIX: `cmake --install BUILD --prefix PREFIX`
# into an emptied PREFIX (the fixture of the other install.* tests), then
# checks that every promised file is there, each tool answers --help, and no
# installed text file points back into the source or build tree.
set -eu
build=$1 src=$(realpath "$2") prefix=$3
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > "$prefix.log" 2>&1 || { cat "$prefix.log"; exit 1; }
P=$(realpath "$prefix")
fail() { echo "FAIL install: $*" >&2; exit 1; }
for f in include/tf/tf.h include/tf/registry.h include/tf/monitors.h lib/libtf.so lib/libtf.so.0 \
         lib/libtf.a lib/tf/tf.so lib/tf/tf-clang.so bin/tf-cc bin/tf-c++ bin/tf-scan bin/tf-dump bin/tf-ctl bin/tf-watch \
         lib/cmake/TF/TFConfig.cmake lib/cmake/TF/TFConfigVersion.cmake \
         lib/cmake/TF/TFTargets.cmake lib/cmake/TF/TFInstrument.cmake lib/pkgconfig/tf.pc; do
    [ -e "$P/$f" ] || fail "no $f in the prefix"
done
for tool in "$P"/bin/*; do
    "$tool" --help > "$prefix.help" 2>&1 < /dev/null || fail "$(basename "$tool") --help failed: $(cat "$prefix.help")"
    grep -qi 'usage' "$prefix.help" || fail "$(basename "$tool") --help prints no usage"
done
# (The prefix itself may lie in the build tree: its own paths are no leak.)
leaks=$(grep -rF "$src" "$P/lib/cmake" "$P/lib/pkgconfig" "$P/include" | sed "s|$P||g" |
        grep -F -e "$src" -e "$(realpath "$build")" || true)
[ -z "$leaks" ] || fail "installed files name the source or build tree: $leaks"
grep -qx "prefix=$P" "$P/lib/pkgconfig/tf.pc" || fail "tf.pc does not name the prefix $P"
echo "install: $P complete"
