/*  ship.h - what is shipped to every executor: the libraries of
    function tasks (the "lib" setting) and the application's files (the
    "files" setting, as spark-submit --files).  Each is opened and hashed
    once at start-up; REGISTERED_EXECUTOR names them (name, size, content
    hash, mode), and an executor that lacks one on its node fetches it by
    hash, in chunks (FETCH_FILE, answered FILE_CHUNK), read from the file
    on disk here: nothing is held in memory, there is no bound on the
    size, and a node's executors share one copy (executor/shipfetch.h).
    The bytes sent as chunks are counted (ship_bytes_sent).

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

/* Open and hash the libraries and the files of conf (borrowed, read
   now), after the checks above; each stays open, to be served.  NULL
   with err set when one is refused or cannot be read, or on no
   memory. */
ship_t *ship_new (hearth_conf_t *conf, hearth_error_t *err);
/* Accepts NULL; keeps errno. */
void ship_destroy (ship_t **self_p);

/* Name everything in msg (a REGISTERED_EXECUTOR): "libs" [{name,
   hash, size}] always, "files" [{name, hash, size, mode}] when there are
   files, "broadcast" [{name, hash, size}] when there are broadcast
   files (all of them: the executor registers after they were added).
   No bytes: the executor fetches what it lacks. */
void ship_add (ship_t *self, hearth_msg_t *msg);

/* ---- broadcast files (issue 38) ------------------------------------------
   A file shipped as data: fetched like the others, once per node, but
   left in the node's cache, read-only, where each task finds it by
   HEARTH_BROADCAST_NAME (docs/jobs.md, "Broadcast").  Each is named by
   NAME (its cache entry HASH-NAME); REGISTERED_EXECUTOR names those
   added so far under "broadcast", BROADCAST those added after. */

/* The longest NAME. */
#define SHIP_BROADCAST_NAME_MAX 64

/* Whether name may be a broadcast variable's: [A-Z_][A-Z0-9_]*, at most
   SHIP_BROADCAST_NAME_MAX.  0, or -1 with err saying the rule. */
int ship_broadcast_name_ok (const char *name, hearth_error_t *err);

/* Add the file at path as broadcast variable name (from any thread:
   hashed now, served from then on).  0, or -1 with err (a bad name, one
   named twice, a path that is not a regular file or cannot be read). */
int ship_broadcast_add (ship_t *self, const char *name, const char *path,
                        hearth_error_t *err);

/* The broadcast files added since the last call (or since the start),
   as a "broadcast" list into msg (a BROADCAST); how many (0: nothing
   added, msg untouched). */
size_t ship_broadcast_news (ship_t *self, hearth_msg_t *msg);

/* The answer to a FETCH_FILE (body borrowed, checked by the codec): a
   new FILE_CHUNK with the bytes asked for (at most to the file's end),
   read from the file now; or a new ERROR (code "no_file": no shipped
   item has that hash; "bad_offset": at or past its end; "file_changed":
   the file on disk is not the one hashed at start-up, so its bytes would
   not match; "io": it cannot be read).  NULL on no memory. */
hearth_msg_t *ship_serve (ship_t *self, const cJSON *body);

/* The digest of every library, file and broadcast file shipped (their
   names and content hashes: fingerprint_files) into out
   (FINGERPRINT_LEN + 1 bytes): part of every stage's fingerprint. */
void ship_digest (ship_t *self, char *out);

/* Bytes sent so far in FILE_CHUNK answers. */
uint64_t ship_bytes_sent (const ship_t *self);

#endif
