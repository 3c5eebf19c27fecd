/*
 * classify.c: the driver's view of a command line (see classify.h). The
 * command stops before linking with -c, -S, -E, -M, -MM or -fsyntax-only,
 * does nothing but print with --version, -print-*, -dump*, --help, and
 * does nothing at all without input files; an input's language is its -x
 * or else its extension.
 */
#include "classify.h"

#include <stdlib.h>
#include <string.h>

#include "respfile.h"

enum input_kind { IN_C_FAMILY, IN_PREPROCESSED_ASM, IN_OTHER };
enum stop { STOP_NONE, STOP_COMPILE, STOP_PREPROCESS, STOP_INFO };

typedef struct scan {
    const char *lang; /* the latest -x, or NULL for "by extension" */
    enum stop stop;
    int inputs, c_family, preprocessable, is_static;
} scan;

/* Options whose value is the next argument, in both drivers. */
static const char *const separate_value[] = {
    "-o", "-x", "-I", "-L", "-l", "-D", "-U", "-include", "-imacros", "-isystem",
    "-idirafter", "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-iquote",
    "-isysroot", "-imultilib", "-iframework", "-MF", "-MT", "-MQ", "-Xlinker",
    "-Xassembler", "-Xpreprocessor", "-Xclang", "-mllvm", "-aux-info", "-T", "-u",
    "-z", "-e", "--param", "-arch", "-target", "--target", "--sysroot", "-B",
    "-dumpdir", "-dumpbase", "-dumpbase-ext", "-specs", "-wrapper", "-G", "-A",
    "--serialize-diagnostics", "-ivfsoverlay", "-working-directory", "-Xarch_host",
    NULL,
};

static const char *const info_only[] = {
    "--version", "-dumpversion", "-dumpfullversion", "-dumpmachine", "-dumpspecs",
    "--help", "--target-help", NULL,
};

static int in_list(const char *arg, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(arg, *list) == 0)
            return 1;
    return 0;
}

static int ends_with_any(const char *name, const char *const *exts)
{
    const char *dot = strrchr(name, '.');
    return dot && in_list(dot, exts);
}

static enum input_kind kind_of_lang(const char *lang)
{
    static const char *const c_family[] = {"c", "c++", "c-header", "c++-header",
                                           "cpp-output", "c++-cpp-output", NULL};
    if (in_list(lang, c_family))
        return IN_C_FAMILY;
    if (strcmp(lang, "assembler-with-cpp") == 0)
        return IN_PREPROCESSED_ASM;
    return IN_OTHER;
}

static enum input_kind kind_of_file(const char *name)
{
    static const char *const c_family[] = {
        ".c", ".i", ".h", ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C",
        ".ii", ".hh", ".H", ".hp", ".hxx", ".hpp", ".HPP", ".h++", ".tcc", NULL};
    static const char *const asm_cpp[] = {".S", ".sx", NULL};
    if (ends_with_any(name, c_family))
        return IN_C_FAMILY;
    if (ends_with_any(name, asm_cpp))
        return IN_PREPROCESSED_ASM;
    return IN_OTHER;
}

static void add_input(scan *s, const char *name)
{
    enum input_kind k = s->lang ? kind_of_lang(s->lang) : kind_of_file(name);
    s->inputs++;
    s->c_family += k == IN_C_FAMILY;
    s->preprocessable += k != IN_OTHER;
}

static void set_stop(scan *s, enum stop stop)
{
    if (stop > s->stop)
        s->stop = stop;
}

static void set_lang(scan *s, const char *lang)
{
    s->lang = strcmp(lang, "none") == 0 ? NULL : lang;
}

/* An option (arg starts with '-'); returns 1 when it consumed next. */
static int option(scan *s, const char *arg, const char *next)
{
    if (strcmp(arg, "-c") == 0 || strcmp(arg, "-S") == 0 || strcmp(arg, "-fsyntax-only") == 0)
        set_stop(s, STOP_COMPILE);
    else if (strcmp(arg, "-E") == 0 || strcmp(arg, "-M") == 0 || strcmp(arg, "-MM") == 0)
        set_stop(s, STOP_PREPROCESS);
    else if (in_list(arg, info_only) || strncmp(arg, "-print-", 7) == 0 ||
             strncmp(arg, "--print-", 8) == 0 || strncmp(arg, "--help=", 7) == 0)
        set_stop(s, STOP_INFO);
    else if (strcmp(arg, "-static") == 0)
        s->is_static = 1;
    else if (strncmp(arg, "-x", 2) == 0 && arg[2])
        set_lang(s, arg + 2);
    else if (strcmp(arg, "-l") == 0 && next)
        s->inputs++; /* a library to link, named in the next argument */
    else if (strncmp(arg, "-l", 2) == 0)
        s->inputs++;
    if (strcmp(arg, "-x") == 0 && next)
        set_lang(s, next);
    return next && in_list(arg, separate_value);
}

static void scan_args(scan *s, int argc, char **argv, int depth)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] == '@' && depth < 16) {
            tf_cc_args inner;
            if (tf_cc_read_respfile(arg + 1, &inner) == 0) {
                scan_args(s, inner.count, inner.args, depth + 1);
                tf_cc_args_free(&inner);
                continue;
            }
        }
        if (arg[0] == '-' && arg[1])
            i += option(s, arg, i + 1 < argc ? argv[i + 1] : NULL);
        else
            add_input(s, arg);
    }
}

tf_cc_steps tf_cc_classify(int argc, char **argv)
{
    scan s = {0};
    scan_args(&s, argc - 1, argv + 1, 0);
    tf_cc_steps steps = {0};
    if (s.stop == STOP_INFO || s.inputs == 0)
        return steps;
    steps.preprocesses = s.preprocessable > 0;
    steps.compiles = s.stop != STOP_PREPROCESS && s.c_family > 0;
    steps.links = s.stop == STOP_NONE;
    steps.is_static = s.is_static;
    return steps;
}
