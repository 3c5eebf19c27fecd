/* logmon.h: a monitor logging events as JSON lines (logmon.c). */
#ifndef TF_TESTS_LOGMON_H
#define TF_TESTS_LOGMON_H
#include <tf/types.h>
tf_factory *logmon(const char *path);
#endif
