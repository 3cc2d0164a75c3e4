/*  pidfile.c - locked pid files; see pidfile.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "libcore/pidfile.h"
#include "libcore/safefile.h"

struct hearth_pidfile {
    char *path; /* where it is (owned) */
    int fd;     /* open and locked */
};

/* Longest pid line we write or read. */
#define PID_TEXT_MAX 32

pid_t
hearth_pidfile_read (const char *path)
{
    char text[PID_TEXT_MAX] = "";
    FILE *f = fopen (path, "re");
    if (!f)
        return -1;
    size_t n = fread (text, 1, sizeof text - 1, f);
    fclose (f);
    text[n] = '\0';
    char *end;
    long pid = strtol (text, &end, 10);
    if (end == text || pid <= 0 || (*end && *end != '\n'))
        return -1;
    return (pid_t) pid;
}

int
hearth_pid_lock (const char *path, const char *what, int mode, bool *held,
                 hearth_error_t *err)
{
    *held = false;
    /* pid files live in shared directories (/run, /tmp): a link left at
       the name is refused, never written through (safefile.h) */
    int fd = hearth_file_reopen (path, O_RDWR | O_CREAT, (mode_t) mode);
    if (fd < 0)
        return hearth_errprintf (err, "cannot open %s%s: %s", what, path,
                                 hearth_file_why (errno));
    if (flock (fd, LOCK_EX | LOCK_NB) < 0) {
        *held = errno == EWOULDBLOCK;
        hearth_errprintf (err, "cannot lock %s%s: %s", what, path,
                          strerror (errno));
        close (fd);
        return -1;
    }
    char text[PID_TEXT_MAX];
    int n = snprintf (text, sizeof text, "%d\n", (int) getpid ());
    if (ftruncate (fd, 0) < 0 || pwrite (fd, text, (size_t) n, 0) != n) {
        hearth_errprintf (err, "cannot write the pid into %s%s: %s", what, path,
                          strerror (errno));
        close (fd);
        return -1;
    }
    return fd;
}

hearth_pidfile_t *
hearth_pidfile_open (const char *path, hearth_error_t *err)
{
    hearth_pidfile_t *self = calloc (1, sizeof *self);
    if (!self || !(self->path = strdup (path))) {
        free (self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    bool held;
    self->fd = hearth_pid_lock (path, "the pid file ", 0644, &held, err);
    if (self->fd < 0) {
        if (held)
            hearth_errprintf (err,
                              "the pid file %s is held by process %d: "
                              "already running?",
                              path, (int) hearth_pidfile_read (path));
        free (self->path);
        free (self);
        return NULL;
    }
    return self;
}

void
hearth_pidfile_close (hearth_pidfile_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    close ((*self_p)->fd);
    free ((*self_p)->path);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

void
hearth_pidfile_remove (hearth_pidfile_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    unlink ((*self_p)->path);
    errno = saved;
    hearth_pidfile_close (self_p);
}
