/*
 * tf-cc, tf-c++: compiler wrappers that build any project with TF
 * (docs/design.md .pkg, a contract; the Score-P `scorep gcc` idea):
 *
 *   CC=tf-cc CXX=tf-c++ ./configure && make
 *
 * They run TF_CC (tf-cc, default cc) or TF_CXX (tf-c++, default c++) with the
 * user's arguments unchanged, adding only what each step needs (classify.h):
 * on compile steps the plugin for that compiler (probe.h) before the user's
 * arguments (GCC wants -fplugin before any -fplugin-arg-tf-*) and its
 * options (TF_RULES, TF_PLUGIN_ARGS) after them; -I<prefix>/include on steps
 * that preprocess, libtf on link steps, after them. Everything is found relative to the
 * wrapper's own place in the installed tree (P/bin/tf-cc: P/lib/tf/tf.so).
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "classify.h"
#include "nearest.h"
#include "probe.h"

#ifdef TF_CC_CXX
#define TOOL "tf-c++"
#define COMPILER_VAR "TF_CXX"
#define DEFAULT_COMPILER "c++"
#else
#define TOOL "tf-cc"
#define COMPILER_VAR "TF_CC"
#define DEFAULT_COMPILER "cc"
#endif
extern char **environ;

#define LOOP_GUARD "TF_CC_WRAPPER" /* set for the compiler: TF_CC=tf-cc loops */

typedef struct argv_buf {
    char **v;
    int n;
} argv_buf;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, TOOL ": ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void push(argv_buf *b, const char *arg)
{
    b->v = realloc(b->v, (size_t)(b->n + 2) * sizeof *b->v);
    if (!b->v)
        die("out of memory");
    b->v[b->n++] = strdup(arg);
    b->v[b->n] = NULL;
}

/* arg at position at, the later ones moved up. */
static void insert(argv_buf *b, int at, const char *arg)
{
    push(b, arg);
    char *moved = b->v[b->n - 1];
    memmove(b->v + at + 1, b->v + at, (size_t)(b->n - 1 - at) * sizeof *b->v);
    b->v[at] = moved;
}

