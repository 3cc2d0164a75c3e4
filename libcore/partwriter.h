/*  partwriter.h - a map task's output, routed into R partitions on disk
    (partfmt.h's files), sorted by key within each when asked.

    Bytes come in as a task produces them, in any pieces (a command's
    standard output read a chunk at a time); each line is a record and
    goes to its key's partition (records.h).  Records are held in memory
    up to a budget; past it they are spilled to a file of the same form
    (sorted first, when the stage is sorted), and the end merges the
    spills: concatenated in order (unsorted: a partition's records keep
    the task's order) or merged by key (sorted: records of equal keys keep
    the task's order).  So a map task of any size runs in bounded memory,
    and what a reducer fetches is already in its final order.

    The output appears only whole: DATA and DATA.index are written under
    temporary names and renamed at the end; a writer destroyed before its
    end leaves nothing behind, spills included.
*/
#ifndef HEARTH_PARTWRITER_H
#define HEARTH_PARTWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"
#include "libcore/partfmt.h"

typedef struct {
    const char *path;      /* the data file; the index is PATH.index */
    uint32_t partitions;   /* R: 1..HEARTH_MAX_PARTITIONS */
    bool sort;             /* sort each partition by key */
    size_t memory_bytes;   /* held before a spill (0: 64 MiB) */
    const char *spill_dir; /* where spills go (NULL: PATH's directory) */
} hearth_partwriter_opts_t;

typedef struct hearth_partwriter hearth_partwriter_t;

/* A writer (opts copied).  NULL with err (a bad count, no memory). */
hearth_partwriter_t *
hearth_partwriter_new (const hearth_partwriter_opts_t *opts,
                       hearth_error_t *err);
/* Take len more bytes of the task's output.  Returns 0, or -1 with err
   (code "io" when a spill cannot be written: a full disk says so). */
int hearth_partwriter_write (hearth_partwriter_t *self, const void *data,
                             size_t len, hearth_error_t *err);
/* The output is complete: a last line without its '\n' is a record too.
   Writes DATA and DATA.index.  Returns 0, or -1 with err (and nothing
   written). */
int hearth_partwriter_finish (hearth_partwriter_t *self, hearth_error_t *err);
/* After a finish: the R partitions as DATA.index has them (borrowed). */
const hearth_part_t *hearth_partwriter_parts (const hearth_partwriter_t *self);
/* Spills written so far (for tests and logs). */
size_t hearth_partwriter_spills (const hearth_partwriter_t *self);
/* Free the writer; before a finish, remove what it wrote.  Accepts NULL
   and a NULL *self_p; sets *self_p to NULL; keeps errno. */
void hearth_partwriter_destroy (hearth_partwriter_t **self_p);

#endif
