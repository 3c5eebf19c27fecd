/*
 * classify.h: what a compiler command line does, read the way the GCC and
 * Clang drivers read it, so tf-cc adds the plugin only to steps that compile
 * C or C++, the include directory only to steps that preprocess, and libtf
 * only to steps that link. Response files (@file) are read for this, and
 * passed on unchanged.
 */
#ifndef TF_CC_CLASSIFY_H
#define TF_CC_CLASSIFY_H

typedef struct tf_cc_steps {
    int compiles;     /* a C or C++ input is compiled: the plugin and its options */
    int preprocesses; /* an input is preprocessed: -I for <tf/tf.h>             */
    int links;        /* the command links: -L, rpath, -ltf                      */
    int is_static;    /* -static: libtf.a needs its own libraries after it       */
} tf_cc_steps;

/* Classifies argv[1..argc-1]. */
tf_cc_steps tf_cc_classify(int argc, char **argv);

#endif
