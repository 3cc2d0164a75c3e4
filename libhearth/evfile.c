/*  evfile.c - the event log's files and what its writer thread writes to
    them; see evfile.h.

    The writer makes the lines of a chunk's records into its own buffer
    (a megabyte: each write(2) writes that much, never a line; a larger
    line gets a larger buffer) and copies the chunk's lines beside them,
    so the file keeps the order in which the engine stored the events.
    It rolls to the next file between lines, never inside one (unless one
    line alone is larger than the roll size), and syncs a file only when
    it leaves it: at a roll and at the end, never in between.

    The directory may be shared and the names are easy to guess (an
    application id is a time and a sequence number or a pid): each file
    is created new, O_EXCL | O_NOFOLLOW (libcore/safefile.h), so that a
    link or a file someone left at its name is never written through nor
    overwritten.  A first file whose name is taken fails the start, as
    Spark's event log does without spark.eventLog.overwrite; a rolled one
    ends the log there, said once.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/fstree.h"
#include "libcore/log.h"
#include "libcore/safefile.h"
#include "libhearth/evfile.h"
#include "libhearth/evrec.h"

/* The buffer of lines: what one write(2) writes at most. */
static const size_t s_out_bytes = 1024 * 1024;

struct evfile {
    char *dir;           /* the directory */
    char *app_id;        /* the files' stem */
    char path[4096];     /* the first file */
    uint64_t roll_bytes; /* roll past this many bytes, 0: never */
    int fd;              /* the current file, or -1 */
    unsigned file_no;    /* 0: APP.events, n: APP.events.n */
    uint64_t file_bytes; /* bytes in the current file */
    bool failed;         /* a write failed: said once */
    char *out;           /* the lines being made from a chunk */
    size_t out_len;      /* bytes in out */
    size_t out_size;     /* its size */
    evrec_cache_t cache; /* what the last record's line left */
};

static void
s_file_path (const evfile_t *self, unsigned n, char *buf, size_t size)
{
    if (n == 0)
        snprintf (buf, size, "%s/%s.events", self->dir, self->app_id);
    else
        snprintf (buf, size, "%s/%s.events.%u", self->dir, self->app_id, n);
}

static int
s_open_file (evfile_t *self, unsigned n)
{
    char path[4096];
    s_file_path (self, n, path, sizeof path);
    self->fd = hearth_file_create (path, O_WRONLY, 0644, false);
    self->file_no = n;
    self->file_bytes = 0;
    return self->fd < 0 ? -1 : 0;
}

static void
s_write_failed (evfile_t *self, const char *what)
{
    if (!self->failed)
        log_error ("event log %s: %s: %s; events are lost", self->path, what,
                   hearth_file_why (errno));
    self->failed = true;
}

/* The next file: the current one synced and closed first. */
static void
s_roll (evfile_t *self)
{
    if (self->fd >= 0) {
        fdatasync (self->fd);
        close (self->fd);
    }
    if (s_open_file (self, self->file_no + 1) < 0) {
        int saved = errno;
        char what[4200];
        snprintf (what, sizeof what, "cannot create its next file %s.events.%u",
                  self->app_id, self->file_no);
        errno = saved;
        s_write_failed (self, what);
    }
}

/* Write whole lines, rolling between lines: a file never passes
   roll_bytes unless one line alone does. */
static void
s_write_lines (evfile_t *self, const char *data, size_t len)
{
    while (len > 0 && self->fd >= 0) {
        size_t n = len;
        uint64_t room = self->roll_bytes - self->file_bytes;
        if (self->roll_bytes && self->file_bytes + len > self->roll_bytes) {
            /* the last newline that fits, else (an empty file) one line */
            const char *nl = room ? memrchr (data, '\n', room) : NULL;
            if (!nl && self->file_bytes > 0) {
                s_roll (self);
                continue;
            }
            if (!nl)
                nl = memchr (data, '\n', len);
            n = nl ? (size_t) (nl - data) + 1 : len;
        }
        if (hearth_write_all (self->fd, data, n) < 0) {
            s_write_failed (self, "cannot write");
            return;
        }
        self->file_bytes += n;
        data += n;
        len -= n;
        if (len > 0)
            s_roll (self);
    }
}

/* Write the lines made so far. */
static void
s_flush_out (evfile_t *self)
{
    s_write_lines (self, self->out, self->out_len);
    self->out_len = 0;
}

/* Room for need more bytes in out: false (the record is lost) only when
   a line larger than out cannot get the memory. */
static bool
s_out_room (evfile_t *self, size_t need)
{
    if (self->out_len + need <= self->out_size)
        return true;
    s_flush_out (self);
    if (need <= self->out_size)
        return true;
    char *bigger = realloc (self->out, need);
    if (!bigger) {
        log_error ("event log %s: no memory for a line of %zu bytes; "
                   "one event lost",
                   self->path, need);
        return false;
    }
    self->out = bigger;
    self->out_size = need;
    return true;
}

/* The records made into lines, the lines copied (one written as it is
   when large), all written in their order. */
void
evfile_write (evfile_t *self, const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    while (p < end) {
        if (evrec_is_record (*p)) {
            if (s_out_room (self, evrec_line_max (p)))
                self->out_len =
                    (size_t) (evrec_format (self->out + self->out_len, p,
                                            &self->cache)
                              - self->out);
            p += evrec_length (p);
            continue;
        }
        const char *nl = memchr (p, '\n', (size_t) (end - p));
        size_t n = nl ? (size_t) (nl - p) + 1 : (size_t) (end - p);
        if (n > s_out_bytes / 4) {
            s_flush_out (self);
            s_write_lines (self, p, n);
        }
        else if (s_out_room (self, n)) {
            memcpy (self->out + self->out_len, p, n);
            self->out_len += n;
        }
        p += n;
    }
    s_flush_out (self);
}

evfile_t *
evfile_new (const char *dir, const char *app_id, uint64_t roll_bytes,
            hearth_error_t *err)
{
    evfile_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->fd = -1;
    self->roll_bytes = roll_bytes;
    self->dir = strdup (dir);
    self->app_id = strdup (app_id);
    self->out_size = s_out_bytes;
    self->out = malloc (self->out_size);
    if (!self->dir || !self->app_id || !self->out) {
        hearth_errprintf (err, "out of memory");
        goto error;
    }
    s_file_path (self, 0, self->path, sizeof self->path);
    if (s_open_file (self, 0) < 0) {
        hearth_errprintf (err, "cannot create the event log %s: %s", self->path,
                          hearth_file_why (errno));
        goto error;
    }
    return self;
error:
    evfile_destroy (&self);
    return NULL;
}

void
evfile_destroy (evfile_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    evfile_t *self = *self_p;
    if (self->fd >= 0) {
        fdatasync (self->fd);
        close (self->fd);
    }
    free (self->out);
    free (self->dir);
    free (self->app_id);
    free (self);
    *self_p = NULL;
    errno = saved;
}

const char *
evfile_path (const evfile_t *self)
{
    return self->path;
}
