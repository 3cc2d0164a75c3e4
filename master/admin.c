/*  admin.c - DRAIN_WORKER and RESUME_WORKER, an operator's requests about
    a worker, and the decommission of a worker (issue 18): an operator's
    DECOMMISSION_WORKER and the worker's own WORKER_DECOMMISSIONING; see
    admin.h.  The flags live on the worker's record (registry_worker_drain,
    registry_worker_decommission), which journals and publishes them; the
    scheduler (cluster.c) leaves such a worker out. */
#include "config.h"

#include <stdio.h>

#include "libcore/log.h"
#include "master/admin.h"
#include "master/regworkers.h"
#include "master/send.h"

/* The longest decommission timeout accepted (the codec's limit too). */
static const int64_t s_decom_max_ms = 604800000;

/* Drain (draining) or resume the worker msg names, and answer with cmd. */
static void
s_set_drain (master_t *m, zframe_t *rid, hearth_msg_t *msg, bool draining,
             hearth_cmd_t cmd)
{
    const char *id = hearth_json_str (msg->body, "worker_id");
    const char *reason = hearth_json_str (msg->body, "reason");
    reg_worker_t *w = registry_worker (m->reg, id);
    int rc = w ? registry_worker_drain (m->reg, w, draining, reason) : 0;
    char text[200];
    if (!w)
        snprintf (text, sizeof text, "no such worker");
    else if (rc < 0)
        snprintf (text, sizeof text, "master out of memory");
    else
        snprintf (text, sizeof text, "%s%s", rc == 0 ? "already " : "",
                  draining ? "draining: nothing new is placed on it"
                           : "taking work");
    if (w && rc > 0)
        log_info ("worker %s %s on request%s%s", id,
                  draining ? "drained" : "resumed", reason ? ": " : "",
                  reason ? reason : "");
    hearth_msg_t *reply = hearth_msg_new (cmd);
    if (!reply)
        return;
    cJSON_AddBoolToObject (reply->body, "ok", w && rc >= 0);
    cJSON_AddStringToObject (reply->body, "worker_id", id);
    if (w)
        cJSON_AddBoolToObject (reply->body, "draining", w->draining);
    cJSON_AddStringToObject (reply->body, "message", text);
    master_send (m, rid, reply);
}

void
master_drain_worker (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    s_set_drain (m, rid, msg, true, HEARTH_CMD_DRAIN_WORKER_RESPONSE);
}

void
master_resume_worker (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    s_set_drain (m, rid, msg, false, HEARTH_CMD_RESUME_WORKER_RESPONSE);
}

/* Tell the driver of every executor on w that it is leaving
   (EXECUTOR_DECOMMISSIONING): each retires its executor there, moves
   its queued tasks elsewhere and stops it once it is idle. */
static void
s_tell_drivers (master_t *m, reg_worker_t *w, int64_t timeout_ms)
{
    for (reg_exec_t *e = zlistx_first (w->executors); e;
         e = zlistx_next (w->executors)) {
        if (!e->app->routing_id || e->app->state > APP_RUNNING)
            continue;
        hearth_msg_t *msg =
            hearth_msg_new (HEARTH_CMD_EXECUTOR_DECOMMISSIONING);
        if (!msg)
            return;
        cJSON_AddStringToObject (msg->body, "app_id", e->app->id);
        cJSON_AddNumberToObject (msg->body, "exec_id", e->exec_id);
        cJSON_AddStringToObject (msg->body, "reason",
                                 w->decom_reason ? w->decom_reason
                                                 : "its worker leaves");
        cJSON_AddStringToObject (msg->body, "worker_id", w->id);
        if (timeout_ms >= 0)
            cJSON_AddNumberToObject (msg->body, "timeout_ms",
                                     (double) timeout_ms);
        master_send (m, e->app->routing_id, msg);
    }
}

/* w leaves within timeout_ms (-1: not told) for reason: recorded, and
   its executors' drivers told the first time.  Returns what
   registry_worker_decommission does. */
