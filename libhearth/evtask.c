/*  evtask.c - task_start and task_end, stored as binary records; see
    evtask.h.

    The engine thread is the driver's bottleneck and these events come
    two a task, so it only copies each into the log's chunk as a record
    (evrec.h: a small struct, a task_end's strings after it) and the
    writer thread makes the JSON line: formatting them here, even in
    place, cost the no-op task rate 10 to 20 % (docs/performance.md, "The
    event log's cost").
*/
#include "config.h"

#include <string.h>

#include "libhearth/evrec.h"
#include "libhearth/evtask.h"

evrec_start_t
evtask_start_record (int exec_id, const hearth_assign_t *a, int64_t time_ms)
{
    return (evrec_start_t){.tag = EVREC_TASK_START,
                           .speculative = a->speculative,
                           .locality = a->locality,
                           .exec_id = exec_id,
                           .stage = a->stage,
                           .attempt = a->attempt,
                           .index = a->index,
                           .time_ms = time_ms};
}

void
evtask_start (eventlog_t *el, int exec_id, const hearth_assign_t *a)
{
    char *o = el ? eventlog_record_open (el, sizeof (evrec_start_t)) : NULL;
    if (!o)
        return;
    evrec_start_t r = evtask_start_record (exec_id, a, eventlog_time_ms (el));
    eventlog_record_close (el, evrec_put_start (o, &r));
}

static void
s_count (eventlog_t *el, const evtask_end_t *e)
{
    eventlog_totals_t *t = eventlog_totals (el);
    if (e->out == HEARTH_TS_ACCEPT)
        t->tasks_succeeded++;
    else if (strcmp (e->state, "FAILED") == 0 && e->out != HEARTH_TS_FETCH_WAIT)
        t->tasks_failed++;
    if (e->run_us > 0)
        t->core_us_used += e->run_us;
}

evrec_end_t
evtask_end_record (const evtask_end_t *e, int64_t time_ms)
{
    return (evrec_end_t){.tag = EVREC_TASK_END,
                         .outcome = (uint8_t) e->out,
                         .has_error = e->error != NULL,
                         .locality = e->locality,
                         .exec_id = e->exec_id,
                         .stage = e->stage,
                         .attempt = e->attempt,
                         .state_len = (uint32_t) strlen (e->state),
                         .error_len =
                             e->error ? (uint32_t) strlen (e->error) : 0,
                         .index = e->index,
                         .time_ms = time_ms,
                         .run_us = e->run_us,
                         .result_bytes = e->result_bytes};
}

void
evtask_end (eventlog_t *el, const evtask_end_t *e)
{
    if (!el)
        return;
    evrec_end_t r = evtask_end_record (e, eventlog_time_ms (el));
    char *o =
        eventlog_record_open (el, evrec_end_size (r.state_len, r.error_len));
    if (o)
        eventlog_record_close (el, evrec_put_end (o, &r, e->state, e->error));
    s_count (el, e);
}
