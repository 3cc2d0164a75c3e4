/*  persisted.c - persisted map outputs on a worker's disk; see
    persisted.h. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/partfmt.h"
#include "worker/persisted.h"

/* One map output: its directory (an open fd, shared), its name, when it
   was written and its bytes (data and index). */
typedef struct {
    int dirfd;
    char name[64]; /* M.A */
    int64_t mtime;
    uint64_t bytes;
} s_output_t;

typedef struct {
    s_output_t *list;
    size_t n, alloc;
    int *dirs; /* the shuffle directories opened, closed at the end */
    size_t ndirs, dirs_alloc;
} s_found_t;

static int
s_keep_dir (s_found_t *f, int fd)
{
    if (f->ndirs == f->dirs_alloc) {
        size_t n = f->dirs_alloc ? f->dirs_alloc * 2 : 16;
        int *d = realloc (f->dirs, n * sizeof *d);
        if (!d)
            return -1;
        f->dirs = d;
        f->dirs_alloc = n;
    }
    f->dirs[f->ndirs++] = fd;
    return 0;
}

/* A stream of the entries of the directory fd (left open: the stream has
   a copy), or NULL. */
static DIR *
s_read_dir (int fd)
{
    int copy = dup (fd);
    DIR *d = copy >= 0 ? fdopendir (copy) : NULL;
    if (!d && copy >= 0)
        close (copy);
    return d;
}

/* The outputs of one marked shuffle directory (fd, kept open). */
static void
s_outputs (s_found_t *f, int fd)
{
    DIR *d = s_read_dir (fd);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir (d))) {
        size_t len = strlen (e->d_name);
        if (len < 7 || len - 6 >= sizeof f->list->name
            || strcmp (e->d_name + len - 6, ".index") != 0)
            continue;
        s_output_t o = {.dirfd = fd};
        memcpy (o.name, e->d_name, len - 6);
        struct stat ist, dst;
        if (fstatat (fd, e->d_name, &ist, AT_SYMLINK_NOFOLLOW) < 0
            || !S_ISREG (ist.st_mode))
            continue;
        o.bytes = (uint64_t) ist.st_size;
        if (fstatat (fd, o.name, &dst, AT_SYMLINK_NOFOLLOW) == 0
            && S_ISREG (dst.st_mode))
            o.bytes += (uint64_t) dst.st_size;
        o.mtime =
            (int64_t) ist.st_mtim.tv_sec * 1000000000 + ist.st_mtim.tv_nsec;
        if (f->n == f->alloc) {
            size_t n = f->alloc ? f->alloc * 2 : 64;
            s_output_t *l = realloc (f->list, n * sizeof *l);
            if (!l)
                break;
            f->list = l;
            f->alloc = n;
        }
        f->list[f->n++] = o;
    }
    closedir (d);
}

/* The subdirectories of the directory fd, each opened (no link
   followed) and given to each (with its own fd, which it keeps or
   closes). */
static void
s_each_dir (int fd, void (*each) (s_found_t *, int), s_found_t *f)
{
    DIR *d = s_read_dir (fd);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir (d))) {
        if (e->d_name[0] == '.')
            continue;
        int sub = openat (fd, e->d_name,
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0)
            each (f, sub);
    }
    closedir (d);
}

/* A shuffle directory: its outputs when it is marked. */
static void
s_shuffle_dir (s_found_t *f, int fd)
{
    struct stat st;
    if (fstatat (fd, HEARTH_PERSISTED_MARK, &st, AT_SYMLINK_NOFOLLOW) == 0
        && S_ISREG (st.st_mode) && s_keep_dir (f, fd) == 0) {
        s_outputs (f, fd);
        return;
    }
    close (fd);
}

/* An application's directory: its shuffles. */
static void
s_app_dir (s_found_t *f, int fd)
{
    s_each_dir (fd, s_shuffle_dir, f);
    close (fd);
}

static int
s_oldest_first (const void *a, const void *b)
{
    const s_output_t *x = a, *y = b;
    return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

uint64_t
persisted_sweep (const char *root, uint64_t budget, size_t *evicted)
{
    if (evicted)
        *evicted = 0;
    int fd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    s_found_t f = {0};
    s_each_dir (fd, s_app_dir, &f);
    close (fd);
    uint64_t total = 0;
    for (size_t i = 0; i < f.n; i++)
        total += f.list[i].bytes;
    if (budget && total > budget)
        qsort (f.list, f.n, sizeof *f.list, s_oldest_first);
    for (size_t i = 0; budget && total > budget && i < f.n; i++) {
        /* the index first: a reader never finds data without it */
        char index[80];
        snprintf (index, sizeof index, "%s.index", f.list[i].name);
        if (unlinkat (f.list[i].dirfd, index, 0) < 0)
            continue;
        unlinkat (f.list[i].dirfd, f.list[i].name, 0);
        total -= f.list[i].bytes;
        if (evicted)
            (*evicted)++;
    }
    for (size_t i = 0; i < f.ndirs; i++)
        close (f.dirs[i]);
    free (f.dirs);
    free (f.list);
    return total;
}
