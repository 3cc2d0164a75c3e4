/*  execdecom.h - the driver's executors whose worker is leaving (issue 18:
    the master's EXECUTOR_DECOMMISSIONING).  Each is retired in the task
    set (offered nothing more), its queued attempts move to other
    executors (taskset_retire.h: killed there, counted nowhere), its
    executing ones finish; once it holds nothing the engine stops it
    (execs_lost: STOP_EXECUTOR, forgotten).  One not registered yet is
    retired once it is.  Attempts still running when the worker's timeout
    ends are lost with the executor (the master's LOST), as any loss.

    The set borrows the task set and calls nothing else of the driver; the
    engine owns it and acts on what execdecom_idle returns. */
#ifndef HEARTH_LIBHEARTH_EXECDECOM_H
#define HEARTH_LIBHEARTH_EXECDECOM_H

#include <stddef.h>

#include "libcore/taskset.h"

typedef struct execdecom execdecom_t;

/* An empty set over ts (borrowed, outlives it).  NULL on no memory. */
execdecom_t *execdecom_new (hearth_taskset_t *ts);
/* Free it.  Accepts NULL; nulls *self_p; keeps errno. */
void execdecom_destroy (execdecom_t **self_p);

/* Executor exec_id's worker leaves, for reason (copied): retire it and
   move its queued attempts now if the task set has it.  Again for one in
   the set changes nothing.  Returns the attempts moved, or -1 on no
   memory. */
int execdecom_add (execdecom_t *self, int exec_id, const char *reason);
/* Retire and move what the members registered since hold, and put in ids
   (up to max, the caller's) those that hold nothing now: to be stopped.
   Returns how many. */
size_t execdecom_idle (execdecom_t *self, int *ids, size_t max);
/* Why exec_id's worker leaves (borrowed), or NULL when not in the set. */
const char *execdecom_reason (const execdecom_t *self, int exec_id);
/* exec_id is gone (stopped, or lost): out of the set. */
void execdecom_forget (execdecom_t *self, int exec_id);

#endif
