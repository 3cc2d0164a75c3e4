/*  evtask.h - the event log's lines about task attempts: task_start and
    task_end (docs/event-log.md), two a task and so the log's hot path:
    each is stored as a binary record that the log's writer thread
    formats (evrec.h), and counted into the log's totals for app_end.
    Every function accepts a NULL log.
*/
#ifndef HEARTH_LIBHEARTH_EVTASK_H
#define HEARTH_LIBHEARTH_EVTASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/taskset.h"
#include "libhearth/eventlog.h"
#include "libhearth/evrec.h"

/* An attempt's end: state as the executor said it (FINISHED, FAILED,
   KILLED) or LOST (with its executor), outcome what the driver made of
   it; error NULL when none. */
typedef struct {
    int exec_id;             /* where it ran */
    uint32_t stage;          /* its stage */
    uint64_t index;          /* its task */
    int attempt;             /* its attempt */
    const char *state;       /* see above */
    hearth_ts_outcome_t out; /* the task set's verdict */
    int64_t run_us;          /* how long it ran */
    const char *error;       /* why it failed, or NULL */
    size_t result_bytes;     /* its result's size */
    uint8_t locality;        /* the level it was offered at
                                (hearth_locality_t; 0: NO_PREF) */
} evtask_end_t;

/* task_start: attempt a sent to executor exec_id. */
void evtask_start (eventlog_t *el, int exec_id, const hearth_assign_t *a);
/* task_end. */
void evtask_end (eventlog_t *el, const evtask_end_t *e);

/* The records the two store (what the tests compare with the lines of
   the formatter they replaced): at time_ms, strings borrowed from e. */
evrec_start_t evtask_start_record (int exec_id, const hearth_assign_t *a,
                                   int64_t time_ms);
evrec_end_t evtask_end_record (const evtask_end_t *e, int64_t time_ms);

#endif
