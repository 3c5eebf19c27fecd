/*
 * core.c: `tf-dump --core CORE EXECUTABLE`: the rings of a process read out
 * of its core dump (the MPS telemetry's .debug.core; funtrace does the
 * same). The core's NT_FILE note names every mapped file with its address
 * range and file offset; the ring file's two mappings (the packets and the
 * metadata log, runtime/record/layout.h) are put back together from the
 * core's memory segments into an image of the file, which rings.c reads.
 *
 * A crash core holds them by default: the recorder removed the ring file
 * after writing the trace, and the kernel dumps a shared mapping of a
 * removed file as anonymous memory. A core of a live process (gdb's gcore)
 * holds them only if /proc/PID/coredump_filter has bit 3 (shared file
 * mappings); otherwise what the core lacks is read from the ring file it
 * names, which is the same memory while the file exists.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/procfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rings.h"

typedef struct core {
    const unsigned char *d;
    size_t size;
    const Elf64_Ehdr *eh;
    const Elf64_Phdr *ph;
} core;

typedef struct mapping {
    uint64_t start, end, offset; /* offset: in the file, bytes */
    const char *name;
} mapping;

/* Copies [addr, addr + n) of the process's memory from the core into out;
 * returns the bytes the core has (the rest is left as it was). */
static uint64_t from_core(const core *c, uint64_t addr, uint64_t n, unsigned char *out, unsigned char *have)
{
    uint64_t got = 0;
    for (int i = 0; i < c->eh->e_phnum; i++) {
        const Elf64_Phdr *p = &c->ph[i];
        if (p->p_type != PT_LOAD || p->p_offset > c->size || p->p_filesz > c->size - p->p_offset)
            continue;
        uint64_t lo = addr > p->p_vaddr ? addr : p->p_vaddr;
        uint64_t hi = addr + n < p->p_vaddr + p->p_filesz ? addr + n : p->p_vaddr + p->p_filesz;
        if (lo >= hi)
            continue;
        memcpy(out + (lo - addr), c->d + p->p_offset + (lo - p->p_vaddr), hi - lo);
        memset(have + (lo - addr), 1, hi - lo);
        got += hi - lo;
    }
    return got;
}

/* NT_FILE: count, page size, count x (start, end, page offset), names. */
static int file_note(const unsigned char *desc, size_t len, mapping **out, uint64_t *n)
{
    if (len < 16)
        return -1;
    uint64_t count, page;
    memcpy(&count, desc, 8);
    memcpy(&page, desc + 8, 8);
    if (count > (len - 16) / 24)
        return -1;
    mapping *m = calloc(count ? count : 1, sizeof *m);
    const char *name = (const char *)desc + 16 + count * 24, *end = (const char *)desc + len;
    for (uint64_t i = 0; m && i < count; i++) {
        memcpy(&m[i].start, desc + 16 + i * 24, 8);
        memcpy(&m[i].end, desc + 16 + i * 24 + 8, 8);
        memcpy(&m[i].offset, desc + 16 + i * 24 + 16, 8);
        m[i].offset *= page;
        const char *nul = name < end ? memchr(name, 0, (size_t)(end - name)) : NULL;
        m[i].name = nul ? name : "";
        name = nul ? nul + 1 : end;
    }
    *out = m;
    *n = count;
    return m ? 0 : -1;
}

