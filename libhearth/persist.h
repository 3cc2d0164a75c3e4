/*  persist.h - persisted stages read again by later jobs (issue 38).

    A persisted stage (hearth_stage_persist) keeps, after its job has
    succeeded, its map-output table: which block server holds each of its
    tasks' outputs, left on the workers until the application ends.  A
    later job whose stage names it (hearth_stage_input, _after) does not
    point into the earlier job: when it is submitted, the user's thread
    copies the persisted stage into it, and the stages whose outputs that
    one reads in turn (its lineage), as "held" stages named
    "JOB/STAGE": their definitions, so that a lost output can be made
    again by running its task, and their tables as they stand.  The
    engine adds a held stage with the tasks whose outputs are there
    already finished (hearth_taskset_add_stage_held); a task whose output
    is found lost later (a fetch failure, its worker gone) runs again
    like any map task's.  When the reading job has succeeded, its copies'
    tables, with the outputs made again, go back to the stages they copy,
    for the jobs after.  So the engine never touches an ended job's
    stages, and the user may destroy a job whose persisted stage a running
    job reads.
*/
#ifndef HEARTH_LIBHEARTH_PERSIST_H
#define HEARTH_LIBHEARTH_PERSIST_H

#include <stddef.h>

#include "libhearth/internal.h"

/* At submit (the user's thread): copy into job every stage of another
   job that one of its stages names, with their lineage, and point its
   stages at the copies (refused when one named a stage of a job
   destroyed since); and mark the lineage of its own persisted
   stages (their input, its input...), whose tables outlive the job
   too (stage_outlives_job).  0, or -1 with why (size bytes): a stage named
   across jobs that is not persisted (any more), whose job has not
   succeeded, or a name that is taken; no memory. */
int persist_adopt (hearth_job_t *job, char *why, size_t size);

/* job has ended (the user's thread, once it knows): when it succeeded,
   its copies' tables replace those of the stages they copy, which then
   know the outputs made again.  Once per job; nothing for a job without
   copies. */
void persist_return (hearth_job_t *job);

/* job is about to be freed: copies in the context's other jobs no longer
   have an origin among its stages, and stages of jobs not submitted yet
   that name one of them lose that parent and are marked so that their
   job's submit is refused, saying which it was. */
void persist_forget (hearth_job_t *job);

/* A copy of a map-output table of ntasks entries of partitions
   partitions each (its sizes arrays copied), or NULL on no memory. */
mapout_t *persist_maps_copy (const mapout_t *maps, uint64_t ntasks,
                             uint32_t partitions);
/* Free a table made so, or a stage's. */
void persist_maps_free (mapout_t **maps_p, uint64_t ntasks);

#endif