static int
s_decommission (master_t *m, reg_worker_t *w, const char *reason,
                int64_t timeout_ms)
{
    bool before = w->decommissioning;
    int64_t deadline = timeout_ms >= 0 ? registry_wall_ms () + timeout_ms : 0;
    int rc = registry_worker_decommission (m->reg, w, reason, deadline);
    if (rc > 0 && !before) {
        log_warn ("worker %s (%s) is DECOMMISSIONING: %s (%zu executors and "
                  "%zu drivers there; %s)",
                  w->id, w->host, w->decom_reason ? w->decom_reason : "",
                  zlistx_size (w->executors), zlistx_size (w->drivers),
                  timeout_ms >= 0 ? "leaving by its timeout"
                                  : "no timeout told");
        s_tell_drivers (m, w, timeout_ms);
    }
    return rc;
}

void
master_worker_decommissioning (void *arg, const hearth_from_t *from,
                               hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const char *id = hearth_json_str (msg->body, "id");
    const char *reason = hearth_json_str (msg->body, "reason");
    reg_worker_t *w = registry_worker (m->reg, id);
    if (!w || w->state != WORKER_ALIVE || !zframe_eq (w->routing_id, rid)) {
        log_debug ("WORKER_DECOMMISSIONING of %s ignored: not from that live "
                   "worker",
                   id);
        return;
    }
    /* Said again (after the worker registered again: the master may have
       restarted): its executors' drivers hear it again too, in case the
       first notice found their link down (they ignore a repeat). */
    bool again = w->decommissioning;
    int64_t timeout_ms = hearth_json_int (msg->body, "timeout_ms", 0);
    s_decommission (m, w, reason[0] ? reason : "its worker leaves", timeout_ms);
    if (again)
        s_tell_drivers (m, w, timeout_ms);
}

/* The answer to DECOMMISSION_WORKER. */
static void
s_decom_reply (master_t *m, zframe_t *rid, const char *id,
               const reg_worker_t *w, bool ok, const char *text)
{
    hearth_msg_t *reply =
        hearth_msg_new (HEARTH_CMD_DECOMMISSION_WORKER_RESPONSE);
    if (!reply)
        return;
    cJSON_AddBoolToObject (reply->body, "ok", ok);
    cJSON_AddStringToObject (reply->body, "worker_id", id);
    if (w)
        cJSON_AddStringToObject (reply->body, "state",
                                 registry_worker_state_name (w));
    cJSON_AddStringToObject (reply->body, "message", text);
    master_send (m, rid, reply);
}

void
master_decommission_worker (void *arg, const hearth_from_t *from,
                            hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const char *id = hearth_json_str (msg->body, "worker_id");
    const char *reason = hearth_json_str (msg->body, "reason");
    int64_t timeout_ms = hearth_json_int (msg->body, "timeout_ms", -1);
    reg_worker_t *w = registry_worker (m->reg, id);
    char why[300];
    if (!w || w->state != WORKER_ALIVE) {
        s_decom_reply (m, rid, id, w, false,
                       !w ? "no such worker"
                          : "the worker is not ALIVE: nothing to decommission");
        return;
    }
    if (timeout_ms > s_decom_max_ms)
        timeout_ms = s_decom_max_ms;
    snprintf (why, sizeof why, "%s",
              reason && reason[0] ? reason : "asked by an operator");
    bool before = w->decommissioning;
    /* the worker's own timeout when none is given: its
       WORKER_DECOMMISSIONING tells it */
    if (s_decommission (m, w, why, timeout_ms) < 0) {
        s_decom_reply (m, rid, id, w, false, "master out of memory");
        return;
    }
    hearth_msg_t *cmd = hearth_msg_new (HEARTH_CMD_DECOMMISSION);
    if (cmd) {
        cJSON_AddStringToObject (cmd->body, "reason", why);
        if (timeout_ms >= 0)
            cJSON_AddNumberToObject (cmd->body, "timeout_ms",
                                     (double) timeout_ms);
        master_send (m, w->routing_id, cmd);
    }
    log_info ("worker %s: decommission asked%s%s", id, reason ? ": " : "",
              reason ? reason : "");
    s_decom_reply (m, rid, id, w, true,
                   before ? "already decommissioning: asked again"
                          : "decommissioning: nothing new is placed on it; it "
                            "leaves once its work is done or its timeout "
                            "passes");
}
