/*
 * permission.c: who may attach monitors (docs/design.md .reg.perm; the paper:
 * register "should have its access protected by a Permission").
 *
 * A module is an executable or shared object, identified by its load bias and
 * path. Trusted: every module loaded when libtf initialised (the program and
 * what it links), and those a trusted module names with tf_trust_module. A
 * dlopen'ed module is untrusted until then. tf_seal freezes the trust set
 * and/or registrations. The caller is named by an address inside its module:
 * &__dso_handle from the header's macros, else the return address.
 *
 * What it stops: a plugin or library loaded at run time attaching monitors to
 * read arguments of code it does not own, through the API. What it cannot stop:
 * code in the same address space that writes memory directly (holders,
 * this table); that needs process isolation, not an API check.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct module {
    uintptr_t bias;
    char path[256];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct module *trusted;
static int ntrusted;
static int sealed;

#define NDENIALS 16
static tf_denial denials[NDENIALS];
static unsigned long ndenials;

static int add_trusted(const struct module *m)
{
    for (int i = 0; i < ntrusted; i++)
        if (trusted[i].bias == m->bias && strcmp(trusted[i].path, m->path) == 0)
            return TF_OK;
    struct module *v = realloc(trusted, (size_t)(ntrusted + 1) * sizeof *v);
    if (!v)
        return TF_ENOMEM;
    v[ntrusted++] = *m;
    trusted = v;
    return TF_OK;
}

static void set_module(struct module *m, const struct dl_phdr_info *info)
{
    m->bias = info->dlpi_addr;
    snprintf(m->path, sizeof m->path, "%s", info->dlpi_name ? info->dlpi_name : "");
}

static int snapshot_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct module m;
    set_module(&m, info);
    add_trusted(&m);
    return 0;
}

static void snapshot(void)
{
    pthread_mutex_lock(&lock);
    dl_iterate_phdr(snapshot_one, NULL);
    pthread_mutex_unlock(&lock);
}

void tf__permission_init(void)
{
    pthread_once(&once, snapshot);
}

void tf__permission_fork(int phase)
{
    if (phase == TF_FORK_PREPARE)
        pthread_mutex_lock(&lock);
    else
        pthread_mutex_unlock(&lock);
}

struct lookup {
    uintptr_t addr;
    struct module *out;
    int found;
};

static int contains(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct lookup *l = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && l->addr >= start && l->addr - start < ph->p_memsz) {
            set_module(l->out, info);
            return l->found = 1;
        }
    }
    return 0;
}

static int module_of(const void *addr, struct module *out)
{
    struct lookup l = {(uintptr_t)addr, out, 0};
    dl_iterate_phdr(contains, &l);
    return l.found;
}

static int is_trusted(const struct module *m)
{
    for (int i = 0; i < ntrusted; i++)
        if (trusted[i].bias == m->bias && strcmp(trusted[i].path, m->path) == 0)
            return 1;
    return 0;
}

static int deny(const struct module *m, const char *what)
{
    tf_denial *d = &denials[ndenials++ % NDENIALS];
    snprintf(d->module, sizeof d->module, "%s", m->path[0] ? m->path : "(main program)");
    snprintf(d->what, sizeof d->what, "%s", what);
    d->reason = TF_EPERM;
    const char *asked = d->what, *module = d->module;
    TF_ESC_BUF(asked);
    TF_ESC_BUF(module);
    fprintf(stderr, "tf: permission denied: %s from %s\n", TF_ESC(asked), TF_ESC(module));
    return TF_EPERM;
}

/* Lock held. */
static int check(const void *caller, const char *what, struct module *m)
{
    if (!module_of(caller, m)) {
        snprintf(m->path, sizeof m->path, "?");
        return deny(m, what);
    }
    if (!is_trusted(m))
        return deny(m, what);
    return TF_OK;
}

int tf__permitted(const void *caller, const char *what)
{
    tf__permission_init();
    struct module m;
    pthread_mutex_lock(&lock);
    int rc = check(caller, what, &m);
    if (rc == TF_OK && (sealed & TF_SEAL_REGISTRATIONS))
        rc = deny(&m, what);
    pthread_mutex_unlock(&lock);
    return rc;
}

TF_API int tf_trust_module_from(const void *addr_in_module, const void *caller)
{
    tf__permission_init();
    struct module self, target;
    pthread_mutex_lock(&lock);
    int rc = check(caller, "trust", &self);
    if (rc == TF_OK && (sealed & TF_SEAL_TRUST))
        rc = deny(&self, "trust (sealed)");
    if (rc == TF_OK)
        rc = module_of(addr_in_module, &target) ? add_trusted(&target) : TF_EINVAL;
    pthread_mutex_unlock(&lock);
    return rc;
}

TF_API int tf_trust_module(const void *addr_in_module)
{
    return tf_trust_module_from(addr_in_module, TF_RETURN_ADDRESS());
}

TF_API int tf_seal_from(int what, const void *caller)
{
    if (what & ~(TF_SEAL_TRUST | TF_SEAL_REGISTRATIONS) || !what)
        return TF_EINVAL;
    tf__permission_init();
    struct module self;
    pthread_mutex_lock(&lock);
    int rc = check(caller, "seal", &self);
    if (rc == TF_OK)
        sealed |= what; /* a seal is never lifted */
    pthread_mutex_unlock(&lock);
    return rc;
}

TF_API int tf_seal(int what)
{
    return tf_seal_from(what, TF_RETURN_ADDRESS());
}

TF_API unsigned long tf_denials(tf_denial *out, int max)
{
    pthread_mutex_lock(&lock);
    unsigned long total = ndenials;
    unsigned long kept = total < NDENIALS ? total : NDENIALS;
    for (unsigned long i = 0; out && max > 0 && i < kept && i < (unsigned long)max; i++)
        out[i] = denials[(total - 1 - i) % NDENIALS]; /* latest first */
    pthread_mutex_unlock(&lock);
    return total;
}

void tf__deny_external(const char *who, const char *what)
{
    struct module m;
    snprintf(m.path, sizeof m.path, "%s", who);
    pthread_mutex_lock(&lock);
    deny(&m, what);
    pthread_mutex_unlock(&lock);
}

int tf__external_permitted(const char *who, const char *what)
{
    tf__permission_init();
    pthread_mutex_lock(&lock);
    int rc = TF_OK;
    if (sealed & TF_SEAL_REGISTRATIONS) {
        struct module m;
        snprintf(m.path, sizeof m.path, "%s", who);
        rc = deny(&m, what);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

int tf__register_external(const char *group, tf_factory *f, const char *who)
{
    char what[64];
    snprintf(what, sizeof what, "register %.50s", group);
    int rc = tf__external_permitted(who, what);
    return rc != TF_OK ? rc : tf__register_trusted(group, f);
}
