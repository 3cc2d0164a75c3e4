/*  jobstream.h - a job file read as a stream, with yajl's callbacks.

    The file is read in chunks and parsed once.  Everything but the
    simple tasks of each stage's "tasks" array becomes a cJSON tree, as
    cJSON_Parse would make it; a simple task ({"fn": F, "arg": A} or
    {"cmd": [strings]}: only those keys, once each, strings, fn and cmd
    not empty) goes to the store, and the array gets its placeholder
    (jobstore.h).  Any other task is a tree, which the checks then judge
    as before (jobcheck.c).  yajl was chosen over a parser of our own:
    Debian's libyajl-dev, a callback parser made for streams, about 400
    MB/s here (docs/design-changes.md).  Only the plainest simple tasks
    that follow a task of a "tasks" array, nearly all of a big file, are
    read without it (jobfast.h), to the same store.
*/
#ifndef HEARTH_JOBFILE_JOBSTREAM_H
#define HEARTH_JOBFILE_JOBSTREAM_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "jobfile/jobstore.h"
#include "libcore/error.h"

/* Read path (name, for messages) from f in chunks of chunk bytes (0: the
   default), at most max_bytes.  A new tree in *root (an object, the
   caller deletes) and a new store in *store (the caller destroys).
   Returns 0, or -1 with err: "NAME:LINE:COL: not valid JSON here", "NAME:
   the job must be a JSON object", "NAME: not a readable file of at most
   N bytes", a read error, no memory. */
int jobstream_read (FILE *f, const char *name, size_t chunk, size_t max_bytes,
                    cJSON **root, jobstore_t **store, hearth_error_t *err);

#endif
