/*  readyfile.c - a daemon's ready file: writing it, waiting for it; see
    readyfile.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/fstree.h"
#include "libcore/readyfile.h"
#include "libcore/safefile.h"

/* The first look, and the longest pause between two. */
static const useconds_t s_first_pause_us = 100, s_max_pause_us = 10000;

int
hearth_ready_file_write (const char *path, const char *text,
                         hearth_error_t *err)
{
    char tmp[4200];
    if ((size_t) snprintf (tmp, sizeof tmp, "%s.tmp.%d", path, (int) getpid ())
        >= sizeof tmp)
        return hearth_errprintf (err, "path too long: %s", path);
    int fd = hearth_file_create (tmp, O_WRONLY, 0644, true);
    if (fd < 0)
        return hearth_errprintf (err, "cannot write %s: %s", tmp,
                                 hearth_file_why (errno));
    int rc = hearth_write_all (fd, text, strlen (text));
    if (close (fd) < 0)
        rc = -1;
    if (rc == 0 && rename (tmp, path) < 0)
        rc = -1;
    if (rc < 0) {
        int saved = errno;
        unlink (tmp);
        return hearth_errprintf (err, "cannot write %s: %s", path,
                                 strerror (saved));
    }
    return 0;
}

int
hearth_ready_file_read (const char *path, char *buf, size_t size)
{
    FILE *f = fopen (path, "re");
    if (!f)
        return 0;
    bool ok = fgets (buf, (int) size, f) != NULL;
    fclose (f);
    if (!ok)
        return 0;
    buf[strcspn (buf, "\r\n")] = '\0';
    return *buf != '\0';
}

void
hearth_backoff_sleep (useconds_t *us, useconds_t max_us)
{
    usleep (*us);
    if (*us < max_us)
        *us = *us * 2 < max_us ? *us * 2 : max_us;
}

int
hearth_ready_file_wait (const char *path, char *buf, size_t size,
                        int64_t timeout_ms, hearth_error_t *err)
{
    int64_t deadline = hearth_mono_ms () + timeout_ms;
    useconds_t pause = s_first_pause_us;
    for (;;) {
        if (hearth_ready_file_read (path, buf, size))
            return 0;
        if (hearth_mono_ms () >= deadline)
            return hearth_errprintf (err, "%s did not appear within %lld ms",
                                     path, (long long) timeout_ms);
        hearth_backoff_sleep (&pause, s_max_pause_us);
    }
}
