/* A misspelt group is an error at the use, never silently untraced. */
#include <tf/tf.h>
TF_GROUP(io_read);
TF_MONITOR(io_raed) int read_int(int fd) { return fd; }
// expect-error: 4:25: group 'io_raed' of 'read_int' is not declared; add 'TF_GROUP(io_raed)' before this use
