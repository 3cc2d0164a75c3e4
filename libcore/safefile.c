/*  safefile.c - files written into directories that others may write;
    see safefile.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/safefile.h"

int
hearth_file_create_at (int dirfd, const char *name, int flags, mode_t mode,
                       bool replace)
{
    if (replace && unlinkat (dirfd, name, 0) < 0 && errno != ENOENT
        && errno != EISDIR)
        return -1;
    /* O_EXCL with O_CREAT fails on any entry at name, a dangling link
       included, and never follows one */
    return openat (dirfd, name,
                   flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

/* Split path at its last '/': its directory part into dir ("." when it
   has none), its last component returned (a pointer into path); NULL
   with errno when it names no file or is too long. */
static const char *
s_split (const char *path, char *dir, size_t size)
{
    const char *slash = strrchr (path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t len = !slash ? 1 : slash == path ? 1 : (size_t) (slash - path);
    if (!*name || len >= size) {
        errno = *name ? ENAMETOOLONG : EISDIR;
        return NULL;
    }
    memcpy (dir, slash ? path : ".", len);
    dir[len] = '\0';
    return name;
}

/* Close fd (when open) keeping errno. */
static void
s_close (int fd)
{
    int saved = errno;
    if (fd >= 0)
        close (fd);
    errno = saved;
}

int
hearth_file_create (const char *path, int flags, mode_t mode, bool replace)
{
    char dir[PATH_MAX];
    const char *name = s_split (path, dir, sizeof dir);
    if (!name)
        return -1;
    int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd =
        dfd < 0 ? -1 : hearth_file_create_at (dfd, name, flags, mode, replace);
    s_close (dfd);
    return fd;
}

/* The last directory of path, of Hearth's own, open (entered as
   hearth_dir_open_at does, inside one followed as given), *name the last
   component of path (a pointer into it); -1 with errno. */
static int
s_dir_below (const char *path, const char **name)
{
    char dir[PATH_MAX], top[PATH_MAX];
    *name = s_split (path, dir, sizeof dir);
    const char *sub = *name ? s_split (dir, top, sizeof top) : NULL;
    if (!sub)
        return -1;
    int tfd = open (top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int dfd = tfd < 0 ? -1 : hearth_dir_open_at (tfd, sub, 0);
    s_close (tfd);
    return dfd;
}

int
hearth_file_create_below (const char *path, int flags, mode_t mode,
                          bool replace)
{
    const char *name;
    int dfd = s_dir_below (path, &name);
    int fd =
        dfd < 0 ? -1 : hearth_file_create_at (dfd, name, flags, mode, replace);
    s_close (dfd);
    return fd;
}

int
hearth_file_unlink_below (const char *path)
{
    const char *name;
    int dfd = s_dir_below (path, &name);
    int rc = dfd < 0 ? -1 : unlinkat (dfd, name, 0);
    s_close (dfd);
    return rc;
}

/* Close fd and fail with errno e.  Returns -1. */
static int
s_refuse (int fd, int e)
{
    close (fd);
    errno = e;
    return -1;
}

int
hearth_file_open_regular_at (int dirfd, const char *name, int flags,
                             mode_t mode, struct stat *st)
{
    struct stat own;
    st = st ? st : &own;
    int fd =
        openat (dirfd, name, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode);
    if (fd < 0) {
        /* a FIFO without a reader, or a device without its device: not a
           regular file, which never says ENXIO */
        if (errno == ENXIO)
            errno = EINVAL;
        return -1;
    }
    if (fstat (fd, st) < 0)
        return s_refuse (fd, errno);
    if (!S_ISREG (st->st_mode))
        return s_refuse (fd, EINVAL);
    int fl = fcntl (fd, F_GETFL);
    if (!(flags & O_NONBLOCK)
        && (fl < 0 || fcntl (fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
        return s_refuse (fd, errno);
    return fd;
}

int
hearth_file_reopen (const char *path, int flags, mode_t mode)
{
    struct stat st;
    int fd = hearth_file_open_regular_at (AT_FDCWD, path, flags | O_NOFOLLOW,
                                          mode, &st);
    if (fd >= 0 && st.st_nlink != 1)
        return s_refuse (fd, EMLINK);
    return fd;
}

int
hearth_file_open_owned_at (int dirfd, const char *name, uid_t owner,
                           struct stat *st)
{
    struct stat own;
    st = st ? st : &own;
    int fd =
        hearth_file_open_regular_at (dirfd, name, O_RDONLY | O_NOFOLLOW, 0, st);
    if (fd >= 0 && st->st_nlink != 1)
        return s_refuse (fd, EMLINK);
    if (fd >= 0 && st->st_uid != owner)
        return s_refuse (fd, EPERM);
    return fd;
}

int
hearth_dir_open_at (int dirfd, const char *name, mode_t make_mode)
{
    if (make_mode && mkdirat (dirfd, name, make_mode) < 0 && errno != EEXIST)
        return -1;
    int fd =
        openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    /* Linux says ENOTDIR for a link with O_DIRECTORY: say it is a link */
    if (fd < 0 && errno == ENOTDIR
        && fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
        && S_ISLNK (st.st_mode))
        errno = ELOOP;
    return fd;
}

const char *
hearth_file_why (int err)
{
    switch (err) {
    case ELOOP:
        return "it is a symbolic link, never followed here";
    case EEXIST:
        return "something of that name is there already (a file or a "
               "link: never overwritten nor followed here)";
    case EMLINK:
        return "it has other hard links, never written through here";
    case EINVAL:
        return "it is not a regular file";
    case EPERM:
        return "it belongs to another user";
    default:
        return strerror (err);
    }
}
