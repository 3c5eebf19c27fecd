/*
 * got.c: pointing loaded objects' calls of a few libc functions at other
 * functions, and back (.wd.interpose). A call from a shared object or a PIE
 * to a function of another object goes through its Global Offset Table: a
 * JUMP_SLOT relocation (a PLT call) or a GLOB_DAT one (-fno-plt, an address
 * taken) names the symbol, and the slot holds the address the dynamic
 * linker resolved. Rewriting the slot reroutes that object's calls; writing
 * the real address back undoes it. libtf defines none of these functions,
 * so without a watchdog the program binds to libc exactly as without TF.
 *
 * Skipped: the dynamic linker, the vDSO, libc itself (its own calls are
 * internal) and libtf.so (its locks are not the program's). A program
 * linked statically has no such slots: nothing is rerouted there.
 * Full RELRO makes the GOT read-only once relocated: the page is made
 * writable for the write and read-only again.
 *
 * .wd.relocated: glibc relocates the addresses in an object's dynamic
 * section in place when it loads it (not the vDSO's): a value below the
 * load address is still a link-time address and gets it added.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "watchdog.h"

#if defined(__x86_64__)
#define R_SLOT R_X86_64_JUMP_SLOT
#define R_DATA R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define R_SLOT R_AARCH64_JUMP_SLOT
#define R_DATA R_AARCH64_GLOB_DAT
#endif

#ifdef R_SLOT

struct walk {
    const wd_symbol *syms;
    int n;
    int on;
    unsigned long long adds;
};

struct object {
    const struct dl_phdr_info *info;
    const ElfW(Sym) *symtab;
    const char *strtab;
    size_t strsz;
    uintptr_t relro, relro_end;
};

static uintptr_t at(const struct dl_phdr_info *info, ElfW(Addr) v)
{
    return v < info->dlpi_addr ? info->dlpi_addr + v : v; /* .wd.relocated */
}

static int contains(const struct dl_phdr_info *info, uintptr_t addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == PT_LOAD && addr >= lo && addr - lo < p->p_memsz)
            return 1;
    }
    return 0;
}

static int skipped(const struct dl_phdr_info *info, const struct walk *w)
{
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    if (strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "linux-vdso", 10) == 0 ||
        strncmp(base, "linux-gate", 10) == 0 || strncmp(base, "libc.so", 7) == 0)
        return 1;
    /* libtf.so; linked statically, libtf is the program, whose calls count */
    return name[0] && contains(info, (uintptr_t)w->syms[0].wrapper);
}

static void store(const struct object *o, void **slot, void *value)
{
    uintptr_t a = (uintptr_t)slot;
    if (a >= o->relro && a < o->relro_end) {
        uintptr_t page = a & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
        if (mprotect((void *)page, a + sizeof value - page, PROT_READ | PROT_WRITE) != 0)
            return; /* left as it is: that object's locks are not seen */
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        mprotect((void *)page, a + sizeof value - page, PROT_READ);
        return;
    }
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
}

static void relocations(const struct object *o, const ElfW(Rela) *r, size_t bytes, const struct walk *w)
{
    for (size_t k = 0; r && k < bytes / sizeof *r; k++) {
        unsigned long type = ELF64_R_TYPE(r[k].r_info);
        if (type != R_SLOT && type != R_DATA)
            continue;
        const ElfW(Sym) *sym = &o->symtab[ELF64_R_SYM(r[k].r_info)];
        if (sym->st_name >= o->strsz)
            continue;
        const char *name = o->strtab + sym->st_name;
        if (strncmp(name, "pthread_", 8) != 0)
            continue;
        for (int i = 0; i < w->n; i++) {
            const wd_symbol *s = &w->syms[i];
            if (!*s->real || strcmp(name, s->name) != 0)
                continue;
            void **slot = (void **)(o->info->dlpi_addr + r[k].r_offset);
            void *now = __atomic_load_n(slot, __ATOMIC_RELAXED);
            if (w->on && now != s->wrapper)
                store(o, slot, s->wrapper);
            else if (!w->on && now == s->wrapper)
                store(o, slot, *s->real);
        }
    }
}

static int patch_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct walk *w = arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        w->adds = info->dlpi_adds;
    if (skipped(info, w))
        return 0;
    struct object o = {info, NULL, NULL, 0, 0, 0};
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + p->p_vaddr);
        if (p->p_type == PT_GNU_RELRO) {
            o.relro = info->dlpi_addr + p->p_vaddr;
            o.relro_end = o.relro + p->p_memsz;
        }
    }
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t jmpsz = 0, relasz = 0;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: o.symtab = (const void *)at(info, dyn->d_un.d_ptr); break;
        case DT_STRTAB: o.strtab = (const void *)at(info, dyn->d_un.d_ptr); break;
        case DT_STRSZ: o.strsz = dyn->d_un.d_val; break;
        case DT_JMPREL: jmprel = (const void *)at(info, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: jmpsz = dyn->d_un.d_val; break;
        case DT_RELA: rela = (const void *)at(info, dyn->d_un.d_ptr); break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        default: break;
        }
    }
    if (!o.symtab || !o.strtab)
        return 0;
    relocations(&o, jmprel, jmpsz, w);
    relocations(&o, rela, relasz, w);
    return 0;
}

static void resolve(const wd_symbol *syms, int n)
{
    for (int i = 0; i < n; i++)
        if (!*syms[i].real)
            *syms[i].real = dlsym(RTLD_DEFAULT, syms[i].name); /* what the program binds to */
}

int wd_got_patch(const wd_symbol *syms, int n, int on, unsigned long long *adds)
{
    resolve(syms, n);
    struct walk w = {syms, n, on, 0};
    dl_iterate_phdr(patch_one, &w);
    *adds = w.adds;
    return 0;
}

static int count_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *(unsigned long long *)arg = info->dlpi_adds;
    return 1; /* the counter is the same in every entry */
}

unsigned long long wd_got_adds(void)
{
    unsigned long long adds = 0;
    dl_iterate_phdr(count_adds, &adds);
    return adds;
}

#else /* no GOT layout known for this architecture: nothing is rerouted */

int wd_got_patch(const wd_symbol *syms, int n, int on, unsigned long long *adds)
{
    return -1;
}

unsigned long long wd_got_adds(void)
{
    return 0;
}

#endif
