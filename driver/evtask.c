/*  evtask.c - task_start and task_end, formatted in place; see evtask.h.

    Each line is built with one reservation of its largest size and
    memcpy of its constant parts: the generic field adders (a reservation
    and a key a field) cost about a third of the no-op task rate
    (docs/performance.md, "The event log's cost").
*/
#include "config.h"

#include <string.h>

#include "driver/evtask.h"

/* A constant piece of a line. */
#define S_PUT(o, lit)                                                          \
    (memcpy ((o), (lit), sizeof (lit) - 1), (o) + sizeof (lit) - 1)

/* The largest line without its strings: keys, numbers, booleans. */
static const size_t s_fixed_max = 320;

static const char *
s_outcome_name (hearth_ts_outcome_t out)
{
    static const char *const names[] = {[HEARTH_TS_STALE] = "stale",
                                        [HEARTH_TS_NOTED] = "noted",
                                        [HEARTH_TS_ACCEPT] = "accepted",
                                        [HEARTH_TS_DUPLICATE] = "duplicate",
                                        [HEARTH_TS_RETRY] = "retried",
                                        [HEARTH_TS_GAVE_UP] = "gave_up",
                                        [HEARTH_TS_RELEASED] = "released",
                                        [HEARTH_TS_FETCH_WAIT] = "fetch_wait"};
    return (size_t) out < sizeof names / sizeof *names && names[out]
               ? names[out]
               : "unknown";
}

/* What both events start with after their name: the time and the
   attempt's identity. */
static char *
s_put_attempt (char *o, eventlog_t *el, uint32_t stage, uint64_t index,
               int attempt, int exec_id)
{
    o = S_PUT (o, "\",\"time_ms\":");
    o = eventlog_put_time (el, o);
    o = S_PUT (o, ",\"stage\":");
    o = eventlog_put_int (o, stage);
    o = S_PUT (o, ",\"index\":");
    o = eventlog_put_int (o, (int64_t) index);
    o = S_PUT (o, ",\"attempt\":");
    o = eventlog_put_int (o, attempt);
    o = S_PUT (o, ",\"executor\":");
    return eventlog_put_int (o, exec_id);
}

void
evtask_start (eventlog_t *el, int exec_id, const hearth_assign_t *a)
{
    char *o = el ? eventlog_line_open (el, s_fixed_max) : NULL;
    if (!o)
        return;
    o = S_PUT (o, "{\"event\":\"task_start");
    o = s_put_attempt (o, el, a->stage, a->index, a->attempt, exec_id);
    o = a->speculative ? S_PUT (o, ",\"speculative\":true}\n")
                       : S_PUT (o, ",\"speculative\":false}\n");
    eventlog_line_close (el, o);
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

void
evtask_end (eventlog_t *el, const evtask_end_t *e)
{
    if (!el)
        return;
    const char *outcome = s_outcome_name (e->out);
    size_t max = s_fixed_max + EVENTLOG_STRING_MAX (strlen (e->state))
                 + EVENTLOG_STRING_MAX (strlen (outcome))
                 + (e->error ? EVENTLOG_STRING_MAX (strlen (e->error)) : 0);
    char *o = eventlog_line_open (el, max);
    if (!o)
        return;
    o = S_PUT (o, "{\"event\":\"task_end");
    o = s_put_attempt (o, el, e->stage, e->index, e->attempt, e->exec_id);
    o = S_PUT (o, ",\"state\":");
    o = eventlog_put_string (o, e->state);
    o = S_PUT (o, ",\"outcome\":");
    o = eventlog_put_string (o, outcome);
    o = S_PUT (o, ",\"run_us\":");
    o = eventlog_put_int (o, e->run_us);
    o = S_PUT (o, ",\"error\":");
    o = e->error ? eventlog_put_string (o, e->error) : S_PUT (o, "null");
    o = S_PUT (o, ",\"result_bytes\":");
    o = eventlog_put_int (o, (int64_t) e->result_bytes);
    if (e->out == HEARTH_TS_FETCH_WAIT)
        o = S_PUT (o, ",\"fetch_failed\":true");
    o = S_PUT (o, "}\n");
    eventlog_line_close (el, o);
    s_count (el, e);
}
