/*
 * tf-plugin.h: what the parts of tf.so share. See README.md for the whole
 * picture; docs/code-shape.md for the code it emits.
 */
#ifndef TF_GCC_PLUGIN_H
#define TF_GCC_PLUGIN_H

#include "compat.h"

/* The compiler-neutral half, shared with the Clang plugin (plugin-core/). */
#include "abi.h"
#include "call_sites.h"
#include "capture.h"
#include "manifest.h"
#include "names.h"
#include "options.h"
#include "size.h"
#include "version.h"

namespace tf {

extern core::options opts;

/* ---- attrs.cc: the attributes behind tf.h and the groups they declare ---- */
struct group_decl {
    std::string name;
    std::vector<std::string> subs; /* in the order written */
    location_t loc;
    std::vector<location_t> sub_locs; /* where each of subs was first written */
    std::vector<bool> sub_ruled;      /* ... in the rules file */
};
/* Every TF_GROUP (and rules-file `group`) seen so far, by name. */
extern std::map<std::string, group_decl> groups;
/* Adds a group or its new subgroups; reports bad names and cycles at loc.
 * sub_locs: where each subgroup is written, if not at loc (rules file). */
void group_declare(const std::string &name, const std::vector<std::string> &subs,
                   location_t loc, const std::vector<location_t> &sub_locs = {});
/* Once the TU is complete: each subgroup no TF_GROUP (or rules-file group
 * line) of the TU declares is an error where it was written, with the
 * nearest declared names (a typo must not compile; docs/design.md
 * .silent.subgroup). Runs once. */
void check_subgroups(void);
/* "; did you mean 'x'?" among the declared groups, in GCC's quotes, or "". */
std::string group_hint(const std::string &want);
void register_attributes(void *gcc_data, void *user_data);
/* PLUGIN_START_PARSE_FUNCTION, PLUGIN_FINISH_PARSE_FUNCTION,
 * PLUGIN_FINISH_DECL: no -Wunused-parameter for an info function's
 * parameters (attrs.cc). */
void info_params_used(void *gcc_data, void *user_data);
void info_params_done(void *gcc_data, void *user_data);
void info_declared(void *gcc_data, void *user_data);
/* False when another copy of this plugin registered the attributes first. */
extern bool active;
/* Diagnostics point at the user's source, not into tf.h's macros. */
location_t user_loc(location_t loc);
/* When TF_MONITOR(group) was first written on a function of fn's name: a
 * redeclaration's merged attributes keep no order, its error names the
 * groups in the order written, as Clang does. */
unsigned monitor_written(tree fn, const char *group);

/* ---- rules.cc: the rules file of docs/design.md .rules -------------------- */
/* Parses the rules file once, saying nothing (NULL: none, or unreadable). */
const core::rules *rules_early(void);
/* Reports what rules_early found, declares its groups, checks the groups of
 * monitor and call lines: once the TU is parsed. */
void rules_load(void);
/* The group of the first matching monitor line (*line: which), or NULL
 * (also if excluded). */
const char *rules_match(const char *file, const char *fn, unsigned *line);
/* A place in the rules file (once the TU is parsed). */
location_t rules_loc(unsigned line, unsigned column);
/* The monitor line took a function of the TU (manifest: "rules"). */
void rules_choose(unsigned line);
void rules_lines(std::vector<unsigned> &monitors, std::vector<unsigned> &chosen);
/* The min-size in force: the plugin option's, else the rules file's. */
unsigned rules_min_size(void);

/* ---- bodysize.cc: function sizes for min-size (plugin-core/size.h) ------- */
/* PLUGIN_PRE_GENERICIZE: measures each body as written (every one with a
 * rules file, for min-size; else the monitored ones, for their shape). */
void measure_body(void *gcc_data, void *user_data);
/* False when fn's body was never measured. */
bool body_size_of(tree fn, core::body_size &out);

/* ---- calls.cc: call sites (plugin-core call_sites.h) ------------------------------ */
/* A wrapper the calls of one callee were rewritten to call. */
struct call_wrapper {
    tree decl, callee;
    std::string name;         /* the callee's tracing name */
    std::vector<size_t> sites; /* into call_model::sites */
};
struct call_model {
    std::vector<core::call_site> sites; /* every call asked for, traced or not */
    std::vector<location_t> locs;       /* per site */
    std::vector<call_wrapper> wrappers;
    std::map<std::string, size_t> by_key; /* callee and parameter types -> wrapper */
    std::map<unsigned, size_t> by_uid;    /* DECL_UID of a wrapper -> wrapper */
};
extern call_model calls;
/* PLUGIN_PRE_GENERICIZE: finds the calls asked for, rewrites them to call wrappers. */
void find_calls(void *gcc_data, void *user_data);
const call_wrapper *call_wrapper_of(tree fndecl);

/* ---- capture.cc: field capture (plugin-core capture.h) --------------------- */
/* Resolves the captures of monitored function fn, named name, defined (a
 * call wrapper: first called) at file:line: its TF_CAPTURE (a wrapper: its
 * callee's), else the first capture line matching; reports errors; NULL
 * when there are none. */
struct fn_captures;
const fn_captures *capture_resolve(tree fn, const std::string &name, const std::string &file, unsigned line);
/* The tf_capture root for value number i (the result: i == -1), or NULL. */
tree capture_root_for(const fn_captures *c, int i);

/* ---- model.cc: the TU's name table, decided before any function changes -- */
struct fn_entry {
    int id;          /* index of its tracing name */
    bool monitor;    /* else an info function */
    int tp;          /* info: 0 NONE, 1 ENTER, 2 EXIT */
    std::string group;
    const fn_captures *captures; /* what its values capture, or NULL */
};
struct model {
    bool built = false;
    bool has_info = false;
    core::name_table table;           /* names sorted by strcmp, groups used */
    std::vector<location_t> locs;     /* per name: its (first) function */
    std::map<unsigned, fn_entry> fns; /* by DECL_UID */
    std::vector<core::manifest_small> too_small; /* rules matched, min-size refused */
    std::vector<core::manifest_capture> captures;
};
extern model tu;
void model_build(void);
const fn_entry *model_find(tree fndecl);
void manifest_write(void);
std::string tu_base_name(void);
std::string tracing_default_name(tree fndecl);

/* ---- abi.cc: the types and static data of docs/code-shape.md ------------- */
/* The records of <tf/abi.def> as GCC trees ("tf_value", "tf_tu", ...). */
tree abi_record(const char *name);
tree abi_value_type(void);
tree abi_args_type(void);
tree abi_exception_type(void);
tree abi_field(tree record, const char *name);
tree abi_holder(const std::string &group);
tree abi_slot(int id); /* __tf_slots[id]: the monitor a monitored function loads */
tree abi_enum_descriptor(tree enum_type);
tree abi_string(const std::string &s);
/* A constant of a record or array type, and static read-only data: the
 * address of a named static array, or of a static object. */
tree abi_ctor(tree type, const std::vector<tree> &values);
tree abi_static_array(const std::string &name, tree elem, const std::vector<tree> &items);
tree abi_static(const std::string &name, tree type, tree init);
std::string abi_type_name(tree type);
void abi_emit_data(void);
void gc_keep(tree t);
extern const struct ggc_root_tab gc_roots[];

/* ---- clone.cc: f.tf_traced, the copy of a monitored function's body ------ */
/* The clone (not yet instrumented) and its trailing `tf_mm` parameter, or
 * NULL if f keeps the in-place shape. Called before f's body changes. */
tree clone_traced(tree fndecl, tree *mm);
/* f keeps its hooks in place by its size (plugin-core/size.h). */
bool in_place_p(tree fndecl);
/* The f of f.tf_traced, else NULL. */
tree traced_origin(tree fndecl);
/* tf_recursion: -Winfinite-recursion for split functions. */
opt_pass *make_recursion_pass(gcc::context *ctxt);

/* ---- instrument.cc: the two GIMPLE passes ---------------------------------- */
opt_pass *make_instrument_pass(gcc::context *ctxt);
opt_pass *make_ehfix_pass(gcc::context *ctxt);
tree eh_placeholder_decl(void);
/* PLUGIN_PRE_GENERICIZE: an info function's body as written must be empty. */
void check_info_body(void *gcc_data, void *user_data);

#define TF_ENHANCED "tf enhanced"
bool enhanced_p(tree fndecl);

} // namespace tf

#endif
