/*
 * nolibtf.h: what both plugins' constructors say when libtf is absent
 * (docs/code-shape.md section 6; docs/design.md .silent.nolibtf). The
 * generated code refers to libtf weakly, so an object built with a plugin
 * also links without -ltf and runs untraced; a user who then sets
 * TF_MONITORS saw nothing at all. The constructor, finding tf_tu_register
 * NULL, checks these variables and, once per program, writes the message
 * to stderr:
 *
 *   if (!__tf_no_libtf_said && (getenv("TF_MONITORS") || ... ))
 *       { __tf_no_libtf_said = 1; write(2, MESSAGE, sizeof MESSAGE - 1); }
 *
 * The flag is a weak, default-visibility int that every instrumented
 * object defines: one per program (and at most one more per library
 * loaded by dlopen, whose copy the program's does not interpose). Only
 * variables that would trace or list something count: TF_ alone is not
 * TF's (TensorFlow's TF_CPP_MIN_LOG_LEVEL).
 */
#ifndef TF_CORE_NOLIBTF_H
#define TF_CORE_NOLIBTF_H

namespace tf {
namespace core {

static const char *const nolibtf_flag = "__tf_no_libtf_said";
static const char *const nolibtf_vars[] = {"TF_MONITORS", "TF_TRIGGERS", "TF_SELECT", "TF_CONTROL",
                                           "TF_HELP"};
static const char nolibtf_message[] =
    "tf: TF_MONITORS, TF_TRIGGERS, TF_SELECT, TF_CONTROL or TF_HELP is set, but this program "
    "was linked without libtf (-ltf): nothing is traced\n";

} // namespace core
} // namespace tf

#endif
