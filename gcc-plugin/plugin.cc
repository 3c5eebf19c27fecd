/*
 * tf.so: the GCC plugin of TF (a tracing facility for C and C++).
 *
 * What it does: a function annotated with TF_MONITOR(group) (or matched by a
 * rules file) loads its group's monitor and, only if there is one, calls its
 * traced clone: a copy of its body with an enter hook, an exit hook on every
 * return path, and exception hooks before throws, noreturn calls and on
 * unwinding (clone.cc); otherwise it runs its own, unchanged body. TF_INFO
 * functions get two trailing parameters and a body that reports the call.
 * Each translation unit (TU) that has any of them gets a descriptor registered
 * with libtf by a constructor. docs/code-shape.md is the exact shape.
 *
 * Why a GIMPLE pass in the lowering pipeline: it runs once per function after
 * the whole TU is parsed (so every annotation is known) and before inlining
 * (so inlined copies keep their hooks), on both the C and C++ front ends.
 *
 * How to debug: -fplugin-arg-tf-verbose=2 lists every decision;
 * -fdump-tree-all shows each function after instrumentation in
 * <file>.*t.tf_instrument (-fdump-tree-tf_instrument is rejected: the pass
 * is registered after GCC parses its options); debug_gimple_seq() in gdb
 * prints a sequence.
 */
#include "tf-plugin.h"

/* Only these two are exported (-fvisibility=hidden): a second copy of the
 * plugin must not bind to this one's globals. */
__attribute__((visibility("default"))) int plugin_is_GPL_compatible;

namespace tf {
core::options opts;
}

/* plugin_info.help: every option, from the one table of plugin-core. */
static const char *help_text(void)
{
    static std::string text =
        "TF tracing facility instrumentation (docs: gcc-plugin/README.md)\n" + tf::core::options_help();
    return text.c_str();
}

static struct plugin_info tf_info = {tf::core::tf_version, NULL};

/* tf.h switches from its empty fallback to the attributes when it sees
 * __TF_PLUGIN__. The C-family front ends report each file they enter
 * (PLUGIN_INCLUDE_FILE) from the first, before a line of it is preprocessed,
 * also with -E; PLUGIN_START_UNIT, before parsing, is the fallback. */
static void define_plugin_macro(void *, void *)
{
    static bool done;
    if (!done && &parse_in && parse_in && &cpp_define) {
        done = true;
        cpp_define(parse_in, "__TF_PLUGIN__=1");
    }
}

static bool parse_args(struct plugin_name_args *info)
{
    bool ok = true;
    for (int i = 0; i < info->argc; i++) {
        std::string err = tf::core::option_set(tf::opts, info->argv[i].key, info->argv[i].value);
        if (!err.empty()) {
            error("tf: %s", err.c_str());
            ok = false;
        }
    }
    return ok;
}

static void write_manifest(void *, void *)
{
    /* A TU whose functions were never lowered (declarations only) was not
     * modelled: its subgroups are checked here. */
    if (!in_lto_p && !tf::tu.built) {
        if (!tf::opts.rules.empty())
            tf::rules_load();
        tf::check_subgroups();
    }
    if (!in_lto_p && !tf::opts.manifest.empty() && !seen_error())
        tf::manifest_write();
}

/* Runs pass right after the first instance of the pass named after. */
static void add_pass(const char *plugin, opt_pass *pass, const char *after)
{
    struct register_pass_info info;
    info.pass = pass;
    info.reference_pass_name = after;
    info.ref_pass_instance_number = 1;
    info.pos_op = PASS_POS_INSERT_AFTER;
    register_callback(plugin, PLUGIN_PASS_MANAGER_SETUP, NULL, &info);
}

/* The event marking "a copy of tf.so is active"; never invoked. */
#define TF_ACTIVE_EVENT "tf: GCC plugin active"
static void no_event(void *, void *) {}

__attribute__((visibility("default"))) int plugin_init(struct plugin_name_args *info,
                                                  struct plugin_gcc_version *version)
{
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("tf: this plugin was built for GCC %s", gcc_version.basever);
        return 1;
    }
    if (!parse_args(info))
        return 1;
    if (tf::opts.verbose)
        inform(UNKNOWN_LOCATION, "tf: %s",
               tf::core::version_banner(lbasename(info->full_name), std::string("GCC ") + gcc_version.basever).c_str());
    /* A second copy of tf.so under another file name (tf.so is loaded once
     * per path by GCC itself) must stay out of the way: it would register
     * the same attributes and passes again. The first copy creates a named
     * plugin event inside cc1 (not the environment, which users and child
     * processes share); a later copy finds it. */
    const char *name = info->base_name;
    if (get_named_event_id(TF_ACTIVE_EVENT, NO_INSERT) >= 0) {
        tf::active = false;
        return 0;
    }
    register_callback(name, get_named_event_id(TF_ACTIVE_EVENT, INSERT), no_event, NULL);
    tf_info.help = help_text();
    register_callback(name, PLUGIN_INFO, NULL, &tf_info);
    register_callback(name, PLUGIN_REGISTER_GGC_ROOTS, NULL, (void *)tf::gc_roots);
    register_callback(name, PLUGIN_ATTRIBUTES, tf::register_attributes, NULL);
    register_callback(name, PLUGIN_INCLUDE_FILE, define_plugin_macro, NULL);
    register_callback(name, PLUGIN_START_UNIT, define_plugin_macro, NULL);
    register_callback(name, PLUGIN_FINISH_UNIT, write_manifest, NULL);
    register_callback(name, PLUGIN_PRE_GENERICIZE, tf::check_info_body, NULL);
    register_callback(name, PLUGIN_PRE_GENERICIZE, tf::find_calls, NULL);
    register_callback(name, PLUGIN_START_PARSE_FUNCTION, tf::info_params_used, NULL);
    register_callback(name, PLUGIN_FINISH_PARSE_FUNCTION, tf::info_params_done, NULL);
    register_callback(name, PLUGIN_FINISH_DECL, tf::info_declared, NULL);
    register_callback(name, PLUGIN_PRE_GENERICIZE, tf::measure_body, NULL);

    /* After the first lowering pass: high GIMPLE with GIMPLE_BIND, GIMPLE_TRY
     * and GIMPLE_RETURN still structured, before EH lowering and the CFG. */
    add_pass(name, tf::make_instrument_pass(g), "*warn_unused_result");
    /* After EH lowering, when cleanup regions have numbers. */
    add_pass(name, tf::make_ehfix_pass(g), "eh");
    /* On the traced clones, as soon as they have a CFG (clone.cc). */
    add_pass(name, tf::make_recursion_pass(g), "cfg");
    return 0;
}
