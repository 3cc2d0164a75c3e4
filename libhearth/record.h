/*  record.h - the outputs a driver would lose if it died, told to the
    master as they happen (issue 39, OUTPUTS_RECORDED).

    Each output a stage leaves behind outside the driver is recorded
    under the stage's fingerprint (fingerprint.h): a map output on a
    worker (a partitioned stage's, or one read whole: which block server
    holds it, the worker, its blocks' sizes, the attempt, the shuffle id
    its files lie under) and a committed part file (its name, the host of
    the executor that committed it, its size).  What lives only in the
    driver (results, small outputs it kept: inlineout.h; outputs on the
    driver's own node in local[N]) is not.  The records wait here and go
    in batches, as soon as the engine has handled the updates that made
    them, while the link to the master is up.  A master that died meanwhile
    (restarted, or a standby that took over) may never have had some:
    once the driver has registered again, every output of every stage it
    still runs is told again (the master keeps the latest of each, so a
    record told twice costs only its bytes).
    A resumed driver gets them back from the master (resume.h).
*/
#ifndef HEARTH_LIBHEARTH_RECORD_H
#define HEARTH_LIBHEARTH_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "libhearth/internal.h"
#include "libhearth/shuffle.h"

/* Most outputs in one OUTPUTS_RECORDED. */
#define RECORD_BATCH 2000

typedef struct record record_t;

/* An empty list.  NULL on no memory. */
record_t *record_new (void);
/* Accepts NULL and a NULL *self_p; nulls it; keeps errno. */
void record_destroy (record_t **self_p);

/* Task index of st was accepted: its output, if it lies outside the
   driver, waits to be told (servers: the block servers' table).  On no
   memory it is not recorded (logged once): a resumed driver runs that
   task again. */
void record_output (record_t *self, const hearth_stage_t *st, uint64_t index,
                    const shuffle_servers_t *servers);

/* Every output of st there is now (its map outputs on block servers,
   its committed part files), waiting to be told again: after the driver
   registered again with a master (restarted, or a standby that took
   over), which may never have had those told while it was gone. */
void record_stage (record_t *self, const hearth_stage_t *st,
                   const shuffle_servers_t *servers);

/* The outputs waiting, up to RECORD_BATCH, as a new array (caller owns;
   they are no longer waiting), or NULL when none wait. */
cJSON *record_take (record_t *self);

/* Put back a batch taken (consumed) that could not be sent, in front. */
void record_put_back (record_t *self, cJSON *batch);

/* Outputs waiting; outputs recorded since the start. */
size_t record_waiting (const record_t *self);
uint64_t record_total (const record_t *self);

#endif
