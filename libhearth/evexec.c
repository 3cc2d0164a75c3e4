/*  evexec.c - executor_added, executor_removed and lost attempts' ends;
    see evexec.h.
*/
#include "config.h"

#include <stdio.h>

#include "libhearth/evexec.h"
#include "libhearth/evtask.h"
#include "libhearth/tlfeed.h"

int64_t
evexec_added (eventlog_t *el, const evexec_t *x)
{
    int64_t now = eventlog_time_ms (el);
    if (!el)
        return now;
    eventlog_totals (el)->executors++;
    eventlog_begin (el, "executor_added");
    eventlog_int (el, "executor", x->exec_id);
    eventlog_str (el, "host", x->host);
    eventlog_int (el, "cores", x->cores);
    if (x->memory_mb > 0)
        eventlog_int (el, "memory_mb", x->memory_mb);
    if (x->worker && x->worker[0])
        eventlog_str (el, "worker", x->worker);
    eventlog_end (el);
    return now;
}

void
evexec_removed (eventlog_t *el, const evexec_t *x, const char *reason,
                int tasks_lost)
{
    if (!el)
        return;
    int64_t lifetime = eventlog_time_ms (el) - x->added_ms;
    eventlog_totals (el)->core_ms_reserved += (int64_t) x->cores * lifetime;
    eventlog_begin (el, "executor_removed");
    eventlog_int (el, "executor", x->exec_id);
    eventlog_str (el, "reason", reason);
    eventlog_int (el, "tasks_lost", tasks_lost);
    eventlog_int (el, "cores", x->cores);
    if (x->memory_mb > 0)
        eventlog_int (el, "memory_mb", x->memory_mb);
    if (x->peak_rss >= 0)
        eventlog_int (el, "peak_rss_bytes", x->peak_rss);
    else
        eventlog_str (el, "peak_rss_bytes", NULL);
    eventlog_int (el, "lifetime_ms", lifetime);
    eventlog_end (el);
}

void
evexec_attempt_lost (void *arg, const hearth_assign_t *a, int64_t start_us,
                     bool requeued)
{
    const evexec_lost_t *l = arg;
    char why[300];
    snprintf (why, sizeof why, "executor %d lost: %s", l->exec_id, l->reason);
    evtask_end_t end = {.exec_id = l->exec_id,
                        .stage = a->stage,
                        .index = a->index,
                        .attempt = a->attempt,
                        .state = "LOST",
                        .out = requeued ? HEARTH_TS_RETRY : HEARTH_TS_RELEASED,
                        .run_us = l->now_us - start_us,
                        .error = why};
    evtask_end (l->el, &end);
    tlfeed_attempt (l->tl, &end, eventlog_time_ms (l->el));
}
