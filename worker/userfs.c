/*  userfs.c - files in trees a child's user may write to, never through
    a link; see userfs.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/safefile.h"
#include "worker/userfs.h"

/* The next component of *rel into buf (NAME_MAX + 1 bytes), *rel moved
   past it.  Returns true when there was one (false at the end, or with
   errno EINVAL for an empty, "." or ".." component or one too long). */
static bool
s_next (const char **rel, char *buf)
{
    const char *p = *rel, *slash = strchr (p, '/');
    size_t len = slash ? (size_t) (slash - p) : strlen (p);
    errno = 0;
    if (!*p)
        return false;
    if (len == 0 || len > NAME_MAX || (len == 1 && p[0] == '.')
        || (len == 2 && p[0] == '.' && p[1] == '.')) {
        errno = EINVAL;
        return false;
    }
    memcpy (buf, p, len);
    buf[len] = '\0';
    *rel = slash ? slash + 1 : p + len;
    return true;
}

/* A directory's fd, opened from dir_fd without following a link. */
static int
s_open_dir (int dir_fd, const char *name)
{
    return openat (dir_fd, name,
                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The directory fd of a component just opened, given to owner when the
   worker owns it; -1 with errno EPERM when someone else does. */
static int
s_claim (int fd, const userfs_owner_t *owner)
{
    struct stat st;
    if (fstat (fd, &st) < 0)
        return -1;
    if (!owner || st.st_uid == owner->uid)
        return 0;
    if (st.st_uid != geteuid ()) {
        errno = EPERM;
        return -1;
    }
    return fchown (fd, owner->uid, owner->gid);
}

/* Close fd (when open), keeping errno, and say why root/rel could not
   be done (doing: "create", "write", "read") into err.  Returns -1. */
static int
s_fail (int fd, const char *doing, const char *root, const char *rel,
        hearth_error_t *err)
{
    int e = errno;
    if (fd >= 0)
        close (fd);
    errno = e;
    bool reading = strcmp (doing, "read") == 0;
    const char *why =
        e == ELOOP || e == ENOTDIR
            ? "a symbolic link or not a directory on the way"
        : e == EPERM && reading ? "it does not belong to its directory's owner"
        : e == EPERM            ? "a directory on the way belongs to "
                                  "another user"
        : e == EINVAL || e == EMLINK ? "not a regular file of one link"
                                     : strerror (e);
    return hearth_errprintf (err, "cannot %s %s/%s: %s", doing, root, rel, why);
}

int
userfs_mkdirs (const char *root, const char *rel, mode_t mode,
               const userfs_owner_t *owner, hearth_error_t *err)
{
    int fd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char name[NAME_MAX + 1];
    const char *rest = rel;
    while (fd >= 0 && s_next (&rest, name)) {
        if (mkdirat (fd, name, mode) < 0 && errno != EEXIST)
            break;
        int next = s_open_dir (fd, name);
        int e = errno;
        close (fd);
        fd = next;
        errno = e;
        if (fd >= 0 && s_claim (fd, owner) < 0)
            break;
    }
    return fd >= 0 && errno == 0 ? fd : s_fail (fd, "create", root, rel, err);
}

int
userfs_create (int dir_fd, const char *dir, const char *name, bool append,
               mode_t mode, const userfs_owner_t *owner, hearth_error_t *err)
{
    int flags = O_WRONLY | O_CREAT | O_NOFOLLOW;
    if (append)
        flags |= O_APPEND;
    else {
        /* a new file, whatever was there (a link to another file) */
        if (unlinkat (dir_fd, name, 0) < 0 && errno != ENOENT)
            return s_fail (-1, "replace", dir, name, err);
        flags |= O_EXCL;
    }
    struct stat st;
    int fd = hearth_file_open_regular_at (dir_fd, name, flags, mode, &st);
    if (fd >= 0 && st.st_nlink != 1)
        errno = EMLINK;
    if (fd < 0 || st.st_nlink != 1
        || (owner && fchown (fd, owner->uid, owner->gid) < 0))
        return s_fail (fd, "write", dir, name, err);
    return fd;
}

/* The file name in the directory dir_fd, read as userfs_open_read
   does: its owner must be the directory's. */
static int
s_open_file (int dir_fd, const char *name)
{
    struct stat dir;
    if (fstat (dir_fd, &dir) < 0)
        return -1;
    return hearth_file_open_owned_at (dir_fd, name, dir.st_uid, NULL);
}

/* The last name of a shared cache entry in dir_fd: as s_open_file, but
   of any count of links (userfs_open_shared). */
static int
s_open_shared (int dir_fd, const char *name)
{
    struct stat dir, st;
    if (fstat (dir_fd, &dir) < 0)
        return -1;
    int fd = hearth_file_open_regular_at (dir_fd, name, O_RDONLY | O_NOFOLLOW,
                                          0, &st);
    if (fd >= 0 && st.st_uid != dir.st_uid) {
        close (fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

static int s_open_path (const char *root, const char *rel, bool shared,
                        hearth_error_t *err);

int
userfs_open_read (const char *root, const char *rel, hearth_error_t *err)
{
    return s_open_path (root, rel, false, err);
}

int
userfs_open_shared (const char *root, const char *rel, hearth_error_t *err)
{
    return s_open_path (root, rel, true, err);
}

/* userfs_open_read, or with shared userfs_open_shared. */
static int
s_open_path (const char *root, const char *rel, bool shared,
             hearth_error_t *err)
{
    int fd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char name[NAME_MAX + 1];
    const char *rest = rel;
    bool file = false; /* fd is the file (else a directory) */
    while (fd >= 0 && s_next (&rest, name)) {
        file = !*rest;
        int next = !file    ? s_open_dir (fd, name)
                   : shared ? s_open_shared (fd, name)
                            : s_open_file (fd, name);
        int e = errno;
        close (fd);
        fd = next;
        errno = e;
    }
    if (fd >= 0 && errno == 0 && file)
        return fd;
    if (fd >= 0 && errno == 0)
        errno = EINVAL; /* rel named no file */
    return s_fail (fd, "read", root, rel, err);
}
