/*
 * tf-plugin.h: what the parts of tf.so share. See README.md for the whole
 * picture; docs/code-shape.md for the code it emits.
 */
#ifndef TF_GCC_PLUGIN_H
#define TF_GCC_PLUGIN_H

#include "compat.h"

/* The compiler-neutral half, shared with the Clang plugin (plugin-core/). */
#include "abi.h"
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
void rules_load(const char *path);
/* The group of the first matching monitor line (*line: which), or NULL
 * (also if excluded). */
const char *rules_match(const char *file, const char *fn, unsigned *line);
/* The monitor line took a function of the TU (manifest: "rules"). */
void rules_choose(unsigned line);
void rules_lines(std::vector<unsigned> &monitors, std::vector<unsigned> &chosen);
/* The min-size in force: the plugin option's, else the rules file's. */
unsigned rules_min_size(void);

/* ---- bodysize.cc: function sizes for min-size (plugin-core/size.h) ------- */
/* PLUGIN_PRE_GENERICIZE, with a rules file: measures each body as written. */
void measure_body(void *gcc_data, void *user_data);
/* False when fn's body was never measured. */
bool body_size_of(tree fn, core::body_size &out);

/* ---- model.cc: the TU's name table, decided before any function changes -- */
struct fn_entry {
    int id;          /* index of its tracing name */
    bool monitor;    /* else an info function */
    int tp;          /* info: 0 NONE, 1 ENTER, 2 EXIT */
    std::string group;
};
struct model {
    bool built = false;
    bool has_info = false;
    core::name_table table;           /* names sorted by strcmp, groups used */
    std::vector<location_t> locs;     /* per name: its (first) function */
    std::map<unsigned, fn_entry> fns; /* by DECL_UID */
    std::vector<core::manifest_small> too_small; /* rules matched, min-size refused */
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
std::string abi_type_name(tree type);
void abi_emit_data(void);
void gc_keep(tree t);
extern const struct ggc_root_tab gc_roots[];

/* ---- clone.cc: f.tf_traced, the copy of a monitored function's body ------ */
/* The clone (not yet instrumented) and its trailing `tf_mm` parameter, or
 * NULL if f keeps the in-place shape. Called before f's body changes. */
tree clone_traced(tree fndecl, tree *mm);
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
