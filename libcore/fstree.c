/*  fstree.c - removing, making and measuring directory trees; see
    fstree.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/fstree.h"
#include "libcore/log.h"

/* Directories nftw keeps open at once (hearth_tree_bytes). */
enum { s_open_fds = 8 };
/* Deepest directory hearth_rm_tree empties: each level holds its fd
   while its entries go.  Deeper ones are left, with a WARN. */
enum { s_max_depth = 256 };

/* The names in the directory fd (dup'ed: fd stays open), a new
   NULL-terminated array (caller frees each and it), or NULL with errno. */
static char **
s_names (int fd)
{
    int copy = dup (fd);
    DIR *d = copy >= 0 ? fdopendir (copy) : NULL;
    if (!d) {
        if (copy >= 0)
            close (copy);
        return NULL;
    }
    char **names = calloc (1, sizeof *names);
    size_t n = 0;
    struct dirent *ent;
    while (names && (ent = readdir (d))) {
        if (strcmp (ent->d_name, ".") == 0 || strcmp (ent->d_name, "..") == 0)
            continue;
        char **more = realloc (names, (n + 2) * sizeof *names);
        if (!more || !(more[n] = strdup (ent->d_name))) {
            names = more ? more : names;
            names[n] = NULL;
            break;
        }
        names = more;
        names[++n] = NULL;
    }
    closedir (d);
    return names;
}

/* Remove name in the directory dir_fd, and all below it if it is a
   directory: opened from dir_fd with O_NOFOLLOW, one level at a time, so
   that a link put in the tree meanwhile (by whoever may write there: a
   task's user) is removed, never followed.  path holds the parent's
   path, its first len bytes, for the log. */
static void
s_rm_at (int dir_fd, const char *name, char *path, size_t len, int depth)
{
    int n = snprintf (path + len, PATH_MAX - len, "/%s", name);
    size_t here = len + (n > 0 ? (size_t) n : 0);
    if (here >= PATH_MAX)
        here = PATH_MAX - 1;
    if (unlinkat (dir_fd, name, 0) == 0 || errno == ENOENT)
        goto done;
    int fd = errno == EISDIR || errno == EPERM ? openat (
                 dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                               : -1;
    if (fd < 0) {
        log_warn ("cannot remove %s: %s", path, strerror (errno));
        goto done;
    }
    char **names = depth < s_max_depth ? s_names (fd) : NULL;
    if (!names)
        log_warn ("cannot remove what is in %s: %s", path,
                  depth < s_max_depth ? strerror (errno) : "too deep");
    for (size_t i = 0; names && names[i]; i++) {
        s_rm_at (fd, names[i], path, here, depth + 1);
        free (names[i]);
    }
    free (names);
    close (fd);
    path[here] = '\0';
    if (unlinkat (dir_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        log_warn ("cannot remove %s: %s", path, strerror (errno));
done:
    path[len] = '\0';
}

void
hearth_rm_tree (const char *path)
{
    char buf[PATH_MAX];
    if (snprintf (buf, sizeof buf, "%s", path) >= (int) sizeof buf)
        return;
    char *slash = strrchr (buf, '/');
    while (slash && slash > buf && slash[1] == '\0') {
        *slash = '\0'; /* "dir/": "dir" */
        slash = strrchr (buf, '/');
    }
    if (slash && !slash[1])
        return; /* "/" itself */
    const char *name = slash ? slash + 1 : buf;
    char parent[PATH_MAX];
    snprintf (parent, sizeof parent, "%.*s",
              slash ? (int) (slash == buf ? 1 : slash - buf) : 1,
              slash ? buf : ".");
    int fd = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return; /* nothing there */
    char log_path[PATH_MAX];
    size_t len = (size_t) snprintf (log_path, sizeof log_path, "%s",
                                    strcmp (parent, "/") ? parent : "");
    s_rm_at (fd, name, log_path, len, 0);
    close (fd);
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
