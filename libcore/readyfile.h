/*  readyfile.h - a daemon's ready file: writing it, waiting for it.

    A master started with --ready-file writes its URL on the first line of
    that file once it serves (a temporary file renamed into place, so a
    reader sees all of it or nothing).  Whoever started it, or starts
    beside it, waits for the file: a local cluster's driver, and a worker
    given --master-file, which loads and sets itself up while its master
    does and connects once the URL is there.
*/
#ifndef HEARTH_READYFILE_H
#define HEARTH_READYFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libcore/error.h"

/* Write text to path as a reader must see it: all or nothing (a new
   temporary file, PATH.tmp.PID, renamed over path).  The directory may
   be shared (/tmp): the temporary file is created new, whatever was left
   at its name removed (a link, never what it names), and the rename
   replaces whatever is at path, never following it (libcore/safefile.h).
   Returns 0, or -1 with err. */
int hearth_ready_file_write (const char *path, const char *text,
                             hearth_error_t *err);

/* The first line of path, without its line end, into buf.  Returns 1
   when it was read and is not empty, 0 when the file is not there (yet)
   or its first line is empty. */
int hearth_ready_file_read (const char *path, char *buf, size_t size);

/* Sleep *us microseconds, then double *us up to max_us: a poll that sees
   a quick event at once and a slow one without spinning. */
void hearth_backoff_sleep (useconds_t *us, useconds_t max_us);

/* Wait up to timeout_ms for path's first line (hearth_ready_file_read),
   looking every 0.1 ms at first, then less often, up to every 10 ms.
   Returns 0, or -1 with err ("FILE did not appear within N ms"). */
int hearth_ready_file_wait (const char *path, char *buf, size_t size,
                            int64_t timeout_ms, hearth_error_t *err);

#endif