static void pushf(argv_buf *b, const char *fmt, ...)
{
    char arg[PATH_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(arg, sizeof arg, fmt, ap);
    va_end(ap);
    push(b, arg);
}

/* Blank-separated words of a variable, as make and configure split CC. */
static void push_words(argv_buf *b, const char *text)
{
    char *copy = strdup(text), *save = NULL;
    for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
        push(b, w);
    free(copy);
}

static void print_help(void)
{
    printf("usage: " TOOL " [compiler arguments...]   (TF " TF_VERSION ")\n"
           "Runs $" COMPILER_VAR " (default " DEFAULT_COMPILER ") with the arguments unchanged, adding\n"
           "  on steps that compile C/C++: the TF plugin for that compiler (GCC or Clang)\n"
           "  on steps that preprocess:    -I<prefix>/include (unless /usr or /usr/local)\n"
           "  on steps that link:          -L<prefix>/lib -Wl,-rpath,<prefix>/lib -ltf\n"
           "-E and -M/-MM get the include directory only; --version, -v, -print-*,\n"
           "-dump* and commands without input files run as given; --version prints\n"
           "TF's version after the compiler's. Environment:\n"
           "  " COMPILER_VAR "          the compiler, blank-separated words (\"ccache gcc\")\n"
           "  TF_RULES        a rules file: plugin option rules=FILE (made absolute)\n"
           "  TF_PLUGIN_ARGS  blank-separated plugin options: \"verbose=1 manifest=m.json\"\n"
           "Plugin options go to GCC as -fplugin-arg-tf-KEY=VALUE and to Clang as\n"
           "-Xclang -plugin-arg-tf -Xclang KEY=VALUE. The compiler's own help follows.\n\n");
    fflush(stdout);
}

/* The installation prefix: the wrapper lives in <prefix>/<bindir>. */
static void find_prefix(char *prefix)
{
    char self[PATH_MAX], up[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        die("cannot find where " TOOL " is (/proc/self/exe): %s", strerror(errno));
    self[n] = 0;
    snprintf(up, sizeof up, "%s/%s", dirname(self), TF_BIN_TO_PREFIX);
    if (!realpath(up, prefix))
        die("cannot resolve the TF prefix '%s': %s", up, strerror(errno));
}

/* GCC loads a plugin only into its exact version, Clang into its major. */
static void check_plugin_version(const tf_cc_compiler *cc, const char *built_for)
{
    const char *name = cc->kind == TF_CC_GCC ? "GCC" : "Clang";
    if (!built_for[0])
        die("TF was built without its %s plugin; set " COMPILER_VAR " to another compiler", name);
    int same = cc->kind == TF_CC_GCC ? strcmp(cc->version, built_for) == 0
                                     : atoi(cc->version) == atoi(built_for);
    if (!same)
        die("the TF %s plugin was built for %s %s, but " COMPILER_VAR " is %s %s", name, name,
            built_for, name, cc->version);
}

/* Each blank-separated KEY[=VALUE] of TF_PLUGIN_ARGS, checked. */
static void push_plugin_args(argv_buf *opts, const char *text)
{
    argv_buf items = {0};
    push_words(&items, text);
    for (int i = 0; i < items.n; i++) {
        const char *item = items.v[i];
        size_t key = strspn(item, "abcdefghijklmnopqrstuvwxyz_-"); /* min-size */
        if (key == 0 || (item[key] && item[key] != '='))
            die("TF_PLUGIN_ARGS: item %d '%s' is not KEY or KEY=VALUE (KEY: a-z, _ and -)", i + 1, item);
        push(opts, item);
    }
}

/* The plugin options: rules=FILE from TF_RULES, then TF_PLUGIN_ARGS. */
static argv_buf plugin_options(void)
{
    argv_buf opts = {0};
    const char *rules = getenv("TF_RULES");
    if (rules && rules[0]) {
        char abs[PATH_MAX], cwd[PATH_MAX];
        if (!realpath(rules, abs))
            die("TF_RULES: cannot open '%s' (from %s): %s", rules,
                getcwd(cwd, sizeof cwd) ? cwd : "?", strerror(errno));
        pushf(&opts, "rules=%s", abs);
    }
    const char *args = getenv("TF_PLUGIN_ARGS");
    if (args)
        push_plugin_args(&opts, args);
    return opts;
}

static void add_plugin(argv_buf *cmd, int compiler_words, const char *prefix)
{
    tf_cc_compiler cc;
    char *probe[compiler_words + 1];
    memcpy(probe, cmd->v, (size_t)compiler_words * sizeof *probe);
    probe[compiler_words] = NULL;
    if (tf_cc_probe(probe, &cc) != 0)
        die("cannot run '%s' (" COMPILER_VAR "): %s", probe[0], strerror(errno));
    if (cc.kind == TF_CC_UNKNOWN)
        die("'%s' (" COMPILER_VAR ") is neither GCC nor Clang: its --version says '%s'", probe[0],
            cc.said);
    int gcc = cc.kind == TF_CC_GCC;
    check_plugin_version(&cc, gcc ? TF_GCC_VERSION : TF_CLANG_VERSION);
    char plugin[PATH_MAX], arg[PATH_MAX + 16];
    snprintf(plugin, sizeof plugin, "%s/" TF_LIBDIR "/tf/%s", prefix, gcc ? "tf.so" : "tf-clang.so");
    if (access(plugin, R_OK) != 0)
        die("no TF plugin at %s: %s", plugin, strerror(errno));
    /* Before the user's arguments: GCC refuses a -fplugin-arg-tf-* (the
     * README's own tf-cc -fplugin-arg-tf-verbose=1) that comes before the
     * plugin it is for. */
    snprintf(arg, sizeof arg, "-fplugin=%s", plugin);
    insert(cmd, compiler_words, arg);
    argv_buf opts = plugin_options();
    for (int i = 0; i < opts.n; i++) {
        if (gcc) { /* Clang's driver would call -fplugin-arg-* unused on a link step */
            pushf(cmd, "-fplugin-arg-tf-%s", opts.v[i]);
            continue;
        }
        push(cmd, "-Xclang");
        push(cmd, "-plugin-arg-tf");
        push(cmd, "-Xclang");
        push(cmd, opts.v[i]);
    }
}

/* -ltf finds libtf.so, a linker script that keeps libtf under --as-needed;
 * libtf.a is searched only for undefined symbols, and the generated code's
 * weak references are not (docs/code-shape.md section 6). */
static void add_libtf(argv_buf *cmd, const char *prefix, int is_static)
{
    if (strcmp(prefix, "/usr") != 0) {
        pushf(cmd, "-L%s/" TF_LIBDIR, prefix);
        pushf(cmd, "-Wl,-rpath,%s/" TF_LIBDIR, prefix);
    }
    if (is_static)
        push(cmd, "-Wl,--undefined=tf_tu_register");
    push(cmd, "-ltf");
    if (is_static) { /* libtf.a's own dependencies come after it */
        push(cmd, "-lpthread");
        push(cmd, "-ldl");
        push(cmd, "-lm");
    }
}

/* --version: the compiler's own output first and unchanged, as build systems
 * parse it (meson, CMake, libtool: the first line, the first version
 * number), as from `ccache gcc --version`; TF's line after it, so that a
 * compiler check hashing the output (ccache's compiler_check) sees TF too. */
/* --version: a compiler TF cannot add its plugin to is said on stderr (the
 * version output itself stays the compiler's own). */
static void check_compiler(char **cmd, int compiler_words)
{
    tf_cc_compiler cc;
    char *probe[compiler_words + 1];
    memcpy(probe, cmd, (size_t)compiler_words * sizeof *probe);
    probe[compiler_words] = NULL;
    if (tf_cc_probe(probe, &cc) != 0 || cc.kind != TF_CC_UNKNOWN)
        return; /* cannot run: print_version says so */
    fprintf(stderr, TOOL ": '%s' (" COMPILER_VAR ") is neither GCC nor Clang: its --version says "
                    "'%s'; " TOOL " can only add TF to those\n", probe[0], cc.said);
}

static int print_version(char **cmd)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(cmd[0], cmd);
        fprintf(stderr, TOOL ": cannot run '%s' (" COMPILER_VAR "): %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        die("cannot run '%s' (" COMPILER_VAR "): %s", cmd[0], strerror(errno));
    printf(TOOL " (TF) " TF_VERSION ": the TF plugin for GCC %s, for Clang %s\n",
           TF_GCC_VERSION[0] ? TF_GCC_VERSION : "(not built)", TF_CLANG_VERSION[0] ? TF_CLANG_VERSION : "(not built)");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A TF_ variable near one of the wrapper's own (TF_RULE for TF_RULES) is
 * said; one near none of them may be libtf's or another program's. */
static void misspelt_variables(void)
{
    static const char *const ours[] = {COMPILER_VAR, "TF_RULES", "TF_PLUGIN_ARGS", "TF_CC", "TF_CXX",
                                       LOOP_GUARD};
    for (char **e = environ; *e; e++) {
        size_t n = strcspn(*e, "=");
        if (strncmp(*e, "TF_", 3) != 0 || n > 64)
            continue;
        char name[65], hint[256];
        snprintf(name, sizeof name, "%.*s", (int)n, *e);
        int known = 0;
        tf_nearest near;
        tf_nearest_begin(&near, name);
        for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
            known |= strcmp(ours[i], name) == 0;
            tf_nearest_offer(&near, ours[i]);
        }
        if (!known && tf_nearest_say(&near, hint, sizeof hint))
            fprintf(stderr, TOOL ": %s is set, but " TOOL " reads no such variable (ignored); %s\n", name,
                    hint);
        tf_nearest_end(&near);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0)
        print_help();
    if (getenv(LOOP_GUARD))
        die(COMPILER_VAR " runs %s again; set it to the real compiler", getenv(LOOP_GUARD));
    misspelt_variables();
    const char *compiler = getenv(COMPILER_VAR);
    argv_buf cmd = {0};
    push_words(&cmd, compiler && compiler[0] ? compiler : DEFAULT_COMPILER);
    if (cmd.n == 0)
        die(COMPILER_VAR " has no compiler in it");
    int compiler_words = cmd.n;
    for (int i = 1; i < argc; i++)
        push(&cmd, argv[i]);
    setenv(LOOP_GUARD, TOOL, 1);
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        check_compiler(cmd.v, compiler_words);
        return print_version(cmd.v);
    }
    tf_cc_steps steps = tf_cc_classify(argc, argv);
    char prefix[PATH_MAX] = "";
    if (steps.preprocesses || steps.compiles || steps.links)
        find_prefix(prefix);
    if (steps.preprocesses && strcmp(prefix, "/usr") != 0 && strcmp(prefix, "/usr/local") != 0)
        pushf(&cmd, "-I%s/" TF_INCLUDEDIR, prefix);
    if (steps.compiles)
        add_plugin(&cmd, compiler_words, prefix);
    if (steps.links)
        add_libtf(&cmd, prefix, steps.is_static);
    execvp(cmd.v[0], cmd.v);
    fprintf(stderr, TOOL ": cannot run '%s' (" COMPILER_VAR "): %s\n", cmd.v[0], strerror(errno));
    return 127;
}
