#!/bin/sh
# project.sh SCENARIO PREFIX [TF_SOURCE_DIR]: a small project of its own, written
# into a temporary directory outside the TF tree, built against the TF
# installed in PREFIX the way its build system's users would, then run traced
# (TF_MONITORS=...=dprint) and its trace compared line by line.
#   cmake        find_package(TF) + tf_instrument(... RULES ...), shared and STATIC libtf
#   cmake-clang  the same with CC=clang
#   make         a Makefile, CC=tf-cc CXX=tf-c++, a rules file in TF_RULES
#   configure    an autotools-style ./configure of its own, CC=tf-cc
#   werror       CMake, -Werror, CC=tf-cc TF_CC=clang TF_RULES=...: no link-step warnings
#   pkg-config   gcc and clang with pkg-config --cflags --libs tf and the plugin variables
#   meson        CC=tf-cc meson setup
#   subproject   a parent project's add_subdirectory(TF sources): no tests, benchmarks, examples
#   readme       the README's commands that once failed as written (scenario_readme)
# Exit 77 (skipped) when a tool a scenario needs is missing.
set -eu
scenario=$1
P=$(realpath "$2")
TF_SRC=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export PATH="$P/bin:$PATH" PKG_CONFIG_PATH="$P/lib/pkgconfig"
unset TF_MONITORS TF_OUTPUT TF_RULES TF_PLUGIN_ARGS TF_CC TF_CXX

fail() { echo "FAIL $scenario: $*" >&2; exit 1; }
need() { command -v "$1" > /dev/null || { echo "SKIP $scenario: $1 is not installed"; exit 77; }; }
quiet() { "$@" > log 2>&1 || { cat log; fail "'$*' failed"; }; }

# check_trace PROGRAM GROUPS STDOUT TRACE-LINES...: run traced, compare.
check_trace() {
    prog=$1 groups=$2 out=$3
    shift 3
    TF_MONITORS="$groups" "$prog" > stdout 2> trace || fail "$prog exited $?: $(cat trace)"
    [ "$(cat stdout)" = "$out" ] || fail "$prog printed '$(cat stdout)', not '$out'"
    printf '%s\n' "$@" > want
    diff want trace > /dev/null || { diff want trace; fail "$prog: trace differs (< wanted, > got)"; }
}

# The annotated program: calc.add is monitored at the source.
write_app() {
    cat > app.c <<'SRC'
#include <stdio.h>
#include <tf/tf.h>
TF_GROUP(calc);
TF_MONITOR(calc) int add(int a, int b) { return a + b; }
int scale(int x);
int main(void) { printf("%d\n", scale(add(2, 3))); return 0; }
SRC
    # util.c has no annotations: the rules file instruments it.
    printf 'int scale(int x) { return 3 * x; }\n' > util.c
    printf 'group util\nmin-size 0\nmonitor util util.c *\n' > rules.txt
}
check_app() { # check_app PROGRAM: both groups traced
    name=$(basename "$1")
    check_trace "$1" 'calc=dprint,util=dprint' 15 "($name): app.add->(a=2, b=3)" \
        "($name): app.add<-(5)" "($name): util.scale->(x=5)" "($name): util.scale<-(15)"
}

cmake_project() { # cmake_project [cmake arguments...]
    write_app
    cat > CMakeLists.txt <<'SRC'
cmake_minimum_required(VERSION 3.20)
project(outside C)
find_package(TF 0.1 REQUIRED)
add_executable(app app.c util.c)
tf_instrument(app RULES rules.txt)
add_executable(app_static app.c util.c)
tf_instrument(app_static RULES rules.txt STATIC)
SRC
    quiet cmake -S . -B b -DCMAKE_PREFIX_PATH="$P" "$@"
    quiet cmake --build b
    check_app b/app
    check_app b/app_static
    ! ldd b/app_static | grep -q libtf || fail "app_static loads libtf.so"
}

