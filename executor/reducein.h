/*  reducein.h - a reduce task's input: partition P of every map output of
    a shuffle, fetched (fetch.h), merged (libcore/blockmerge.h), and read
    as a stream a chunk at a time or gathered into memory.

    The blocks arrive as LAUNCH_TASKS's "reduce" role (docs/protocol.md,
    "reduce role"): a frame of one record per map task naming its server,
    attempt and length.  Blocks of this node (the server's URL is the
    executor's own --shuffle-url, or the record names none, as in
    local[N]) are read where their map task left them; the others are
    fetched into WORK_DIR/.reduce-TID.ATTEMPT, removed at the end.

    A block that cannot be had is a fetch failure, kept for the update's
    "fetch_failed" (the driver runs its map task again); so is a block of
    this node whose checksum is wrong when it is read (fetched blocks are
    checked as they arrive).  Used by shuffletask.c on the task's thread.
*/
#ifndef HEARTH_EXECUTOR_REDUCEIN_H
#define HEARTH_EXECUTOR_REDUCEIN_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "executor/executor.h"

typedef struct reducein reducein_t;

/* The input of a "reduce" role (checked by the decoder), its blocks read
   from sf's frames (borrowed; copied).  NULL on no memory. */
reducein_t *reducein_from_json (const cJSON *reduce, const shared_frames_t *sf);

/* Free it, closing it first.  Accepts NULL and a NULL *self_p; nulls the
   pointer; keeps errno. */
void reducein_destroy (reducein_t **self_p);

/* On t's thread: fetch the blocks and open the merged stream; gather:
   read all of it into memory now (a function's input), at most ex's
   max_input_bytes.  A kill of t (t->killed) stops the fetch.  Returns 0, or -1
   with *error (caller frees; NULL on no memory) and, for a map output that
   could not be had, the failure kept (reducein_failure). */
int reducein_open (reducein_t *self, executor_t *ex, const task_t *t,
                   bool gather, char **error);

/* The gathered input: true with *data and *len (borrowed until
   reducein_close), if it was gathered. */
bool reducein_gathered (const reducein_t *self, const void **data, size_t *len);

/* The next piece of the stream (whole records, up to a chunk, or one
   longer record): 1 with *data and *len (borrowed until the next call),
   0 at its end, -1 with *error (caller frees) and maybe a failure kept.
   After an error or the end, it stays there. */
int reducein_next (reducein_t *self, const void **data, size_t *len,
                   char **error);

/* Close the stream, free the gathered input, remove the fetched blocks
   (the failure, if any, is kept). */
void reducein_close (reducein_t *self);

/* Whether the input is in the executor's cache of persisted stages'
   inputs (partcache.h): found there, or put there as it was read. */
bool reducein_kept (const reducein_t *self);

/* Whether a map output could not be had (a fetch failure). */
bool reducein_failure (const reducein_t *self);

/* Add "fetch_failed" for that failure to update.  0, or -1 on no
   memory. */
int reducein_add_failure (const reducein_t *self, cJSON *update);

#endif
