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

int
hearth_file_create (const char *path, int flags, mode_t mode, bool replace)
{
    const char *slash = strrchr (path, '/');
    if (!slash)
        return hearth_file_create_at (AT_FDCWD, path, flags, mode, replace);
    char dir[PATH_MAX];
    size_t len = slash == path ? 1 : (size_t) (slash - path);
    if (len >= sizeof dir || !slash[1]) {
        errno = slash[1] ? ENAMETOOLONG : EISDIR;
        return -1;
    }
    memcpy (dir, path, len);
    dir[len] = '\0';
    int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    int fd = hearth_file_create_at (dfd, slash + 1, flags, mode, replace);
    int saved = errno;
    close (dfd);
    errno = saved;
    return fd;
}

int
hearth_file_reopen (const char *path, int flags, mode_t mode)
{
    int fd = open (path, flags | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    struct stat st;
    int saved = 0;
    if (fstat (fd, &st) < 0)
        saved = errno;
    else if (!S_ISREG (st.st_mode))
        saved = EINVAL;
    else if (st.st_nlink != 1)
        saved = EMLINK;
    if (saved == 0)
        return fd;
    close (fd);
    errno = saved;
    return -1;
}

int
hearth_dir_open_at (int dirfd, const char *name, mode_t make_mode)
{
    if (make_mode && mkdirat (dirfd, name, make_mode) < 0 && errno != EEXIST)
        return -1;
    return openat (dirfd, name,
                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
    default:
        return strerror (err);
    }
}