scenario_cmake() { cmake_project; }
scenario_cmake_clang() { need clang; CC=clang cmake_project; }

scenario_make() {
    write_app
    cat > shape.cc <<'SRC'
#include <tf/tf.h>
TF_GROUP(geo);
namespace geo { TF_MONITOR(geo) int area(int w, int h) { return w * h; } }
extern "C" int scale(int);
int main() { return geo::area(2, scale(1)) == 6 ? 0 : 1; }
SRC
    cat > Makefile <<'SRC'
CFLAGS = -O2 -Wall
all: app shape
app: app.o util.o
	$(CC) $(CFLAGS) -o $@ app.o util.o
shape: shape.o util.o
	$(CXX) $(CXXFLAGS) -o $@ shape.o util.o
%.o: %.c
	$(CC) $(CFLAGS) -MMD -c $< -o $@
%.o: %.cc
	$(CXX) $(CXXFLAGS) -c $< -o $@
SRC
    TF_RULES=rules.txt quiet make CC=tf-cc CXX=tf-c++
    check_app ./app
    check_trace ./shape geo=dprint,util=dprint "" "(shape): util.scale->(x=1)" \
        "(shape): util.scale<-(3)" "(shape): shape.geo::area->(w=2, h=3)" "(shape): shape.geo::area<-(6)"
    grep -q 'tf/tf.h' app.d || fail "make: -MMD's app.d does not list tf/tf.h"
}

scenario_configure() {
    write_app
    cat > configure <<'SRC'
#!/bin/sh
# A configure script in autoconf's manner: probe the compiler, write Makefile.
: "${CC:=cc}" "${CFLAGS:=-O2}"
echo "checking whether the C compiler works... "
printf 'int main(void) { return 0; }\n' > conftest.c
$CC $CFLAGS conftest.c -o conftest && ./conftest || { echo "error: C compiler cannot create executables"; exit 1; }
echo "checking the compiler's version... $($CC --version | head -n 1)"
$CC -v > /dev/null 2>&1 || true
echo "checking how to run the C preprocessor... $CC -E"
$CC -E conftest.c > /dev/null || exit 1
echo "checking for tf/tf.h... "
printf '#include <tf/tf.h>\n' | $CC -E -x c - > /dev/null || { echo "error: tf/tf.h not found"; exit 1; }
echo "checking for object suffix... "
$CC $CFLAGS -c conftest.c && test -f conftest.o || exit 1
printf 'CC = %s\nCFLAGS = %s\n' "$CC" "$CFLAGS" > Makefile
cat >> Makefile <<'MK'
app: app.o util.o
	$(CC) $(CFLAGS) -o app app.o util.o
.c.o:
	$(CC) $(CFLAGS) -c $<
MK
SRC
    chmod +x configure
    CC=tf-cc quiet ./configure
    TF_RULES="$work/rules.txt" quiet make
    check_app ./app
}

scenario_werror() {
    need clang
    write_app
    cat > CMakeLists.txt <<'SRC'
cmake_minimum_required(VERSION 3.20)
project(strict C)
add_executable(app app.c util.c)
SRC
    export TF_CC=clang TF_RULES="$work/rules.txt" TF_PLUGIN_ARGS="verbose=0"
    CC=tf-cc quiet cmake -S . -B b -DCMAKE_C_FLAGS="-Wall -Wextra -Werror"
    grep -q 'The C compiler identification is Clang' log || fail "CMake did not see Clang: $(cat log)"
    quiet cmake --build b
    check_app b/app
}

scenario_pkg_config() {
    need pkg-config
    write_app
    for cc in gcc clang; do
        need $cc
        plugin=$(pkg-config --variable=${cc}_plugin tf)
        quiet $cc -O2 -fplugin="$plugin" -fplugin-arg-tf-rules=rules.txt $(pkg-config --cflags tf) \
            app.c util.c -o app $(pkg-config --libs tf) -Wl,-rpath,"$(pkg-config --variable=libdir tf)"
        check_app ./app
    done
    [ "$(pkg-config --modversion tf)" = 0.1 ] || fail "pkg-config --modversion tf"
}

