/* weak.c: a program built with the plugin that links and runs with libtf
 * (traced) and without it (untraced): the generated code refers to libtf
 * weakly (docs/code-shape.md section 6). It prints the version in its TU's
 * descriptor when libtf is there. */
#include <stdio.h>
#include <tf/registry.h>
#include <tf/tf.h>

#pragma weak tf_tu_find /* like the generated code: links without libtf */

TF_GROUP(calc);
int square(int x); /* weak_lib.c, in the program or in a shared library */

TF_MONITOR(calc) int twice(int x) { return 2 * x; }

int main(void)
{
    if (tf_tu_find) {
        const tf_tu *tu = tf_tu_find("weak");
        fprintf(stderr, "weak.c built by TF %s\n", tu && tu->version ? tu->version : "?");
    }
    printf("%d\n", twice(square(7)));
    return 0;
}
