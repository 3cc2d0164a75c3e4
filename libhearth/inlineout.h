/*  inlineout.h - small map outputs of a stage read whole, kept by the
    driver instead of written on their node.

    A stage read whole by another travels as a one-partition shuffle
    (shuffle.h), so that no input of any size passes through the driver.
    Its cost is two files a task on the node that ran it, and a fetch or
    two file reads per task for each reader: 20,000 tasks of one short
    line each took 8 s where the driver's copy of their results had taken
    0.1 s (docs/perf-log/2026-12-07-small-outputs-kept.md).  So, as
    Spark sends a small task result straight back to its driver
    (spark.task.maxDirectResultSize) and a large one through the block
    manager, a small output comes back in its task's FINISHED update
    (map_block, or a packed update's flag 32) as the task wrote it, and
    the driver keeps it (the rule of an output read whole applied: a last
    line without its newline gets one, an empty output is an empty line).
    A reader of a stage whose outputs are all kept gets them as its task
    input (`input`: a function reads it where it lies, as before issue 42;
    no framing, no per-block records); a reader that also fetches gets
    them framed as blocks (the reduce role's "inline" frame) beside the
    blocks it fetches.  Executors do not frame what the driver keeps: a
    tiny task's output then costs what a result costs.

    The driver's memory stays bounded: each stage read whole reserves, at
    submit, at most INLINEOUT_STAGE_MAX bytes a task (less when the
    budget left is shared by many tasks; none under INLINEOUT_MIN) out of
    INLINEOUT_BUDGET for the whole application, and gives the reservation
    back when its job ends.  An executor sends an output only when it is
    shorter than the map role's inline_max (room for its newline), so
    the live outputs fit in what was reserved: those no reader has had
    yet lie in one buffer never larger than the reservation, the others
    in the readers' input frame (of the live ones only), so a stage holds
    at most twice its reservation (three times while a new frame is built
    from both; the framed copy made for readers that also fetch is built
    once from the input frame, and goes with it).  A kept output cannot
    be lost with a worker: it is never run again for that.

    Engine thread only.
*/
#ifndef HEARTH_LIBHEARTH_INLINEOUT_H
#define HEARTH_LIBHEARTH_INLINEOUT_H

#include <stdint.h>

#include <czmq.h>

#include "libcore/taskset.h"
#include "libhearth/internal.h"

/* Stored bytes the driver keeps at most, over all its stages' outputs. */
#define INLINEOUT_BUDGET ((uint64_t) 64 << 20)
/* Stored bytes of one kept output at most. */
#define INLINEOUT_STAGE_MAX (64u * 1024u)
/* Why a FINISHED whose kept output the driver may not take fails. */
#define INLINEOUT_REFUSED                                                      \
    "the executor sent a map output (map_block) of inline_max bytes or "       \
    "more, or for a stage that keeps none"
/* Below this share a task, a stage keeps nothing (its outputs go to
   disk as before). */
#define INLINEOUT_MIN 64u

/* Reserve st's share of *left (the application's budget not reserved):
   sets st->inline_max (0: none) and st->inline_reserved. */
void inlineout_reserve (hearth_stage_t *st, uint64_t *left);

/* Give back the reservations of job's stages to *left, and drop what
   they keep (their map outputs' table: the job has ended) and their
   cached frames. */
void inlineout_release (hearth_job_t *job, uint64_t *left);

/* Whether a FINISHED update's kept output of len bytes may be taken for
   a task of st: shorter than its inline_max (room for the newline it may
   need), and of a stage that keeps. */
bool inlineout_acceptable (const hearth_stage_t *st, size_t len);

/* The task set's state for an update of a task of st that came packed
   with a kept output of len bytes (flag HEARTH_PACKED_MAP_BLOCK): a
   FINISHED whose output st may not keep becomes FAILED, *error saying
   why. */
hearth_ts_state_t inlineout_update_state (const hearth_stage_t *st, size_t len,
                                          hearth_ts_state_t state,
                                          const char **error);

/* Keep the len bytes at output (copied; NULL when len is 0), as the task
   wrote them, as map output index's, written by attempt: it replaces the
   one before.  0, or -1 on no memory. */
int inlineout_keep (hearth_stage_t *st, uint64_t index, uint32_t attempt,
                    const void *output, size_t len);

/* The bytes a kept output of len bytes (its last at last) gives its
   readers: one more when it needs its newline. */
size_t inlineout_bytes (const void *output, size_t len);

/* Forget map output index of st (lost, replaced, or the stage freed). */
void inlineout_drop (hearth_stage_t *st, uint64_t index);

/* Forget every map output of st, and free what holds the kept ones (the
   stage's job ended, or the stage is freed). */
void inlineout_free (hearth_stage_t *st);

/* Whether every task of st has its output kept by the driver. */
bool inlineout_all_kept (const hearth_stage_t *st);

/* The kept outputs of stage in (read whole) in task order, one frame:
   the input of a reader of a stage whose outputs are all kept.  Built at
   the first reader and shared by the others (borrowed), or NULL when it
   keeps nothing or on no memory (*failed set).  The outputs then live in
   that frame only (each map output's kept_at), so that the driver holds
   each once; one kept or dropped since has the next reader build it
   again, from the old frame and the new outputs. */
zframe_t *inlineout_input (hearth_stage_t *in, bool *failed);

/* The same, each output framed as the block a reducer fetches would be
   (the reduce role's "inline", beside fetched blocks; the blocks'
   records give each map output's sizes[0]), built once a version. */
zframe_t *inlineout_frame (hearth_stage_t *in, bool *failed);

#endif
