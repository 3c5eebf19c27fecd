#!/bin/sh
# wrapper.sh PREFIX GCC_VERSION CLANG_VERSION TF_VERSION: tf-cc and tf-c++ from an
# installed PREFIX, run over fake compilers that record their arguments, one
# case per command line kind: what each adds, and that it passes everything
# of the user's through in order, untouched.
set -eu
P=$(realpath "$1")
GCC_VERSION=$2
CLANG_VERSION=$3
TF_VERSION=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0

# fake COMMAND VERSION-TEXT: records its arguments; prints VERSION-TEXT for --version.
fake() {
    printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "$FAKE_LOG"\n[ "$*" = --version ] && printf "%s\\n"\nexit 0\n' "$2" > "$1"
    chmod +x "$1"
}
# GCC's own lines: a GNU program that is not GCC (coreutils' true) has the
# copyright line too, and is no compiler.
fake gcc-fake "gcc (Debian $GCC_VERSION-14) $GCC_VERSION\nCopyright (C) 2022 Free Software Foundation, Inc.\nThis is free software; see the source for copying conditions.  There is NO"
fake clang-fake "Debian clang version $CLANG_VERSION\nTarget: x86_64-pc-linux-gnu"
fake gcc-other "gcc (GCC) 99.1.0\nCopyright (C) 2099 Free Software Foundation, Inc.\nThis is free software; see the source for copying conditions.  There is NO"
fake mystery-cc "MysteryCC 1.0"
printf '#!/bin/sh\nexec "$@"\n' > launcher && chmod +x launcher
export FAKE_LOG="$work/log"
I="-I$P/include"
GP="-fplugin=$P/lib/tf/tf.so"
CP="-fplugin=$P/lib/tf/tf-clang.so"
LINK="-L$P/lib -Wl,-rpath,$P/lib -ltf"

# expect NAME 'EXPECTED ARGS' TOOL ARGS...: the recorded command, blank-split;
# the plugin first (GCC wants it before any -fplugin-arg-tf-* of the user's)
# (the user's arguments in these cases have no blanks unless tested apart).
expect() {
    name=$1 want=$2
    shift 2
    rm -f "$FAKE_LOG"
    if ! "$@" > out 2>&1; then
        echo "FAIL $name: exit status $? ($(cat out))"; fails=$((fails + 1)); return
    fi
    got=$(cat "$FAKE_LOG" 2> /dev/null | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$want" ] || { printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$name" "$want" "$got"; fails=$((fails + 1)); }
}

# refuse NAME 'MESSAGE' TOOL ARGS...: exit 1, MESSAGE on stderr, no compiler run.
refuse() {
    name=$1 msg=$2
    shift 2
    rm -f "$FAKE_LOG"
    if "$@" > out 2>&1; then
        echo "FAIL $name: succeeded"; fails=$((fails + 1)); return
    fi
    grep -qF -- "$msg" out || { echo "FAIL $name: no '$msg' in: $(cat out)"; fails=$((fails + 1)); }
    ! grep -qvx -- --version "$FAKE_LOG" 2> /dev/null || { echo "FAIL $name: the compiler ran"; fails=$((fails + 1)); }
}

cc() { TF_CC=./gcc-fake "$P/bin/tf-cc" "$@"; }
clang_cc() { TF_CC=./clang-fake "$P/bin/tf-cc" "$@"; }

expect compile      "$GP -c a.c -o a.o $I"            cc -c a.c -o a.o
expect link         "a.o b.o -o app $LINK"            cc a.o b.o -o app
expect both         "$GP -O2 a.c -o app $I $LINK"     cc -O2 a.c -o app
expect shared       "-shared -o libx.so a.o $LINK"    cc -shared -o libx.so a.o
expect static       "-static a.o -L$P/lib -Wl,-rpath,$P/lib -Wl,--undefined=tf_tu_register -ltf -lpthread -ldl -lm" \
                                                      cc -static a.o
expect lib-arg      "a.o -l m -o app $LINK"           cc a.o -l m -o app
expect assemble     "$GP -S a.c $I"                   cc -S a.c
expect syntax-only  "$GP -fsyntax-only a.c $I"        cc -fsyntax-only a.c
expect preprocess   "-E a.c $I"                       cc -E a.c
expect deps-M       "-M a.c $I"                       cc -M a.c
expect deps-MM      "-MM -MT a.o a.c $I"              cc -MM -MT a.o a.c
expect deps-MD      "$GP -MD -MF a.d -c a.c $I"       cc -MD -MF a.d -c a.c
expect version      "--version"                       cc --version
expect dumpversion  "-dumpversion"                    cc -dumpversion
expect print-file   "-print-file-name=plugin"         cc -print-file-name=plugin
expect print-dirs   "-print-search-dirs"              cc -print-search-dirs
expect print-prog   "--print-prog-name=ld"            cc --print-prog-name=ld
expect verbose      "-v"                              cc -v
expect verbose-cc   "$GP -v -c a.c $I"                cc -v -c a.c
expect no-inputs    "-Wall -O2"                       cc -Wall -O2
expect no-args      ""                                cc
expect stdin-c      "$GP -x c - -c $I"                cc -x c - -c
expect lang-c       "$GP -xc a.txt -c $I"             cc -xc a.txt -c
expect lang-none    "$GP -x c a.txt -x none b.o $I $LINK" cc -x c a.txt -x none b.o
expect asm-cpp      "-c a.S $I"                       cc -c a.S
expect asm          "-c a.s"                          cc -c a.s
expect asm-lang     "-x assembler a.c -c"             cc -x assembler a.c -c
expect opt-value    "$GP -c -I src -include cfg.h -o a.o -MF d a.c $I" cc -c -I src -include cfg.h -o a.o -MF d a.c
expect cxx-source   "$GP -c a.cc $I"                  cc -c a.cc

