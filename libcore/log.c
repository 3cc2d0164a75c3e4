/*  log.c - the process's logger; see log.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "libcore/ctlchars.h"
#include "libcore/log.h"
#include "libcore/safefile.h"

static const char *const s_level_names[] = {"ERROR", "WARN", "INFO", "DEBUG"};

/* Process-wide logger state (see the note in log.h). */
static struct {
    char component[64];       /* e.g. "hearth-master" */
    hearth_log_level_t level; /* messages above this level are dropped */
    char *path;               /* log file, or NULL for stderr */
    int fd;                   /* where lines go: 2 or the file */
    pthread_mutex_t lock;     /* task threads log too */
} s_log = {"hearth", HEARTH_LOG_INFO, NULL, 2, PTHREAD_MUTEX_INITIALIZER};

int
hearth_log_level_parse (const char *text)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    if (!text)
        return -1;
    for (int i = 0; i < 4; i++)
        if (strcasecmp (text, names[i]) == 0)
            return i;
    if (strcasecmp (text, "warning") == 0)
        return HEARTH_LOG_WARN;
    return -1;
}

/* A log directory may be shared: a link left at the file's name is
   refused, never appended through (safefile.h). */
static int
s_open_file (const char *path)
{
    return hearth_file_reopen (path, O_WRONLY | O_CREAT | O_APPEND, 0640);
}

int
hearth_log_open (const char *component, const char *level, const char *path,
                 hearth_error_t *err)
{
    int lvl = level ? hearth_log_level_parse (level) : HEARTH_LOG_INFO;
    if (lvl < 0)
        return hearth_errprintf (err,
                                 "unknown log level '%s' (expected error, "
                                 "warn, info or debug)",
                                 level);
    int fd = 2;
    if (path && *path && strcmp (path, "-") != 0) {
        fd = s_open_file (path);
        if (fd < 0)
            return hearth_errprintf (err, "cannot open log file %s: %s", path,
                                     hearth_file_why (errno));
    }
    hearth_log_close ();
    if (component)
        snprintf (s_log.component, sizeof s_log.component, "%s", component);
    s_log.level = lvl;
    s_log.fd = fd;
    s_log.path = fd == 2 ? NULL : strdup (path);
    return 0;
}

int
hearth_log_reopen (void)
{
    if (!s_log.path)
        return 0;
    int fd = s_open_file (s_log.path);
    if (fd < 0)
        return -1;
    pthread_mutex_lock (&s_log.lock);
    int old = s_log.fd;
    s_log.fd = fd;
    pthread_mutex_unlock (&s_log.lock);
    close (old);
    return 0;
}

void
hearth_log_close (void)
{
    if (s_log.fd != 2)
        close (s_log.fd);
    s_log.fd = 2;
    free (s_log.path);
    s_log.path = NULL;
}

int
hearth_log_enabled (hearth_log_level_t level)
{
    return level <= s_log.level;
}

/* The message (len bytes at text, in a buffer of size bytes) with its
   control characters escaped, so that one call is one line whatever a
   peer's text held: a newline cannot forge a record, an ESC cannot reach
   the terminal that reads the log (ctlchars.h).  Cut to fit.  Returns
   the new length. */
static size_t
s_escape (char *text, size_t len, size_t size)
{
    size_t at = hearth_ctl_find (text, len);
    if (at == len)
        return len; /* the common case: nothing to copy */
    char rest[2048];
    size_t tail = len - at;
    memcpy (rest, text + at, tail);
    return at + hearth_ctl_escape (text + at, size - at, rest, tail);
}

void
hearth_log (hearth_log_level_t level, const char *fmt, ...)
{
    if (level > s_log.level)
        return;
    int saved = errno;
    char line[2048];
    struct timeval tv;
    struct tm tm;
    gettimeofday (&tv, NULL);
    gmtime_r (&tv.tv_sec, &tm);
    int n = snprintf (line, sizeof line,
                      "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %s[%d] %s ",
                      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                      tm.tm_min, tm.tm_sec, (int) (tv.tv_usec / 1000),
                      s_log.component, (int) getpid (), s_level_names[level]);
    va_list ap;
    va_start (ap, fmt);
    int text = n;
    n += vsnprintf (line + n, sizeof line - n - 1, fmt, ap);
    va_end (ap);
    if (n > (int) sizeof line - 2)
        n = sizeof line - 2;
    n = text
        + (int) s_escape (line + text, (size_t) (n - text),
                          sizeof line - 1 - (size_t) text);
    line[n++] = '\n';
    pthread_mutex_lock (&s_log.lock);
    ssize_t rc = write (s_log.fd, line, n);
    pthread_mutex_unlock (&s_log.lock);
    (void) rc; /* nowhere better to report a failed log write */
    errno = saved;
}
