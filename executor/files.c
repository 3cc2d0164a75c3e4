/*  files.c - the application's files put into the work dir; see
    files.h.

    A file fetched into the node's cache (shipfetch.c, checked against its
    hash there) is hard-linked to WORK_DIR/NAME through a temporary name
    renamed over the old one: a task never sees a missing or partial
    file, and one that reads the old one keeps it.  The cache's copy is
    read-only (shipfetch.c): the node's other executors link the same
    bytes.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "executor/files.h"
#include "libcore/ids.h"

/* Names the work dir holds already (the driver refuses them too:
   libhearth/ship.c). */
static const char *const s_taken_names[] = {"libs", "stdout", "stderr", NULL};
/* Bytes copied at a time, where a link is refused. */
enum { s_copy_chunk = 65536 };

/* Copy from to a new file to, of mode. */
static int
s_copy (const char *from, const char *to, int mode)
{
    int in = open (from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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
files_place (const char *work_dir, const char *name, const char *cached,
             int mode, hearth_error_t *err)
{
    if (!hearth_name_safe (name))
        return hearth_errprintf (err, "file: bad name '%s'", name);
    for (int i = 0; s_taken_names[i]; i++)
        if (strcmp (name, s_taken_names[i]) == 0)
            return hearth_errprintf (err,
                                     "file %s: the work dir has one of that "
                                     "name already",
                                     name);
    char tmp[4400], dest[4400];
    snprintf (dest, sizeof dest, "%s/%s", work_dir, name);
    /* a dot first: no shipped file's name, which is safe (ids.h) */
    snprintf (tmp, sizeof tmp, "%s/.%s.tmp%d", work_dir, name, (int) getpid ());
    unlink (tmp);
    if ((link (cached, tmp) < 0 && s_copy (cached, tmp, mode) < 0)
        || rename (tmp, dest) < 0) {
        int saved = errno;
        unlink (tmp);
        return hearth_errprintf (err, "cannot put file %s in %s: %s", name,
                                 work_dir, strerror (saved));
    }
    return 0;
}
