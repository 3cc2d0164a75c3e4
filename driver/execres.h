/*  execres.h - what an executor's custom resources and its manner of
    ending mean to the task set (issue 15): the addresses it registers
    with, counted there, and what its end does to its attempts.
    Called by execs.c only.
*/
#ifndef HEARTH_DRIVER_EXECRES_H
#define HEARTH_DRIVER_EXECRES_H

#include <cjson/cJSON.h>

#include "driver/work.h"
#include "libcore/resources.h"
#include "libcore/taskset.h"

/* Executor exec_id (in ts already) registered with json, REGISTER_EXECUTOR
   `resources` (checked by the decoder; NULL: none): its addresses into
   the empty out (the caller's, to clear), their amounts into ts.  What
   cannot be used is logged; the executor then runs tasks that need
   none. */
void execres_register (hearth_taskset_t *ts, int exec_id, const cJSON *json,
                       hearth_resources_t *out);

/* Take executor exec_id (on worker) out of work's task set, ended for
   reason: fn as hearth_taskset_remove_executor_each's.  Returns the
   attempts re-queued, or -1 (unknown to the task set). */
int execres_remove (work_t *work, int exec_id, const char *worker,
                    const char *reason, hearth_ts_dropped_fn *fn, void *arg);

#endif
