/*  admin.c - DRAIN_WORKER and RESUME_WORKER, an operator's requests about
    a worker; see admin.h.  The flag lives on the worker's record
    (registry_worker_drain), which journals and publishes it; the
    scheduler (cluster.c) leaves a drained worker out. */
#include "config.h"

#include <stdio.h>

#include "libcore/log.h"
#include "master/admin.h"
#include "master/send.h"

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
master_drain_worker (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    s_set_drain (m, rid, msg, true, HEARTH_CMD_DRAIN_WORKER_RESPONSE);
}

void
master_resume_worker (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    s_set_drain (m, rid, msg, false, HEARTH_CMD_RESUME_WORKER_RESPONSE);
}
