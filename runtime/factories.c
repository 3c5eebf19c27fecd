/*
 * factories.c: the factories TF_MONITORS can name. Built-in ones register
 * with TF_ENV_FACTORY in their own file; a library or program with
 * tf_env_add_factory. A name nobody registered is looked for once as
 * "libtf-NAME.so" next to libtf itself (its constructor registers NAME), so
 * a factory with heavy dependencies (LTTng) stays out of libtf.
 *
 * No lock is held while a library loads or a maker runs (docs/design.md
 * .lock.foreign): either may fork or register factories. A factory asked
 * for by two threads at once is made once; the second waits for it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "nearest.h"

enum { UNMADE, MAKING, MADE };

struct entry {
    char *name, *help;
    tf_factory_maker make;
    tf_factory *made;   /* make's result, once MADE */
    int state;
    pid_t maker;        /* MAKING: the thread running make */
    struct entry *next; /* sorted by name */
};

/* Names looked for as libtf-NAME.so, each once. */
struct tried {
    struct tried *next;
    char name[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t made_cond = PTHREAD_COND_INITIALIZER;
static struct entry *entries;
static struct tried *tried;
static void (*on_add)(void);

/* A child has only the forking thread: a factory another thread was making
 * is made again there when asked. */
static void forget_others_making(void)
{
    pid_t self = gettid();
    for (struct entry *e = entries; e; e = e->next)
        if (e->state == MAKING && e->maker != self)
            e->state = UNMADE;
    pthread_cond_init(&made_cond, NULL);
}

void tf__factories_fork(int phase)
{
    if (phase == TF_FORK_PREPARE) {
        pthread_mutex_lock(&lock);
        return;
    }
    if (phase == TF_FORK_CHILD)
        forget_others_making();
    pthread_mutex_unlock(&lock);
}

int tf__factory_name_valid(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 63 || !(isalpha((unsigned char)*name) || *name == '_'))
        return 0;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

static struct entry **find(const char *name)
{
    struct entry **p = &entries;
    while (*p && strcmp((*p)->name, name) < 0)
        p = &(*p)->next;
    return p;
}

TF_API int tf_env_add_factory(const char *name, tf_factory_maker make, const char *help)
{
    if (!tf__factory_name_valid(name) || !make)
        return TF_EINVAL;
    struct entry *e = calloc(1, sizeof *e);
    if (!e || !(e->name = strdup(name)) || !(e->help = strdup(help ? help : ""))) {
        if (e)
            free(e->name);
        free(e);
        return TF_ENOMEM;
    }
    e->make = make;
    pthread_mutex_lock(&lock);
    struct entry **p = find(name);
    int dup = *p && strcmp((*p)->name, name) == 0;
    if (!dup) {
        e->next = *p;
        *p = e;
    }
    void (*hook)(void) = on_add;
    pthread_mutex_unlock(&lock);
    if (dup) {
        free(e->name), free(e->help), free(e);
        return TF_EPERM;
    }
    if (hook)
        hook();
    return TF_OK;
}

void tf__factories_on_add(void (*fn)(void))
{
    pthread_mutex_lock(&lock);
    on_add = fn;
    pthread_mutex_unlock(&lock);
}

/* "a, b, c": every registered name, sorted, whole (malloc'd; NULL if out of
 * memory). */
char *tf__factories_known(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return NULL;
    pthread_mutex_lock(&lock);
    for (struct entry *e = entries; e; e = e->next)
        fprintf(out, "%s%s", e == entries ? "" : ", ", e->name);
    pthread_mutex_unlock(&lock);
    return fclose(out) == 0 ? text : (free(text), NULL);
}

void tf__hint_factory(const char *want, char *hint, size_t len)
{
    tf_nearest near;
    tf_nearest_begin(&near, want);
    pthread_mutex_lock(&lock);
    for (struct entry *e = entries; e; e = e->next)
        tf_nearest_offer(&near, e->name);
    pthread_mutex_unlock(&lock);
    tf_nearest_say(&near, hint, len);
    tf_nearest_end(&near);
}

void tf__factories_help(FILE *out)
{
    fprintf(out, "tf: factories for TF_MONITORS (others load as libtf-NAME.so beside libtf):\n");
    pthread_mutex_lock(&lock);
    for (struct entry *e = entries; e; e = e->next)
        fprintf(out, "  %-18s %s\n", e->name, e->help);
    pthread_mutex_unlock(&lock);
}

static struct entry *registered(const char *name)
{
    pthread_mutex_lock(&lock);
    struct entry *e = *find(name);
    if (e && strcmp(e->name, name) != 0)
        e = NULL;
    pthread_mutex_unlock(&lock);
    return e; /* entries are never removed */
}

/* First time name is looked for as a library? */
static int first_try(const char *name)
{
    pthread_mutex_lock(&lock);
    struct tried *t = tried;
    while (t && strcmp(t->name, name) != 0)
        t = t->next;
    if (!t && (t = malloc(sizeof *t + strlen(name) + 1))) {
        strcpy(t->name, name);
        t->next = tried;
        tried = t;
        t = NULL; /* new */
    }
    pthread_mutex_unlock(&lock);
    return !t;
}

/* Tries "libtf-NAME.so" beside libtf, once per name; writes to why what went
 * wrong if the file is there but could not be loaded. Returns nonzero if it
 * loaded. No lock held: the library's constructors may fork, register
 * factories (on_add) or load more. */
static int load(const char *name, char *why, size_t len)
{
    if (!first_try(name))
        return 0;
    Dl_info self;
    if (!dladdr((void *)tf_env_add_factory, &self) || !self.dli_fname)
        return 0;
    const char *slash = strrchr(self.dli_fname, '/');
    int dir = slash ? (int)(slash - self.dli_fname + 1) : 0;
    char path[4096];
    snprintf(path, sizeof path, "%.*slibtf-%s.so", dir, self.dli_fname, name);
    if (access(path, F_OK) != 0)
        return 0;
    if (dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
        snprintf(why, len, "%s registered no factory '%s'", path, name);
        return 1;
    }
    const char *err = dlerror();
    snprintf(why, len, "%s", err ? err : path);
    return 0;
}

/* e's factory, made by this thread or waited for while another makes it;
 * NULL if its maker gave none, or asked for it while making it. */
static tf_factory *made(struct entry *e, char *why, size_t len)
{
    pid_t self = gettid();
    pthread_mutex_lock(&lock);
    while (e->state == MAKING && e->maker != self)
        pthread_cond_wait(&made_cond, &lock);
    int mine = e->state == UNMADE;
    tf_factory *f = e->state == MADE ? e->made : NULL;
    if (mine) {
        e->state = MAKING;
        e->maker = self;
    } else if (e->state == MAKING) {
        snprintf(why, len, "its maker asked for factory '%s' while making it", e->name);
    }
    pthread_mutex_unlock(&lock);
    if (!mine)
        return f;
    errno = 0;
    f = e->make(e->name); /* may register factories, load, fork */
    if (!f && errno == ENOMEM)
        snprintf(why, len, "out of memory");
    pthread_mutex_lock(&lock);
    e->made = f;
    e->state = MADE;
    pthread_cond_broadcast(&made_cond);
    pthread_mutex_unlock(&lock);
    return f;
}

tf_factory *tf__factory_named(const char *name, int *unknown, char *why, size_t len)
{
    why[0] = 0;
    struct entry *e = registered(name);
    if (!e && tf__factory_name_valid(name) && load(name, why, len) && (e = registered(name)))
        why[0] = 0;
    *unknown = !e;
    return e ? made(e, why, len) : NULL;
}
