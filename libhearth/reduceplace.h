/*  reduceplace.h - where a reduce task would rather run: on the workers
    that hold much of its input (issue 37).

    Spark's reducers prefer the hosts whose map outputs hold at least
    20 % of their partition's bytes (REDUCER_PREF_LOCS_FRACTION): a
    skewed partition is read mostly where it lies instead of across the
    network.  The driver knows every map output's server and its blocks'
    sizes (shuffle.h's map-output table), and a server's worker; once a
    map stage is done, each task of the stages reading it prefers the
    workers ("worker:ID", libcore/taskset.h) holding at least that share
    of its partition.  A worker holds a share only through its block
    server: in local[N] (no server) nothing is preferred.

    The input of a reader of a persisted stage with a memory level
    (hearth_stage_persist) stays in the memory of the executor that read
    it (executor/partcache.h): the next job's reader of that partition
    prefers that executor ("executor:N"), and then reads nothing.
*/
#ifndef HEARTH_LIBHEARTH_REDUCEPLACE_H
#define HEARTH_LIBHEARTH_REDUCEPLACE_H

#include "libcore/taskset.h"
#include "libhearth/internal.h"
#include "libhearth/shuffle.h"

/* The share of a partition's bytes that makes a worker preferred. */
#define REDUCEPLACE_FRACTION 0.2

/* Tell the task set where each task of reduce (reading a partitioned
   stage, or one read whole, whose map outputs are all there) would
   rather run: on the executor that keeps its input in memory, when one
   does (reduceplace_note), and, by_bytes, on the workers holding the
   fraction of its bytes.  Before reduce's first offer; later calls
   change nothing (its preferences are fixed then).  Returns the tasks
   given a preference. */
uint64_t reduceplace_prefer (hearth_taskset_t *ts,
                             const shuffle_servers_t *servers,
                             const hearth_stage_t *reduce, bool by_bytes);
/* Task index of reduce finished on executor exec_id: when its input is
   a persisted stage kept in memory, that executor now keeps its
   partition there (executor/partcache.h), for the next reader. */
void reduceplace_note (hearth_stage_t *reduce, uint64_t index, int exec_id);

#endif
