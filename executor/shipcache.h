/*  shipcache.h - the node's cache of shipped files and libraries: one
    directory that the application's executors on a node share (the
    worker's WORK_DIR/APP_ID/.ship, local[N]'s WORK_DIR/.ship, or an
    executor's own WORK_DIR/.files when it was given none), each entry
    HASH-NAME, the bytes whose SHA-1 is HASH.

    An entry is only ever made by renaming a complete file whose hash was
    checked (shipfetch.c), so a name that is there holds the right bytes;
    what is at a name is used only when it is a regular file of the
    expected size, opened without following a link: a symbolic link
    planted at an entry's name is never followed, and a fetch renames the
    real file over it.

    Two executors of a node do not fetch one entry at once: the first
    creates ENTRY's claim (".ENTRY.claim", O_EXCL) and fetches into a
    file of its own (".ENTRY.PID.part"), touching the claim as chunks
    arrive; the others wait for the entry.  A claim untouched for the
    cache's stale_ms (its holder died or hangs) is taken over.  The
    directory goes with the application's other files (docs/jobs.md,
    "Files").
*/
#ifndef HEARTH_EXECUTOR_SHIPCACHE_H
#define HEARTH_EXECUTOR_SHIPCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"

typedef struct shipcache shipcache_t;

/* Open the cache at dir (made, mode 0700, when missing; a symbolic link
   there is refused), claims stale after stale_ms.  NULL with err. */
shipcache_t *shipcache_new (const char *dir, int64_t stale_ms,
                            hearth_error_t *err);
/* Accepts NULL; nulls the pointer; keeps errno.  Removes nothing. */
void shipcache_destroy (shipcache_t **self_p);

/* The cache's absolute path (borrowed). */
const char *shipcache_dir (const shipcache_t *self);

/* Whether entry is there: a regular file (not a link, never followed)
   of size bytes. */
bool shipcache_has (const shipcache_t *self, const char *entry, uint64_t size);

/* Claim entry for this process: 1 when it is ours now (a stale claim
   taken over), 0 when another holds a fresh one, -1 with err. */
int shipcache_claim (shipcache_t *self, const char *entry, hearth_error_t *err);
/* Tell the waiting ones that our claim of entry is alive. */
void shipcache_touch (const shipcache_t *self, const char *entry);

/* A new, empty file for our fetch of entry, mode 0600 (anything left at
   its name is replaced).  The fd (close-on-exec, read-write), or -1 with
   err. */
int shipcache_part (shipcache_t *self, const char *entry, hearth_error_t *err);

/* The progress file of our fetch of entry, .ENTRY.have, new (anything
   at its name replaced): a header of SHIPCACHE_HAVE_HEADER bytes naming
   our part file (our pid, decimal, NUL-padded), then nchunks bytes of
   0, one per chunk, which shipcache_have_mark() sets to 1.  The node's
   worker reads it to serve the chunks we hold before the file is
   complete (worker/shipserve.h).  The fd (close-on-exec), or -1 with
   err. */
#define SHIPCACHE_HAVE_HEADER 16
int shipcache_have (shipcache_t *self, const char *entry, size_t nchunks,
                    hearth_error_t *err);
/* Chunk c is in our part file, checked: marked in progress file fd (a
   failed write only keeps other nodes from taking it from us). */
void shipcache_have_mark (int fd, size_t c);

/* Our fetch of entry is complete and checked: it becomes entry, mode
   mode (what was at that name, a link included, is replaced), and our
   claim and progress file go.  0, or -1 with err. */
int shipcache_commit (shipcache_t *self, const char *entry, int mode,
                      hearth_error_t *err);

/* Our fetch of entry ends unfinished: its file, progress file and our
   claim go. */
void shipcache_abandon (shipcache_t *self, const char *entry);

#endif