printf -- "-c 'a b.c'\n-o a.o\n" > compile.rsp
printf -- "-E a.c\n" > preprocess.rsp
printf -- "@compile.rsp\n" > nested.rsp
expect rsp-compile  "$GP @compile.rsp $I"             cc @compile.rsp
expect rsp-E        "@preprocess.rsp $I"              cc @preprocess.rsp
expect rsp-nested   "$GP @nested.rsp $I"              cc @nested.rsp
expect rsp-missing  "@missing.rsp $LINK"              cc @missing.rsp

# Arguments with blanks and quotes reach the compiler as they were.
rm -f "$FAKE_LOG"
cc -c '-DMSG="a b"' 'my file.c' -o 'my file.o' > out 2>&1
printf '%s\n' "$GP" -c '-DMSG="a b"' 'my file.c' -o 'my file.o' "$I" > want
cmp -s want "$FAKE_LOG" || { echo "FAIL blanks: $(cat "$FAKE_LOG")"; fails=$((fails + 1)); }

# Plugin options: GCC's spelling, and Clang's that link steps accept too.
echo 'group g' > rules.txt
R="rules=$work/rules.txt"
TF_RULES=rules.txt TF_PLUGIN_ARGS='verbose=1  off' expect gcc-options \
    "$GP -c a.c $I -fplugin-arg-tf-$R -fplugin-arg-tf-verbose=1 -fplugin-arg-tf-off" cc -c a.c
TF_RULES=rules.txt TF_PLUGIN_ARGS='verbose=1' expect clang-options \
    "$CP -c a.c $I -Xclang -plugin-arg-tf -Xclang $R -Xclang -plugin-arg-tf -Xclang verbose=1" clang_cc -c a.c
TF_RULES=rules.txt expect clang-link "a.o -o app $LINK" clang_cc a.o -o app
TF_RULES=rules.txt expect options-not-on-E "-E a.c $I" cc -E a.c
expect launcher-words "$GP -c a.c $I" env TF_CC='./launcher ./gcc-fake' "$P/bin/tf-cc" -c a.c
expect cxx-default-var "$GP -c a.cc $I" env TF_CXX=./gcc-fake TF_CC=./clang-fake "$P/bin/tf-c++" -c a.cc
# --version: the compiler's output unchanged first (build systems parse it),
# then TF's version; for the real compiler too.
cc --version > out 2>&1
printf '%s\n' "gcc (Debian $GCC_VERSION-14) $GCC_VERSION" "Copyright (C) 2022 Free Software Foundation, Inc." \
    "This is free software; see the source for copying conditions.  There is NO" \
    "tf-cc (TF) $TF_VERSION: the TF plugin for GCC $GCC_VERSION, for Clang $CLANG_VERSION" > want
cmp -s want out || { printf 'FAIL version-text: got\n%s\n' "$(cat out)"; fails=$((fails + 1)); }
TF_CXX=./clang-fake "$P/bin/tf-c++" --version | tail -n 1 | grep -qx "tf-c++ (TF) $TF_VERSION: .*" ||
    { echo "FAIL version-c++"; fails=$((fails + 1)); }
TF_CC=gcc "$P/bin/tf-cc" --version > out
gcc --version > want
[ "$(head -n 1 out)" = "$(head -n 1 want)" ] && [ "$(wc -l < out)" -eq $(($(wc -l < want) + 1)) ] ||
    { echo "FAIL version-real: $(cat out)"; fails=$((fails + 1)); }
expect help-passes-on "--help" cc --help
grep -q 'TF_PLUGIN_ARGS' out || { echo "FAIL help: no usage text"; fails=$((fails + 1)); }

# Bad input: a clear error naming it, and no compiler run.
TF_PLUGIN_ARGS='verbose=1 Bad=2' refuse bad-plugin-arg "TF_PLUGIN_ARGS: item 2 'Bad=2'" cc -c a.c
TF_RULES=nonexistent.txt refuse missing-rules "TF_RULES: cannot open 'nonexistent.txt'" cc -c a.c
refuse gcc-version "built for GCC $GCC_VERSION, but TF_CC is GCC 99.1.0" env TF_CC=./gcc-other "$P/bin/tf-cc" -c a.c
refuse unknown-compiler "tf-cc: './mystery-cc' (TF_CC) is neither GCC nor Clang: its --version says 'MysteryCC 1.0'" \
    env TF_CC=./mystery-cc "$P/bin/tf-cc" -c a.c
refuse no-compiler "cannot run './nothing-here'" env TF_CC=./nothing-here "$P/bin/tf-cc" -c a.c
refuse loop "runs tf-cc again" env TF_CC="$P/bin/tf-cc" "$P/bin/tf-cc" -c a.c

[ "$fails" -eq 0 ] && echo "wrapper: all cases pass"
exit "$((fails > 0))"
