/*
 * salvage.c: the readable part of a damaged trace. babeltrace2's ctf.fs
 * source indexes every packet of every stream file when it starts, and one
 * bad packet (a truncated file, a flipped bit in a packet header, a wrong
 * magic) makes it refuse the whole trace. So, when it refuses, each stream
 * file is tried alone; a bad one is cut before its first bad packet. Packets
 * start with the CTF magic 0xc1fc1fc1 followed by the trace's UUID, as in
 * the file's first packet: those are the possible cuts, and the longest
 * prefix ctf.fs accepts is found by bisection. The pieces go into a
 * temporary directory (links to the good files, copies of the prefixes)
 * that is read instead; every cut is reported with its file and offset.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "salvage.h"

static int is_magic(const unsigned char *p)
{
    return (p[0] == 0xc1 && p[1] == 0x1f && p[2] == 0xfc && p[3] == 0xc1) ||
           (p[0] == 0xc1 && p[1] == 0xfc && p[2] == 0x1f && p[3] == 0xc1);
}

/* Offsets of the packets after the first (same magic and UUID), then size. */
static size_t *cuts_of(const unsigned char *d, size_t size, size_t *n)
{
    size_t *c = malloc(sizeof *c), cap = 1;
    *n = 0;
    for (size_t i = 1; c && size >= 20 && is_magic(d) && i + 20 <= size; i++) {
        if (!is_magic(d + i) || memcmp(d + i + 4, d + 4, 16) != 0)
            continue;
        if (*n + 1 >= cap) {
            size_t *g = realloc(c, 2 * cap * sizeof *c);
            if (!g)
                break;
            c = g;
            cap *= 2;
        }
        c[(*n)++] = i;
    }
    if (c)
        c[(*n)++] = size;
    return c;
}

static char *slurp(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    char *d = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && (d = malloc((size_t)st.st_size + 1))) {
        ssize_t r = read(fd, d, (size_t)st.st_size);
        *size = r > 0 ? (size_t)r : 0;
    }
    if (fd >= 0)
        close(fd);
    return d;
}

long long td_packet_offset(const char *file, uint64_t k)
{
    size_t size = 0, n = 0;
    unsigned char *d = (unsigned char *)slurp(file, &size);
    size_t *cuts = d ? cuts_of(d, size, &n) : NULL;
    long long at = !cuts || k == 0 ? -1 : k == 1 ? 0 : k - 1 <= n ? (long long)cuts[k - 2] : -1;
    free(cuts);
    free(d);
    return at;
}

static int write_prefix(const char *path, const unsigned char *d, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, d, len);
    return close(fd) == 0 && w == (ssize_t)len ? 0 : -1;
}

/* Longest readable prefix of src as dir/name; its length, or 0. */
static size_t cut(const char *src, const char *dir, const char *name)
{
    size_t size = 0, n = 0, good = 0;
    unsigned char *d = (unsigned char *)slurp(src, &size);
    size_t *cuts = d ? cuts_of(d, size, &n) : NULL;
    char *piece = NULL;
    if (cuts && asprintf(&piece, "%s/%s", dir, name) > 0) {
        size_t lo = 0, hi = n; /* cuts[lo-1] readable (lo 0: nothing), cuts[hi-1] not */
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            unlink(piece);
            if (write_prefix(piece, d, cuts[mid - 1]) == 0 && td_ctf_readable(dir))
                lo = mid;
            else
                hi = mid;
        }
        unlink(piece);
        good = lo ? cuts[lo - 1] : 0;
        if (good && write_prefix(piece, d, good) != 0)
            good = 0;
    }
    free(piece);
    free(cuts);
    free(d);
    return good;
}

static int skip(const struct dirent *e)
{
    return e->d_name[0] == '.' || strcmp(e->d_name, "metadata") == 0 || e->d_type == DT_DIR;
}

/* One trace directory into out (made, holding a link to its metadata). */
static int salvage_dir(const char *trace, const char *out)
{
    char *p = NULL, *q = NULL;
    int rc = 0;
    if (mkdir(out, 0700) != 0 || asprintf(&p, "%s/metadata", trace) < 0 ||
        asprintf(&q, "%s/metadata", out) < 0 || symlink(p, q) != 0)
        rc = -1;
    free(p);
    free(q);
    DIR *dir = rc ? NULL : opendir(trace);
    for (struct dirent *e; dir && (e = readdir(dir));) {
        if (skip(e))
            continue;
        p = q = NULL;
        if (asprintf(&p, "%s/%s", trace, e->d_name) < 0 || asprintf(&q, "%s/%s", out, e->d_name) < 0 ||
            symlink(p, q) != 0) {
            free(p);
            free(q);
            rc = -1;
            break;
        }
        if (!td_ctf_readable(out)) {
            unlink(q);
            struct stat st;
            size_t good = cut(p, out, e->d_name);
            if (stat(p, &st) == 0)
                fprintf(stderr, "tf-dump: %s: damaged at offset %zu of %lld bytes; the events "
                        "from there on are missing\n", p, good, (long long)st.st_size);
        }
        free(p);
        free(q);
    }
    if (dir)
        closedir(dir);
    return rc;
}

char *td_salvage(const char *const *traces, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    char *root = NULL;
    if (asprintf(&root, "%s/tf-dump.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
        return NULL;
    if (!mkdtemp(root)) {
        fprintf(stderr, "tf-dump: cannot make a temporary directory %s: %m\n", root);
        free(root);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        char *out = NULL;
        char *abs = realpath(traces[i], NULL); /* the links must work from anywhere */
        int rc = !abs || asprintf(&out, "%s/%zu", root, i) < 0 ? -1 : salvage_dir(abs, out);
        free(abs);
        free(out);
        if (rc != 0) {
            fprintf(stderr, "tf-dump: cannot salvage %s into %s: %m\n", traces[i], root);
            td_salvage_remove(root);
            free(root);
            return NULL;
        }
    }
    return root;
}

static int remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    for (struct dirent *e; dir && (e = readdir(dir));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = NULL;
        if (asprintf(&p, "%s/%s", path, e->d_name) > 0 && (e->d_type != DT_DIR || remove_tree(p) == 0))
            unlink(p);
        free(p);
    }
    if (dir)
        closedir(dir);
    return rmdir(path);
}

void td_salvage_remove(const char *root)
{
    remove_tree(root);
}
