/*
 * respfile.h: reading a response file (@file) the way GCC's libiberty and
 * Clang's GNU mode do: arguments separated by white space, '...' and "..."
 * quote, a backslash takes the next character literally.
 */
#ifndef TF_CC_RESPFILE_H
#define TF_CC_RESPFILE_H

typedef struct tf_cc_args {
    char **args;
    int count;
} tf_cc_args;

/* 0 and the file's arguments, or -1 when it cannot be read (the drivers then
 * take "@file" as a file name, and so does tf-cc). */
int tf_cc_read_respfile(const char *path, tf_cc_args *out);
void tf_cc_args_free(tf_cc_args *args);

#endif
