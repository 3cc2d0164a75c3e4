/*  files.c - shipped bytes kept by content hash, and the application's
    files put into the work dir; see files.h.

    A file arrives once, in REGISTERED_EXECUTOR, with its SHA-1.  It is
    checked against that hash and written to WORK_DIR/.files/HASH-NAME (a
    temporary name renamed into place, so that a half-written file is
    never taken for the cache), then hard-linked to WORK_DIR/NAME through
    a temporary name renamed over the old one: a task never sees a
    missing or partial file, and one that reads the old one keeps it.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "executor/files.h"
#include "libcore/ids.h"

/* Names the work dir holds already (the driver refuses them too:
   libhearth/ship.c). */
static const char *const s_taken_names[] = {"libs", "stdout", "stderr", NULL};
/* Where the files' cache lives in the work dir: a safe name never starts
   with a dot, so no shipped file can be called that. */
static const char *const s_cache_dir = ".files";
/* Bytes copied at a time, where a link is refused. */
enum { s_copy_chunk = 65536 };

/* The SHA-1 of frame must be hash (hex, any case). */
static int
s_check_hash (const char *what, const char *name, const char *hash,
              zframe_t *frame, hearth_error_t *err)
{
    zdigest_t *digest = zdigest_new ();
    if (!digest)
        return hearth_errprintf (err, "out of memory");
    zdigest_update (digest, zframe_data (frame), zframe_size (frame));
    int same = strcasecmp (zdigest_string (digest), hash) == 0;
    zdigest_destroy (&digest);
    if (!same)
        return hearth_errprintf (err, "%s %s does not match its hash %s", what,
                                 name, hash);
    return 0;
}

/* Write data to path unless it is there already (tmp + rename). */
static int
s_write_new (const char *path, const void *data, size_t len, int mode,
             hearth_error_t *err)
{
    if (access (path, R_OK) == 0)
        return 0;
    char tmp[4200];
    snprintf (tmp, sizeof tmp, "%s.tmp%d", path, (int) getpid ());
    int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return hearth_errprintf (err, "cannot write %s: %s", tmp,
                                 strerror (errno));
    ssize_t n = len ? write (fd, data, len) : 0;
    int rc = close (fd);
    if (n != (ssize_t) len || rc < 0 || rename (tmp, path) < 0) {
        unlink (tmp);
        return hearth_errprintf (err, "cannot write %s: %s", path,
                                 strerror (errno));
    }
    return 0;
}

int
files_store (const char *dir, const char *what, const char *name,
             const char *hash, zframe_t *frame, int mode, char *path,
             size_t size, hearth_error_t *err)
{
    if (!hearth_name_safe (hash))
        return hearth_errprintf (err, "%s %s: bad hash", what, name);
    if (!hearth_name_safe (name))
        return hearth_errprintf (err, "%s: bad name '%s'", what, name);
    if (s_check_hash (what, name, hash, frame, err) < 0)
        return -1;
    if (mkdir (dir, 0700) < 0 && errno != EEXIST)
        return hearth_errprintf (err, "cannot create %s: %s", dir,
                                 strerror (errno));
    if ((size_t) snprintf (path, size, "%s/%s-%s", dir, hash, name) >= size)
        return hearth_errprintf (err, "%s %s: path too long", what, name);
    return s_write_new (path, zframe_data (frame), zframe_size (frame), mode,
                        err);
}

/* Copy from to a new file to, of mode. */
static int
s_copy (const char *from, const char *to, int mode)
{
    int in = open (from, O_RDONLY | O_CLOEXEC);
    int out = open (to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    char buf[s_copy_chunk];
    ssize_t n = 0;
    while (in >= 0 && out >= 0 && (n = read (in, buf, sizeof buf)) > 0)
        if (write (out, buf, (size_t) n) != n) {
            n = -1;
            break;
        }
    int saved = errno;
    if (in >= 0)
        close (in);
    if (out >= 0 && close (out) < 0 && n == 0)
        n = -1;
    errno = saved;
    return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

int
files_add (const char *work_dir, const char *name, const char *hash, int mode,
           zframe_t *frame, hearth_error_t *err)
{
    for (int i = 0; s_taken_names[i]; i++)
        if (name && strcmp (name, s_taken_names[i]) == 0)
            return hearth_errprintf (err,
                                     "file %s: the work dir has one of that "
                                     "name already",
                                     name);
    if (!frame)
        return hearth_errprintf (err, "file %s arrived without its bytes",
                                 name ? name : "?");
    char dir[4096], cached[4400], tmp[4400], dest[4400];
    int own = mode & 0100 ? 0700 : 0600;
    snprintf (dir, sizeof dir, "%s/%s", work_dir, s_cache_dir);
    if (files_store (dir, "file", name, hash, frame, own, cached, sizeof cached,
                     err)
        < 0)
        return -1;
    snprintf (dest, sizeof dest, "%s/%s", work_dir, name);
    snprintf (tmp, sizeof tmp, "%s/%s/.%s.tmp%d", work_dir, s_cache_dir, name,
              (int) getpid ());
    unlink (tmp);
    if ((link (cached, tmp) < 0 && s_copy (cached, tmp, own) < 0)
        || rename (tmp, dest) < 0) {
        int saved = errno;
        unlink (tmp);
        return hearth_errprintf (err, "cannot put file %s in %s: %s", name,
                                 work_dir, strerror (saved));
    }
    return 0;
}