/* The notes: NT_FILE's mappings, NT_PRPSINFO's program name. */
static int notes(const core *c, mapping **maps, uint64_t *n, char fname[17])
{
    int found = -1;
    for (int i = 0; i < c->eh->e_phnum; i++) {
        const Elf64_Phdr *p = &c->ph[i];
        if (p->p_type != PT_NOTE || p->p_offset > c->size || p->p_filesz > c->size - p->p_offset)
            continue;
        for (uint64_t at = 0; at + sizeof(Elf64_Nhdr) <= p->p_filesz;) {
            const Elf64_Nhdr *nh = (const void *)(c->d + p->p_offset + at);
            uint64_t name = (nh->n_namesz + 3) / 4 * 4, desc = (nh->n_descsz + 3) / 4 * 4;
            const unsigned char *d = c->d + p->p_offset + at + sizeof *nh + name;
            if (sizeof *nh + name + desc > p->p_filesz - at)
                break;
            if (nh->n_type == NT_FILE && found < 0)
                found = file_note(d, nh->n_descsz, maps, n);
            if (nh->n_type == NT_PRPSINFO && nh->n_descsz >= sizeof(prpsinfo_t))
                snprintf(fname, 17, "%.16s", ((const prpsinfo_t *)(const void *)d)->pr_fname);
            at += sizeof *nh + name + desc;
        }
    }
    return found;
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The ring file's path as NT_FILE gives it, without " (deleted)". */
static char *ring_path(const mapping *m)
{
    char *p = strdup(m->name);
    size_t n = p ? strlen(p) : 0;
    if (n > 10 && strcmp(p + n - 10, " (deleted)") == 0)
        p[n - 10] = 0;
    return p;
}

/* The image of the ring file from its mappings; what the core lacks, from
 * the file itself if it is still there. */
static unsigned char *image(const core *c, const mapping *m, uint64_t n, const char *name,
                            const char *path, size_t *size, const char *core_name)
{
    uint64_t bytes = 0, missing = 0;
    for (uint64_t i = 0; i < n; i++)
        if (!strcmp(m[i].name, name) && m[i].end > m[i].start && m[i].offset + (m[i].end - m[i].start) > bytes)
            bytes = m[i].offset + (m[i].end - m[i].start);
    unsigned char *img = bytes < (1ull << 40) ? calloc(1, bytes) : NULL, *have = img ? calloc(1, bytes) : NULL;
    for (uint64_t i = 0; have && i < n; i++)
        if (!strcmp(m[i].name, name) && m[i].end > m[i].start)
            from_core(c, m[i].start, m[i].end - m[i].start, img + m[i].offset, have + m[i].offset);
    int fd = have ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    for (uint64_t at = 0; have && at < bytes; at++) {
        if (have[at])
            continue;
        uint64_t to = at;
        while (to < bytes && !have[to])
            to++;
        if (fd < 0 || pread(fd, img + at, to - at, (off_t)at) != (ssize_t)(to - at))
            missing += to - at;
        at = to;
    }
    if (fd >= 0)
        close(fd);
    if (have && missing)
        fprintf(stderr, "tf-dump: %s: %llu bytes of the rings are neither in the core nor in %s "
                "(taken as zeros); a core of a live process holds them when "
                "/proc/PID/coredump_filter has bit 3 (shared file mappings)\n", core_name,
                (unsigned long long)missing, path);
    free(have);
    *size = (size_t)bytes;
    return img;
}

static td_trace *read_core(const core *c, const char *core_name, const char *exe)
{
    mapping *maps = NULL;
    uint64_t n = 0;
    char fname[17] = "";
    if (notes(c, &maps, &n, fname) != 0) {
        fprintf(stderr, "tf-dump: %s: no NT_FILE note: not a Linux core dump of a process\n", core_name);
        free(maps);
        return NULL;
    }
    if (exe && fname[0] && strncmp(base_of(exe), fname, 15) != 0)
        fprintf(stderr, "tf-dump: %s: the core is of '%s', not of %s\n", core_name, fname, exe);
    const mapping *ring = NULL;
    for (uint64_t i = 0; i < n && !ring; i++)
        if (!strncmp(base_of(maps[i].name), ".rings-", 7) && maps[i].offset == 0)
            ring = &maps[i];
    td_trace *t = NULL;
    char *path = ring ? ring_path(ring) : NULL;
    size_t size = 0;
    unsigned char *img = path ? image(c, maps, n, ring->name, path, &size, core_name) : NULL;
    if (!ring)
        fprintf(stderr, "tf-dump: %s: the process had no ring file mapped (it recorded nothing in "
                "ring mode)\n", core_name);
    else if (img)
        t = td_rings_read(path, img, size);
    free(img);
    free(path);
    free(maps);
    return t;
}

td_trace *td_core_open(const char *path, const char *exe)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    void *d = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0)
        d = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd >= 0)
        close(fd);
    if (d == MAP_FAILED) {
        fprintf(stderr, "tf-dump: %s: cannot be read\n", path);
        return NULL;
    }
    core c = {d, (size_t)st.st_size, d, NULL};
    td_trace *t = NULL;
    if (c.size < sizeof(Elf64_Ehdr) || memcmp(c.eh->e_ident, ELFMAG, SELFMAG) ||
        c.eh->e_ident[EI_CLASS] != ELFCLASS64 || c.eh->e_type != ET_CORE ||
        c.eh->e_phoff > c.size || (uint64_t)c.eh->e_phnum * sizeof(Elf64_Phdr) > c.size - c.eh->e_phoff) {
        fprintf(stderr, "tf-dump: %s: not a 64-bit ELF core dump\n", path);
    } else {
        c.ph = (const Elf64_Phdr *)(c.d + c.eh->e_phoff);
        t = read_core(&c, path, exe);
    }
    munmap(d, c.size);
    return t;
}
