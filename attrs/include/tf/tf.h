/*
 * tf.h: the source annotations of TF (docs/design.md .attr, a contract).
 *
 *   TF_GROUP(io_read);                 a monitor group (Java: @MethodMonitorGroup)
 *   TF_GROUP(io, io_read, io_write);   group io with subgroups io_read and io_write
 *   TF_MONITOR(io_read) int read_int(struct stream *s);     a monitored function
 *   TF_INFO(TF_TP_NONE) static void odd_value(const char *m, long v) {}
 *   TF_TRACING_NAME("flush") overrides the name used in the TU's name table
 *
 * With a TF compiler plugin loaded (gcc -fplugin=tf.so, clang -fplugin=tf-clang.so)
 * the macros become attributes that the plugin checks and turns into hooks; the
 * plugin announces itself by predefining __TF_PLUGIN__. Without a plugin every
 * macro expands to nothing harmful and the program builds and runs untraced.
 *
 * Every argument is stringified, so the plugins (not the compiler) diagnose a
 * misspelt group name, with the file:line:column of the use.
 */
#ifndef TF_TF_H
#define TF_TF_H

/* Timing-point type of an info function (Java: TimingPointType). */
typedef enum tf_tp_type {
    TF_TP_NONE = 0,  /* no timing point                                  */
    TF_TP_ENTER = 1, /* enters the timing point named by its tracing name */
    TF_TP_EXIT = 2   /* exits it                                          */
} tf_tp_type;

#if defined(__TF_PLUGIN__)

/* A trailing empty argument lets TF_GROUP(name) have no subgroups in plain C11. */
#define TF_GROUP(...) TF_GROUP_(__VA_ARGS__, )
#define TF_GROUP_(name, ...)                                                      \
    extern const char tf_group__##name                                          \
        __attribute__((tf_group(#name, #__VA_ARGS__)))
#define TF_MONITOR(group) __attribute__((tf_monitor(#group)))
#define TF_INFO(tp) __attribute__((tf_info(#tp)))
#define TF_TRACING_NAME(name) __attribute__((tf_tracing_name(name)))

#else /* no plugin: harmless, untraced */

#if defined(__cplusplus)
#define TF_GROUP(...) static_assert(1, "TF_GROUP")
#else
#define TF_GROUP(...) _Static_assert(1, "TF_GROUP")
#endif
#define TF_MONITOR(group)
#define TF_INFO(tp)
#define TF_TRACING_NAME(name)

#endif
#endif
