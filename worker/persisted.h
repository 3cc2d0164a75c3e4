/*  persisted.h - a worker's persisted map outputs on disk, and its
    --cache-disk budget for them (issue 38).

    A persisted stage's map outputs (libhearth/persist.h) stay on the
    workers after their job, for later jobs; its executors mark its
    shuffle's directory (HEARTH_PERSISTED_MARK, libcore/partfmt.h).  The
    worker sums those outputs' bytes when it counts its shuffle directory,
    and when they are over --cache-disk removes the least recently used
    (by their index's time: written, or last served to another node's
    reader; a read by an executor of this node, in place, does not count)
    until they fit: a later job that reads one finds it
    missing and makes it again from its lineage, as when a worker is lost.
    Other map outputs are never removed here (their job reads them now).
*/
#ifndef HEARTH_WORKER_PERSISTED_H
#define HEARTH_WORKER_PERSISTED_H

#include <stddef.h>
#include <stdint.h>

/* The bytes of persisted map outputs under root (ROOT/APP_ID/SHUFFLE/
   M.A and M.A.index in marked directories).  With a budget (0: none),
   the oldest outputs go first until the rest fit; *evicted (may be NULL)
   counts those removed.  Nothing is followed through a link. */
uint64_t persisted_sweep (const char *root, uint64_t budget, size_t *evicted);

#endif
