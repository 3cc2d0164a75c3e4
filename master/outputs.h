/*  outputs.h - an application's outputs table (issue 39): what its driver
    would lose if it died, as the driver reports it (OUTPUTS_RECORDED),
    for a driver that resumes the application to start from
    (APPLICATION_OUTPUTS).

    An output is a map output on a worker or a committed part file of a
    stage, the stage known by its fingerprint: an object of
    docs/protocol.md's "output" (stage, kind, index, and what says where
    it is).  The table keeps the latest output per (stage, kind, index): a
    later one replaces it, one with `lost` removes it.  It is bounded: a
    batch that would take it past its bound is refused whole.

    Pure code (no clock, no I/O), unit-tested in tests/unit/test_outputs.c;
    the registry owns one table per application (reg_app's outputs) and
    journals each batch it applies (records.c, "outs").

    Ownership: the table copies what it is given; batches it hands out
    are new arrays that the callback takes.
*/
#ifndef HEARTH_MASTER_OUTPUTS_H
#define HEARTH_MASTER_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The default bound of one application's table, in outputs. */
#define OUTPUTS_MAX 4000000
/* Outputs in one APPLICATION_OUTPUTS (and one journal record of a
   snapshot). */
#define OUTPUTS_BATCH_MAX 10000

typedef struct outputs outputs_t;

/* A new, empty table of at most max outputs (0: OUTPUTS_MAX), or NULL on
   no memory. */
outputs_t *outputs_new (size_t max);

/* Free the table.  Accepts NULL and a NULL *self_p; nulls the pointer;
   keeps errno. */
void outputs_destroy (outputs_t **self_p);

/* Outputs in the table. */
size_t outputs_size (const outputs_t *self);

/* The highest shuffle_id any output applied so far named (removed ones
   too: a resumed driver numbers its new stages above it), or -1. */
int64_t outputs_max_shuffle_id (const outputs_t *self);

/* Raise the highest shuffle_id to at least id (a snapshot's record says
   it, for outputs no longer in the table). */
void outputs_note_shuffle_id (outputs_t *self, int64_t id);

/* Apply the array of outputs (borrowed; objects as the schema checks
   them), in order.  An element without a string stage, a kind of "map"
   or "part" and an integer index is skipped.  Returns how many were
   applied, or -1 with errno ENOSPC when the batch would take the table
   past its bound (nothing applied; duplicates inside the batch are
   counted as new), or ENOMEM (the table may hold part of the batch). */
int outputs_apply (outputs_t *self, const cJSON *outputs);

/* Which outputs a listing keeps (output: borrowed, one of the table's);
   NULL keeps them all. */
typedef bool (outputs_keep_fn) (void *arg, const cJSON *output);

/* Told each batch of a listing: an array (taken) of at most max outputs,
   and whether it is the last.  Returns 0, or -1 to stop the listing. */
typedef int (outputs_batch_fn) (void *arg, cJSON *batch, bool last);

/* List the table in batches of at most max outputs (0: OUTPUTS_BATCH_MAX)
   that keep() keeps, in no particular order: fn is called at least once
   (an empty table, or one whose every output is left out, gives one
   empty last batch).  Returns 0, or -1 when fn stopped it or on no
   memory. */
int outputs_list (const outputs_t *self, size_t max, outputs_keep_fn *keep,
                  void *keep_arg, outputs_batch_fn *fn, void *fn_arg);

#endif
