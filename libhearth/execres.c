/*  execres.c - an executor's custom resources and its end, as the task
    set counts them; see execres.h.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/log.h"
#include "libhearth/execres.h"

/* How the master's link words the loss of an executor killed for memory
   (libhearth/master.c s_executor_updated). */
static const char s_oom_prefix[] = "OOM_KILLED: ";

void
execres_register (hearth_taskset_t *ts, int exec_id, const cJSON *json,
                  hearth_resources_t *out)
{
    hearth_error_t err;
    if (!json)
        return;
    hearth_resource_amounts_t have = {0};
    int rc = hearth_resources_from_json (out, json, &err);
    for (size_t i = 0; rc == 0 && i < out->n; i++)
        rc = hearth_resource_amounts_add (&have, out->v[i].name,
                                          (int) out->v[i].naddrs, &err);
    if (rc == 0
        && hearth_taskset_set_executor_resources (ts, exec_id, &have) < 0)
        rc = hearth_errprintf (&err, "out of memory");
    if (rc < 0)
        log_warn ("executor %d: its resources are not used: %s", exec_id,
                  err.text);
    for (size_t i = 0; rc == 0 && i < out->n; i++) {
        char *spec = hearth_resource_spec (&out->v[i]);
        log_info ("executor %d holds %s", exec_id,
                  spec ? spec : out->v[i].name);
        free (spec);
    }
    hearth_resource_amounts_clear (&have);
}

/* The OOM path's view of each dropped attempt: a failure of its task,
   so its stage counts it among its failed attempts (the progress display,
   stage_end), as a FAILED status would be; then the caller's fn. */
typedef struct {
    work_t *work;             /* the stages */
    hearth_ts_dropped_fn *fn; /* the caller's, or NULL */
    void *arg;                /* given to fn */
} s_oom_drop_t;

static void
s_oom_dropped (void *arg, const hearth_assign_t *a, int64_t start_us,
               bool requeued)
{
    s_oom_drop_t *d = arg;
    hearth_stage_t *st = requeued ? work_stage (d->work, a->stage) : NULL;
    if (st) /* counted as failed by the task set (not killed anyway) */
        st->failed_attempts++;
    if (d->fn)
        d->fn (d->arg, a, start_us, requeued);
}

int
execres_remove (work_t *work, int exec_id, const char *worker,
                const char *reason, hearth_ts_dropped_fn *fn, void *arg)
{
    hearth_taskset_t *ts = work_taskset (work);
    if (strncmp (reason, s_oom_prefix, strlen (s_oom_prefix)) != 0)
        return hearth_taskset_remove_executor_each (ts, exec_id, fn, arg);
    /* Its tasks killed it: each counts as a failure of its task, so that
       a task that kills every executor it lands on fails its job after
       max-failures, with this reason. */
    char text[512];
    snprintf (text, sizeof text, "executor %d on worker %s %s", exec_id,
              worker && *worker ? worker : "?", reason + strlen (s_oom_prefix));
    work_set_exec_failure (work, text);
    s_oom_drop_t drop = {work, fn, arg};
    return hearth_taskset_remove_executor_failed (ts, exec_id, s_oom_dropped,
                                                  &drop);
}
