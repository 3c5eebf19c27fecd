#!/bin/sh
# deb.sh BUILD: the Debian package of BUILD (cpack -G DEB), its dependencies,
# `apt-get install ./tf_*.deb`, a traced program built with the installed
# /usr/bin/tf-cc and with gcc -fplugin=/usr/lib/tf/tf.so, then
# `apt-get remove --purge tf`, leaving the machine as it was. Needs root (CI
# runs as root); skipped (77) otherwise, or when a tf package is already
# installed (not ours to replace). One run at a time per machine (flock).
set -eu
build=$(realpath "$1")
skip() { echo "SKIP deb: $*"; exit 77; }
fail() { echo "FAIL deb: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "not root: apt-get install needs it"
for tool in apt-get dpkg-deb dpkg-shlibdeps cpack flock; do
    command -v $tool > /dev/null || skip "$tool is not installed"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exec 9> /var/lock/tf-deb-test.lock
flock -w 600 9 || fail "another deb test holds /var/lock/tf-deb-test.lock"
if dpkg-query -W -f='${Status}' tf 2> /dev/null | grep -q 'ok installed'; then
    skip "a tf package is already installed"
fi

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work" > "$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/tf_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for dep in libc6 'gcc-12 (>= ' libllvm14 libclang-cpp14; do
    echo "$depends" | grep -qF "$dep" || fail "Depends lacks $dep: $depends"
done
dpkg-deb -c "$deb" | grep -q ' ./usr/lib/tf/tf.so$' || fail "no /usr/lib/tf/tf.so in $(dpkg-deb -c "$deb")"

apt() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -qq "$@" > "$work/apt.log" 2>&1 ||
        { cat "$work/apt.log"; fail "apt-get $* failed"; }; }
trap 'apt-get -o DPkg::Lock::Timeout=300 -y -qq remove --purge tf > /dev/null 2>&1; rm -rf "$work"' EXIT
apt install --no-install-recommends "$deb"

cd "$work"
cat > app.c <<'SRC'
#include <stdio.h>
#include <tf/tf.h>
TF_GROUP(calc);
TF_MONITOR(calc) int add(int a, int b) { return a + b; }
int main(void) { printf("%d\n", add(2, 3)); return 0; }
SRC
printf '(app): app.add->(a=2, b=3)\n(app): app.add<-(5)\n' > want
/usr/bin/tf-cc app.c -o app || fail "tf-cc app.c failed"
TF_MONITORS=calc=dprint ./app 2> trace > /dev/null && diff want trace || fail "tf-cc: trace differs"
gcc -fplugin=/usr/lib/tf/tf.so app.c -o app $(pkg-config --libs tf) || fail "gcc -fplugin= failed"
TF_MONITORS=calc=dprint ./app 2> trace > /dev/null && diff want trace || fail "gcc -fplugin: trace differs"

apt remove --purge tf
trap 'rm -rf "$work"' EXIT
[ ! -e /usr/bin/tf-cc ] && [ ! -e /usr/lib/tf/tf.so ] || fail "files left after apt-get remove"
echo "deb: $(basename "$deb") built, installed, traced and removed"
