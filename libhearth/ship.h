/*  ship.h - what is shipped to every executor when it registers: the
    libraries of function tasks (the "lib" setting) and the application's
    files (the "files" setting, as spark-submit --files), read once at
    start-up and sent with each REGISTERED_EXECUTOR, each with its
    content hash (the executor's cache key).

    The files' checks are here too, for hearth-submit to make before it
    runs anything: libhearth makes them again when the context starts.
*/
#ifndef HEARTH_LIBHEARTH_SHIP_H
#define HEARTH_LIBHEARTH_SHIP_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/proto.h"

typedef struct ship ship_t;

/* The largest total of libraries and files: what one message carries to
   an executor (libcore/sock.h's limit of every socket). */
uint64_t ship_max_bytes (void);

/* The paths of conf's "files" setting: every item split at its commas
   (a flag gives "a,b" as one item), empty ones left out.  A new
   NULL-terminated array for ship_paths_destroy(), its length in *count;
   NULL on no memory. */
char **ship_file_paths (const hearth_conf_t *conf, size_t *count);
/* Free an array of ship_file_paths().  Accepts NULL; nulls the pointer. */
void ship_paths_destroy (char ***paths_p);

/* Whether name may be a shipped file's name in an executor's work dir:
   safe as one file name (libcore/ids.h), and not one the work dir holds
   already (the libraries' "libs", a worker's "stdout" and "stderr"). */
bool ship_name_ok (const char *name);

/* Check n paths to ship as files: each a regular file whose base name
   passes ship_name_ok(), no two of one base name.  Adds their sizes to
   *bytes (may be NULL).  0, or -1 with err saying which path and why
   ("PATH: No such file or directory", "PATH: not a regular file", "A and
   B are both called NAME..."). */
int ship_check_files (const char *const *paths, size_t n, uint64_t *bytes,
                      hearth_error_t *err);

/* Read the libraries and the files of conf (borrowed, read now), after
   the checks above and a total of at most ship_max_bytes().  NULL with
   err set when one is refused or cannot be read, or on no memory. */
ship_t *ship_new (hearth_conf_t *conf, hearth_error_t *err);
/* Accepts NULL; keeps errno. */
void ship_destroy (ship_t **self_p);

/* Add everything to msg (a REGISTERED_EXECUTOR): the bytes as frames,
   "libs" [{name, hash, frame}] always, "files" [{name, hash, frame,
   mode}] when there are files. */
void ship_add (const ship_t *self, hearth_msg_t *msg);

#endif
