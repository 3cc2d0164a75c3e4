/*  decom.c - the worker's graceful decommission and its stop; see
    decom.h.  Nothing here knows of tasks: the drivers stop a leaving
    worker's executors once their tasks are done (EXECUTOR_DECOMMISSIONING,
    from the master), so the worker waits for its children to end and for
    its block server to hold no application's outputs. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/notify.h"
#include "libcore/proto.h"
#include "worker/decom.h"

/* How often the outputs on disk are looked at while leaving (a walk of
   the shuffle directory). */
static const int64_t s_outputs_every_ms = 1000;

/* Tell the master (WORKER_STOPPING), which closes its records of this
   worker at once; send nothing more. */
static void
s_tell_stopping (worker_t *w, const char *why)
{
    hearth_msg_t *msg = w->uplink && hearth_uplink_up (w->uplink)
                            ? hearth_msg_new (HEARTH_CMD_WORKER_STOPPING)
                            : NULL;
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "id", w->id);
    cJSON_AddStringToObject (msg->body, "reason", why);
    hearth_uplink_send (w->uplink, &msg, hearth_mono_ms ());
    /* The master has marked this worker DEAD and its executors LOST: their
       ends, from now on, would only be answered RECONNECT_WORKER. */
    hearth_uplink_down (w->uplink, NULL, hearth_mono_ms ());
}

void
worker_stop (worker_t *w, const char *why)
{
    if (w->stopping)
        return;
    log_info ("%s: stopping %zu executors and %zu drivers", why,
              children_count (w->children, &execs_kind),
              children_count (w->children, &drivers_kind));
    /* The master hears it first, so that it places nothing more here and
       replaces the executors at once (WORKER_STOPPING). */
    s_tell_stopping (w, why);
    hearth_notifyf ("STOPPING=1\nSTATUS=stopping %zu executors and %zu drivers",
                    children_count (w->children, &execs_kind),
                    children_count (w->children, &drivers_kind));
    w->stopping = true;
    drivers_stop_waiting (w->drivers);
    children_stop_under (w->children, NULL);
}

void
worker_decom_tell (worker_t *w)
{
    if (!w->decommissioning || w->stopping || !w->uplink
        || !hearth_uplink_up (w->uplink))
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_WORKER_DECOMMISSIONING);
    if (!msg)
        return;
    int64_t left = w->decom_deadline_ms - hearth_mono_ms ();
    cJSON_AddStringToObject (msg->body, "id", w->id);
    cJSON_AddStringToObject (msg->body, "reason", w->decom_reason);
    cJSON_AddNumberToObject (msg->body, "timeout_ms",
                             (double) (left > 0 ? left : 0));
    hearth_uplink_send (w->uplink, &msg, hearth_mono_ms ());
}

void
worker_decom_start (worker_t *w, const char *reason, int64_t timeout_ms)
{
    if (w->stopping)
        return;
    char why[300];
    if (timeout_ms <= 0) {
        snprintf (why, sizeof why, "decommissioned: %s (no timeout: at once)",
                  reason);
        worker_stop (w, why);
        return;
    }
    int64_t now = hearth_mono_ms ();
    if (w->decommissioning) {
        if (now + timeout_ms < w->decom_deadline_ms) {
            w->decom_deadline_ms = now + timeout_ms;
            w->decom_timeout_ms = timeout_ms;
            worker_decom_tell (w);
        }
        return;
    }
    w->decommissioning = true;
    w->decom_deadline_ms = now + timeout_ms;
    w->decom_timeout_ms = timeout_ms;
    w->decom_checked_ms = 0;
    snprintf (w->decom_reason, sizeof w->decom_reason, "%s", reason);
    log_info ("decommissioning (%s): no new executor or driver; waiting up "
              "to %lld ms for %zu executors, %zu drivers and the map outputs "
              "served here",
              reason, (long long) timeout_ms,
              children_count (w->children, &execs_kind),
              children_count (w->children, &drivers_kind));
    hearth_notifyf ("STATUS=decommissioning: %zu executors and %zu drivers",
                    children_count (w->children, &execs_kind),
                    children_count (w->children, &drivers_kind));
    worker_decom_tell (w);
}

void
worker_decom_tick (worker_t *w, int64_t now)
{
    if (!w->decommissioning || w->stopping)
        return;
    size_t execs = children_count (w->children, &execs_kind);
    size_t drivers = children_count (w->children, &drivers_kind);
    char why[512];
    if (now >= w->decom_deadline_ms) {
        size_t apps = w->shuffle ? shuffle_apps_held (w->shuffle) : 0;
        snprintf (why, sizeof why,
                  "decommissioned: %s (its timeout of %lld ms passed with %zu "
                  "executors, %zu drivers and the outputs of %zu "
                  "applications left)",
                  w->decom_reason, (long long) w->decom_timeout_ms, execs,
                  drivers, apps);
        worker_stop (w, why);
        return;
    }
    if (execs || drivers || now - w->decom_checked_ms < s_outputs_every_ms)
        return;
    w->decom_checked_ms = now;
    if (w->shuffle && shuffle_apps_held (w->shuffle) > 0)
        return;
    snprintf (why, sizeof why, "decommissioned: %s (its work is done)",
              w->decom_reason);
    worker_stop (w, why);
}
