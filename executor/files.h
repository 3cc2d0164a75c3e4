/*  files.h - what the driver ships, kept by content hash: the store that
    the libraries (libs.c) and the application's files share, and the
    files (--files) put into the work dir, where command tasks read them
    by name.  No state: each call works on the directories it is given.
*/
#ifndef HEARTH_EXECUTOR_FILES_H
#define HEARTH_EXECUTOR_FILES_H

#include <stddef.h>

#include <czmq.h>

#include "libcore/error.h"

/* Keep frame (borrowed) as dir/HASH-NAME, created with mode, unless it
   is there already (the cache): its SHA-1 must be hash (hex, any case),
   hash and name safe file names.  what names it in errors ("library",
   "file").  The path into path (size bytes).  Returns 0, or -1 with err. */
int files_store (const char *dir, const char *what, const char *name,
                 const char *hash, zframe_t *frame, int mode, char *path,
                 size_t size, hearth_error_t *err);

/* A shipped file: kept in WORK_DIR/.files by files_store(), then linked
   (or copied, where a link is refused) to work_dir/name, replacing what
   was there.  The owner's execute bit of mode is kept.  name must not be
   one the work dir holds already (libs, stdout, stderr).  Returns 0, or
   -1 with err. */
int files_add (const char *work_dir, const char *name, const char *hash,
               int mode, zframe_t *frame, hearth_error_t *err);

#endif
