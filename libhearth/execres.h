/*  execres.h - what an executor's custom resources and its manner of
    ending mean to the task set (issue 15): the addresses it registers
    with, counted there, and the rule that an executor killed for memory
    (OOM_KILLED) counts as a failure of the tasks it ran, not a loss.
    Called by execs.c only.
*/
#ifndef HEARTH_LIBHEARTH_EXECRES_H
#define HEARTH_LIBHEARTH_EXECRES_H

#include <cjson/cJSON.h>

#include "libcore/resources.h"
#include "libcore/taskset.h"
#include "libhearth/work.h"

/* Executor exec_id (in ts already) registered with json, REGISTER_EXECUTOR
   `resources` (checked by the decoder; NULL: none): its addresses into
   the empty out (the caller's, to clear), their amounts into ts.  What
   cannot be used is logged; the executor then runs tasks that need
   none. */
void execres_register (hearth_taskset_t *ts, int exec_id, const cJSON *json,
                       hearth_resources_t *out);

/* Take executor exec_id (on worker, "" in local modes) out of work's task
   set, ended for reason (the master link's words: "OOM_KILLED: killed:
   out of memory, limit 192 MiB, peak 190 MiB", "FAILED: ..."): fn as
   hearth_taskset_remove_executor_each's.  An executor killed for memory
   counts as a failure of each attempt it held
   (hearth_taskset_remove_executor_failed), and a job failed by it says
   "executor N on worker W killed: out of memory, ..."; any other end is
   a loss.  Returns the attempts re-queued, or -1 (unknown to the task
   set). */
int execres_remove (work_t *work, int exec_id, const char *worker,
                    const char *reason, hearth_ts_dropped_fn *fn, void *arg);

#endif
