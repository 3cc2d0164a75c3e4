/*  taskset_retire.h - moving work off a retired executor (issue 18's
    decommission): its attempts that wait in its queue go back to their
    stages, to run elsewhere, while the ones it executes finish there.
    Part of the task set (taskset.h, which owns every record); no I/O. */
#ifndef HEARTH_TASKSET_RETIRE_H
#define HEARTH_TASKSET_RETIRE_H

#include "libcore/taskset.h"

/* Every attempt executor exec_id holds queued (sent, waiting behind its
   executing ones) is asked to be killed there (a KILL event each) and its
   task is re-queued at once, to run on another executor where one exists
   (avoiding this one), without counting toward max_failures or max_lost;
   the end of such an attempt is released when heard (HEARTH_TS_RELEASED,
   a FINISHED accepted still).  The attempts it executes go on.  Call it
   after hearth_taskset_retire_executor, or the slots freed are offered
   to it again.  Returns the number of attempts moved, or -1 with errno
   ENOENT (no such executor). */
int hearth_taskset_move_queued (hearth_taskset_t *self, int exec_id);

#endif