scenario_meson() {
    need meson
    need ninja
    write_app
    printf "project('outside', 'c')\nexecutable('app', 'app.c', 'util.c')\n" > meson.build
    TF_RULES="$work/rules.txt" CC=tf-cc quiet meson setup b
    TF_RULES="$work/rules.txt" quiet ninja -C b
    check_app b/app
}

scenario_subproject() {
    [ -n "$TF_SRC" ] || fail "subproject needs the TF source directory"
    write_app
    cat > CMakeLists.txt <<SRC
cmake_minimum_required(VERSION 3.20)
project(parent C CXX)
enable_testing()
add_subdirectory("$TF_SRC" tf)
add_executable(app app.c util.c)
tf_instrument(app RULES rules.txt)
SRC
    quiet cmake -S . -B b
    cmake --build b --target help > targets
    for t in tf tf_static tf-cc app; do
        grep -q "^\.\.\. $t\$" targets || fail "subproject: no target $t"
    done
    ! grep -Eq '^\.\.\. (test_|tf_iostream|wc-timing|farcall)' targets || fail "subproject builds TF's tests, examples or benchmarks: $(grep -E 'test_|tf_iostream|farcall' targets)"
    [ "$(ctest --test-dir b -N | tail -n 1)" = "Total Tests: 0" ] || fail "subproject registers TF's tests"
}

# The README's commands as written (each once failed): tf_instrument after
# the plain target_link_libraries signature and before the keyword one, with
# OPTIONS manifest=FILE holding every source under -j2 and naming the rules
# line that took nothing; tf-cc with plugin options before the source, for
# GCC and for Clang.
scenario_readme() {
    write_app
    echo 'monitor util utl.c *' >> rules.txt # a typo: takes nothing
    for i in 1 2 3 4; do printf 'int more%d(int x) { return x + %d; }\n' $i $i > more$i.c; done
    cat > CMakeLists.txt <<'SRC'
cmake_minimum_required(VERSION 3.20)
project(readme C)
find_package(TF 0.1 REQUIRED)
find_package(Threads REQUIRED)
add_executable(plain app.c util.c more1.c more2.c more3.c more4.c)
target_link_libraries(plain Threads::Threads m)
tf_instrument(plain RULES rules.txt OPTIONS manifest=plain.json)
add_executable(keyword app.c util.c)
tf_instrument(keyword RULES rules.txt)
target_link_libraries(keyword PRIVATE Threads::Threads)
SRC
    for cc in gcc clang; do
        need $cc
        rm -rf b
        CC=$cc quiet cmake -S . -B b -DCMAKE_PREFIX_PATH="$P"
        cmake --build b -j2 > build.log 2>&1 || { cat build.log; fail "$cc: build"; }
        check_app b/plain
        check_app b/keyword
        python3 - b/plain.json <<'PY' || fail "$cc: the target's manifest"
import json, sys
m = json.load(open(sys.argv[1]))
tus = sorted(t["tu"] for t in m["tus"])
assert m["tool"] == "tf_instrument" and m["target"] == "plain", m
assert tus == ["app", "more1", "more2", "more3", "more4", "util"], tus
PY
        grep -qxF "tf_instrument(plain): $work/rules.txt:4: this monitor line took no function of plain's sources (tf-scan names the nearest files and functions)" build.log ||
            fail "$cc: the rules line that took nothing was not said: $(cat build.log)"
    done
    for cc in gcc clang; do
        TF_CC=$cc tf-cc -fplugin-arg-tf-verbose=1 -c app.c -o app.o > log 2>&1 || { cat log; fail "tf-cc ($cc) with a plugin option first"; }
        grep -q "tf: TF 0.1 (tf" log || fail "tf-cc ($cc): no verbose banner: $(cat log)"
    done
}

"scenario_$(echo "$scenario" | tr - _)"
echo "$scenario: pass"
