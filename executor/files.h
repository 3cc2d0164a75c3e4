/*  files.h - the application's shipped files (--files) put into the
    work dir, where command tasks read them by name, from the node's
    cache where they were fetched (shipcache.h, shipfetch.h).  No state:
    each call works on the directories it is given.
*/
#ifndef HEARTH_EXECUTOR_FILES_H
#define HEARTH_EXECUTOR_FILES_H

#include <stddef.h>

#include "libcore/error.h"

/* Put the shipped file kept at cached (an absolute path in the node's
   cache, shipcache.h) into work_dir as name: hard-linked (or copied
   where a link is refused, mode mode) to a temporary name, renamed over
   what was there.  name must be a safe file name and not one the work
   dir holds already (libs, stdout, stderr).  Returns 0, or -1 with
   err. */
int files_place (const char *work_dir, const char *name, const char *cached,
                 int mode, hearth_error_t *err);

#endif
