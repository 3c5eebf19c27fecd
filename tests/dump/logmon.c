/*
 * logmon.c: a monitor that logs every event as a JSON line (time, thread,
 * function, typed values) for mkctf.py, so that a test makes a CTF trace of
 * the very run dprint printed. Not instrumented itself.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <tf/monitors.h>
#include <tf/registry.h>

#include "logmon.h"

static FILE *log_out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void str(const char *s)
{
    putc('"', log_out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p == '"' || *p == '\\' || *p < 0x20 || *p >= 0x7f)
            fprintf(log_out, "\\u%04x", *p);
        else
            putc(*p, log_out);
    putc('"', log_out);
}

/* "kind", value: what mkctf.py reads */
static void value(const tf_value *v)
{
    switch (v->kind) {
    case TF_K_INT: fprintf(log_out, "\"int\", %lld", (long long)v->v.i); break;
    case TF_K_UINT: fprintf(log_out, "\"uint\", %llu", (unsigned long long)v->v.u); break;
    case TF_K_BOOL: fprintf(log_out, "\"bool\", %d", (int)v->v.u); break;
    case TF_K_FLOAT: fprintf(log_out, "\"float\", %.17g", v->v.d); break;
    case TF_K_PTR: fprintf(log_out, "\"ptr\", %llu", (unsigned long long)(uintptr_t)v->v.p); break;
    case TF_K_STR: fputs("\"str\", ", log_out); str(v->v.s ? v->v.s : "(null)"); break;
    case TF_K_ENUM: {
        char label[64];
        tf_value_format(label, sizeof label, v);
        fprintf(log_out, "\"enum:%s\", %lld", label, (long long)v->v.i);
        break;
    }
    default: fputs("\"struct\", 0", log_out); break;
    }
}

static void head(tf_monitor *m, const char *ev, int id)
{
    struct timespec ts;
    char name[17] = "";
    clock_gettime(CLOCK_REALTIME, &ts);
    prctl(PR_GET_NAME, name);
    fprintf(log_out, "{\"t\": %lld, \"tid\": %d, \"pid\": %d, \"thread\": ",
            (long long)ts.tv_sec * 1000000000 + ts.tv_nsec, gettid(), getpid());
    str(name);
    fprintf(log_out, ", \"ev\": \"%s\", \"func\": \"%s.%s\"", ev, m->tu->name, tf_method_name(m->tu, id));
}

static void args(const tf_args *a)
{
    fputs(", \"args\": [", log_out);
    for (uint32_t i = 0; a && i < a->count; i++) {
        fprintf(log_out, "%s[\"%s\", ", i ? ", " : "", a->values[i].name);
        value(&a->values[i]);
        fputc(']', log_out);
    }
    fputc(']', log_out);
}

static void l_enter(tf_monitor *self, int id, const tf_args *a)
{
    pthread_mutex_lock(&lock);
    head(self, "enter", id);
    args(a);
    fputs("}\n", log_out);
    pthread_mutex_unlock(&lock);
}

static void l_info(tf_monitor *self, const tf_args *a, int caller, int id, tf_tp_type tp)
{
    pthread_mutex_lock(&lock);
    head(self, "info", caller);
    fprintf(log_out, ", \"info\": \"%s\"", tf_method_name(self->tu, id));
    args(a);
    fputs("}\n", log_out);
    pthread_mutex_unlock(&lock);
}

static void l_exit(tf_monitor *self, int id, const tf_value *result)
{
    pthread_mutex_lock(&lock);
    head(self, "exit", id);
    if (result) {
        fputs(", \"result\": [", log_out);
        value(result);
        fputc(']', log_out);
    }
    fputs("}\n", log_out);
    pthread_mutex_unlock(&lock);
}

static void l_exception(tf_monitor *self, int id, const tf_exception *e)
{
    static const char *const kinds[] = {"?", "throw", "unwind", "noreturn"};
    char type[256];
    pthread_mutex_lock(&lock);
    head(self, "exception", id);
    fprintf(log_out, ", \"kind\": \"%s\", \"type\": ", kinds[e->kind <= 3 ? e->kind : 0]);
    str(tf_exception_type(e, type, sizeof type));
    fputs("}\n", log_out);
    fflush(log_out); /* a noreturn call may end the process */
    pthread_mutex_unlock(&lock);
}

static void l_destroy(tf_monitor *self)
{
    free(self);
}

static const tf_monitor_ops ops = {.enter = l_enter, .info = l_info, .exit = l_exit,
                                   .exception = l_exception, .destroy = l_destroy};

static tf_monitor *create(tf_factory *f, const tf_tu *tu)
{
    tf_monitor *m = calloc(1, sizeof *m);
    if (m)
        m->ops = &ops;
    return m;
}

static tf_factory factory = {"logmon", create, 0};

tf_factory *logmon(const char *path)
{
    log_out = fopen(path, "w");
    if (!log_out) {
        perror(path);
        exit(2);
    }
    return &factory;
}
