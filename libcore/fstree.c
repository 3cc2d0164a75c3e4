/*  fstree.c - removing, making and measuring directory trees; see
    fstree.h. */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/fstree.h"
#include "libcore/log.h"

/* Directories nftw keeps open at once. */
enum { s_open_fds = 8 };

static int
s_remove_entry (const char *path, const struct stat *st, int flag,
                struct FTW *ftw)
{
    (void) st;
    (void) ftw;
    if (flag == FTW_DP ? rmdir (path) : unlink (path))
        log_warn ("cannot remove %s: %s", path, strerror (errno));
    return 0;
}

void
hearth_rm_tree (const char *path)
{
    struct stat st;
    if (lstat (path, &st) == 0)
        nftw (path, s_remove_entry, s_open_fds, FTW_DEPTH | FTW_PHYS);
}

int
hearth_mkdir_p (const char *path, unsigned mode, hearth_error_t *err)
{
    char buf[PATH_MAX];
    if (snprintf (buf, sizeof buf, "%s", path) >= (int) sizeof buf)
        return hearth_errprintf (err, "path too long: %s", path);
    for (char *p = buf + 1;; p++) {
        bool end = *p == '\0';
        if (*p != '/' && !end)
            continue;
        *p = '\0';
        if (mkdir (buf, (mode_t) mode) < 0 && errno != EEXIST)
            return hearth_errcode (err, "io", "cannot create %s: %s", buf,
                                   strerror (errno));
        if (end)
            return 0;
        *p = '/';
    }
}

/* nftw has no argument: the sum of the walk in progress (one walk at a
   time: the worker's loop calls it). */
static __thread uint64_t s_sum;

static int
s_add_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) path;
    (void) ftw;
    if (flag == FTW_F)
        s_sum += (uint64_t) st->st_blocks * 512u;
    return 0;
}

uint64_t
hearth_tree_bytes (const char *path)
{
    s_sum = 0;
    struct stat st;
    if (lstat (path, &st) == 0)
        nftw (path, s_add_entry, s_open_fds, FTW_PHYS);
    return s_sum;
}

int
hearth_write_all (int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write (fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t) n;
    }
    return 0;
}
