/*
 * anchor.c: libtf-anchor.o, linked into every program that says -ltf.
 *
 * Generated code refers to tf_tu_register and tf_tu_unregister weakly, so an
 * object built with the plugin also links without libtf and runs untraced
 * (docs/code-shape.md section 6). But a weak reference does not keep a
 * shared library under --as-needed (GCC's default on Debian and Ubuntu), and
 * -ltf would be dropped silently. libtf.so, the file -ltf finds, is a linker
 * script that puts this object before libtf.so.0: its strong reference keeps
 * libtf needed.
 */
#include <tf/registry.h>

__attribute__((used)) static void (*const tf_anchor)(tf_tu *) = tf_tu_register;
