/*  blockmerge.h - a reduce task's input: the blocks of its partition,
    one per map task, read back as one stream of records.

    Each block is stored bytes in the form of partfmt.h (frames, each
    checked before use): a file fetched from another node's worker, or a
    partition of a map output on this node, read where its map task left
    it.  Unsorted, the stream is the blocks one after the other, in
    map-task order.  Sorted, it is their merge by key (kmerge.h: records
    of equal keys in map-task order), with at most max_fanin blocks open
    at once: past that, groups of blocks are first merged into larger
    sorted files in tmp_dir (each merge pass reads and writes the data
    once), so that the memory a reducer needs does not grow with the
    number of map tasks.
*/
#ifndef HEARTH_BLOCKMERGE_H
#define HEARTH_BLOCKMERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"

/* Where one block's stored bytes are. */
typedef struct {
    const char *path; /* the file (NULL for an empty block) */
    uint64_t offset;  /* of the block's first frame */
    uint64_t length;  /* its stored bytes (0: an empty block) */
} hearth_block_ref_t;

typedef struct hearth_blockmerge hearth_blockmerge_t;

/* A stream over n blocks (copied; empty ones skipped), in map-task
   order; sorted: merged by
   key with at most max_fanin open (0: 64); intermediate files go to
   tmp_dir and are removed by destroy.  NULL with err. */
hearth_blockmerge_t *hearth_blockmerge_new (const hearth_block_ref_t *blocks,
                                            size_t n, bool sorted,
                                            size_t max_fanin,
                                            const char *tmp_dir,
                                            hearth_error_t *err);
/* The next record ('\n' included; borrowed until the next call).
   Returns 1, 0 at the end, or -1 with err (a block's checksum, a read
   error: code "checksum", "truncated", "io"). */
int hearth_blockmerge_next (hearth_blockmerge_t *self, const char **rec,
                            size_t *len, hearth_error_t *err);
/* The next records, whole, up to max bytes (or one longer record): an
   unsorted stream's blocks handed on as they were read, without a look
   at each record; sorted, one record, as hearth_blockmerge_next.  Mixing
   the two calls on one unsorted stream keeps the order.  Returns 1 with
   *data and *len (borrowed until the next call), 0 at the end, or -1
   with err, as hearth_blockmerge_next. */
int hearth_blockmerge_next_run (hearth_blockmerge_t *self, size_t max,
                                const char **data, size_t *len,
                                hearth_error_t *err);
/* Merge passes done before the final one (for tests and logs). */
size_t hearth_blockmerge_passes (const hearth_blockmerge_t *self);
/* Free it and remove its intermediate files.  Accepts NULL and a NULL
 *self_p; sets *self_p to NULL; keeps errno. */
void hearth_blockmerge_destroy (hearth_blockmerge_t **self_p);

#endif
