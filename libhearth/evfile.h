/*  evfile.h - the event log's files: DIR/APP_ID.events, then .events.1,
    .2 ... past the roll size, and the lines written to them from the
    chunks the engine filled (its task events' records made into lines
    there: evrec.h).

    Ownership: the log (eventlog.c) owns it; after evfile_new only its
    writer thread calls evfile_write, and evfile_destroy runs once that
    thread has ended.  evfile_path may be called from any thread.
*/
#ifndef HEARTH_LIBHEARTH_EVFILE_H
#define HEARTH_LIBHEARTH_EVFILE_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"

typedef struct evfile evfile_t;

/* The files of app_id's log in dir (an existing directory; both
   copied), rolling to the next once one would pass roll_bytes (0:
   never); the first file is created now.  NULL with err set. */
evfile_t *evfile_new (const char *dir, const char *app_id, uint64_t roll_bytes,
                      hearth_error_t *err);
/* Sync and close the current file.  Accepts NULL; nulls the pointer;
   keeps errno. */
void evfile_destroy (evfile_t **self_p);
/* Write the len bytes of a chunk, in order: each record (its first byte
   evrec_is_record) as its line, each line as it is; whole lines, one
   write(2) a megabyte.  A failure is logged once, and the rest lost. */
void evfile_write (evfile_t *self, const char *data, size_t len);
/* The first file's path (borrowed). */
const char *evfile_path (const evfile_t *self);

#endif
