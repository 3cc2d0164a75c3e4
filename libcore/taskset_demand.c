/*  taskset_demand.c - what the task set's runnable stages still want of
    executors, for dynamic allocation (libhearth/dynalloc.c); see
    hearth_taskset_demand in taskset.h. */
#include "config.h"

#include "libcore/taskset_int.h"

void
hearth_taskset_demand (const hearth_taskset_t *self, uint64_t *waiting,
                       uint64_t *unfinished)
{
    uint64_t left = 0, executing = 0;
    for (size_t i = 0; i < self->nstages; i++) {
        const ts_stage_t *st = self->stages[i];
        if (!st || st->done || st->failed || st->parents_left > 0)
            continue; /* nothing to run there now */
        left += st->ntasks - st->finished;
        executing += st->executing;
    }
    *unfinished = left;
    *waiting = left > executing ? left - executing : 0;
}
