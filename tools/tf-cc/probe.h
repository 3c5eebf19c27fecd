/*
 * probe.h: which compiler TF_CC is, from its --version output, so tf-cc can
 * pick the plugin that loads into it and refuse one built for another
 * version with a message naming both.
 */
#ifndef TF_CC_PROBE_H
#define TF_CC_PROBE_H

enum tf_cc_kind { TF_CC_UNKNOWN, TF_CC_GCC, TF_CC_CLANG };

typedef struct tf_cc_compiler {
    enum tf_cc_kind kind;
    char version[64];  /* "12.2.0", "14.0.6" */
    char said[128];    /* the first line of its --version, control bytes as '?' */
} tf_cc_compiler;

/* Runs cmd --version (cmd: a NULL-terminated argv). 0, or -1 with errno when
 * the command cannot be run. */
int tf_cc_probe(char *const *cmd, tf_cc_compiler *out);

#endif
