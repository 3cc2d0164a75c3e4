/*  weblog.c - log bytes for the worker's pages; see weblog.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/ids.h"
#include "worker/userfs.h"
#include "worker/weblog.h"

static int
s_fail (weblog_t *out, int status, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (out->error, sizeof out->error, fmt, ap);
    va_end (ap);
    out->status = status;
    return status;
}

/* A whole decimal number (optional sign) within lo..hi into *v. */
static bool
s_parse (const char *text, int64_t lo, int64_t hi, int64_t *v)
{
    const char *digits = text && text[0] == '-' ? text + 1 : text;
    if (!text || !*digits || strlen (text) > 20
        || strspn (digits, "0123456789") != strlen (digits))
        return false; /* strtoll alone takes " 1", "+1", "0x1" */
    char *end;
    errno = 0;
    long long n = strtoll (text, &end, 10);
    if (errno || *end || n < lo || n > hi)
        return false;
    *v = n;
    return true;
}

/* The path components of the file below the work dir, checked. */
static int
s_components (const weblog_args_t *a, weblog_t *out, const char *parts[3])
{
    if (!a->stream
        || (strcmp (a->stream, "stdout") != 0
            && strcmp (a->stream, "stderr") != 0))
        return s_fail (out, 400, "stream must be stdout or stderr");
    if (a->driver && !a->app && !a->exec) {
        if (!hearth_id_valid (HEARTH_ID_DRIVER, a->driver))
            return s_fail (out, 400, "bad driver id");
        snprintf (out->what, sizeof out->what, "%s", a->driver);
        parts[0] = a->driver;
        parts[1] = a->stream;
        parts[2] = NULL;
        return 0;
    }
    int64_t exec;
    if (!a->app || !a->exec || a->driver)
        return s_fail (out, 400, "give app and exec, or driver");
    if (!hearth_id_valid (HEARTH_ID_APP, a->app))
        return s_fail (out, 400, "bad application id");
    if (!s_parse (a->exec, 0, 1000000000, &exec) || a->exec[0] == '-')
        return s_fail (out, 400, "bad executor id");
    snprintf (out->what, sizeof out->what, "%s executor %s", a->app, a->exec);
    parts[0] = a->app;
    parts[1] = a->exec;
    parts[2] = a->stream;
    return 0;
}

/* Open the file (userfs.h: no link followed, a regular file of one
   link, its directory's owner's): its fd, or -1 with out's status set. */
static int
s_open (const char *work_dir, const char *parts[3], weblog_t *out)
{
    char rel[300];
    snprintf (rel, sizeof rel, "%s/%s%s%s", parts[0], parts[1],
              parts[2] ? "/" : "", parts[2] ? parts[2] : "");
    int fd = userfs_open_read (work_dir, rel, NULL);
    struct stat st;
    if (fd >= 0 && fstat (fd, &st) == 0) {
        out->total = (int64_t) st.st_size;
        return fd;
    }
    int e = errno;
    if (fd >= 0)
        close (fd);
    if (e == ENOENT)
        s_fail (out, 404, "no such log on this worker");
    else if (e == ELOOP || e == ENOTDIR)
        s_fail (out, 403,
                "refused: a symbolic link or not a directory on the way");
    else if (e == EINVAL || e == EMLINK || e == EPERM)
        s_fail (out, 403,
                "refused: not a regular file of one link, of its "
                "directory's owner");
    else
        s_fail (out, 500, "cannot open the log: %s", strerror (e));
    return -1;
}

int
weblog_read (const char *work_dir, const weblog_args_t *a, weblog_t *out)
{
    memset (out, 0, sizeof *out);
    const char *parts[3];
    int64_t offset = -WEBLOG_DEFAULT_BYTES, length = WEBLOG_DEFAULT_BYTES;
    if (s_components (a, out, parts))
        return out->status;
    if (a->offset
        && !s_parse (a->offset, INT64_MIN / 2, INT64_MAX / 2, &offset))
        return s_fail (out, 400, "bad offset");
    if (a->length && !s_parse (a->length, 0, INT64_MAX / 2, &length))
        return s_fail (out, 400, "bad length");
    if (length > WEBLOG_MAX_BYTES)
        length = WEBLOG_MAX_BYTES;
    int fd = s_open (work_dir, parts, out);
    if (fd < 0)
        return out->status;
    int64_t start = offset < 0 ? out->total + offset : offset;
    start = start < 0 ? 0 : start > out->total ? out->total : start;
    int64_t n = out->total - start < length ? out->total - start : length;
    out->offset = start;
    out->data = malloc ((size_t) n + 1);
    ssize_t got = out->data ? pread (fd, out->data, (size_t) n, start) : -1;
    close (fd);
    if (got < 0) {
        free (out->data);
        out->data = NULL;
        return s_fail (out, 500, "cannot read the log");
    }
    out->len = (size_t) got;
    out->status = 200;
    return 200;
}
