/*
 * factories.c: the factories TF_MONITORS can name. Built-in ones register
 * with TF_ENV_FACTORY in their own file; a library or program with
 * tf_env_add_factory. A name nobody registered is looked for once as
 * "libtf-NAME.so" next to libtf itself (its constructor registers NAME), so
 * a factory with heavy dependencies (LTTng) stays out of libtf.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "nearest.h"

struct entry {
    char *name, *help;
    tf_factory_maker make;
    tf_factory *made;  /* make's result, once asked */
    int asked;
    struct entry *next; /* sorted by name */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *entries;
static void (*on_add)(void);

void tf__factories_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&lock);
    else
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

/* Writes "a, b, c" (every registered name, sorted) to buf. */
void tf__factories_known(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    pthread_mutex_lock(&lock);
    for (struct entry *e = entries; e && at < len; e = e->next)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", e->name);
    pthread_mutex_unlock(&lock);
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

/* Tries "libtf-NAME.so" beside libtf, once per name; writes to why what went
 * wrong if the file is there but could not be loaded. Returns nonzero if it
 * loaded. */
static int load(const char *name, char *why, size_t len)
{
    static char tried[32][64];
    static unsigned ntried;
    for (unsigned i = 0; i < ntried && i < 32; i++)
        if (strcmp(tried[i], name) == 0)
            return 0;
    if (ntried < 32)
        snprintf(tried[ntried++], sizeof tried[0], "%s", name);
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

/* Called with env.c's lock held, so the handshake on asked and the list of
 * tried libraries need no more. */
tf_factory *tf__factory_named(const char *name, int *unknown, char *why, size_t len)
{
    why[0] = 0;
    struct entry *e = registered(name);
    if (!e && tf__factory_name_valid(name) && load(name, why, len) && (e = registered(name)))
        why[0] = 0;
    *unknown = !e;
    if (!e)
        return NULL;
    pthread_mutex_lock(&lock);
    int asked = e->asked;
    e->asked = 1;
    pthread_mutex_unlock(&lock);
    if (!asked) /* outside the lock: make may register factories itself */
        __atomic_store_n(&e->made, e->make(e->name), __ATOMIC_RELEASE);
    return __atomic_load_n(&e->made, __ATOMIC_ACQUIRE);
}
