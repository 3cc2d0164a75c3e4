/*  state.c - the master's status and MASTER_STATE's answer; see state.h.
    The JSON of each record is the registry's (regviews.c). */
#include "config.h"

#include <malloc.h>

#include "libcore/web.h"
#include "master/regdrivers.h"
#include "master/send.h"
#include "master/state.h"

const char *
master_status (const master_t *m)
{
    return m->role == MASTER_STANDBY ? "STANDBY"
           : m->recovering           ? "RECOVERING"
                                     : "ALIVE";
}

static cJSON *
s_workers_json (master_t *m, int64_t now)
{
    cJSON *list = cJSON_CreateArray ();
    zlistx_t *workers = registry_workers (m->reg);
    for (reg_worker_t *w = zlistx_first (workers); list && w;
         w = zlistx_next (workers))
        cJSON_AddItemToArray (list, registry_worker_json (w, now));
    return list;
}

static void
s_add_apps (cJSON *list, zlistx_t *apps)
{
    for (reg_app_t *a = zlistx_first (apps); list && a; a = zlistx_next (apps))
        cJSON_AddItemToArray (list, registry_app_json (a));
}

static void
s_add_drivers (cJSON *list, zlistx_t *drivers)
{
    for (reg_driver_t *d = zlistx_first (drivers); list && d;
         d = zlistx_next (drivers))
        cJSON_AddItemToArray (list, registry_driver_json (d));
}

cJSON *
master_state_json (master_t *m)
{
    cJSON *b = cJSON_CreateObject ();
    if (!b)
        return NULL;
    cJSON_AddStringToObject (b, "status", master_status (m));
    cJSON_AddStringToObject (b, "url", m->url);
    cJSON_AddStringToObject (b, "events_url", m->events_url);
    if (m->role != MASTER_SINGLE) {
        /* where it stands in the election (ha.c) */
        static const char *const roles[] = {"SINGLE", "STANDBY", "LEADER",
                                            "SUSPENDED"};
        cJSON_AddStringToObject (b, "role", roles[m->role]);
        if (*m->leader_url)
            cJSON_AddStringToObject (b, "leader", m->leader_url);
        if (m->epoch)
            cJSON_AddNumberToObject (b, "epoch", (double) m->epoch);
    }
    if (m->web)
        cJSON_AddStringToObject (b, "web_url", hearth_web_url (m->web));
    cJSON_AddStringToObject (b, "policy",
                             m->spread_out ? "spread-out" : "consolidate");
    cJSON_AddNumberToObject (b, "heartbeat_interval_ms",
                             (double) m->interval_ms);
    cJSON_AddNumberToObject (b, "heartbeat_liveness", (double) m->liveness);
    cJSON_AddNumberToObject (b, "started_ms", (double) m->started_ms);
    cJSON_AddNumberToObject (b, "time_ms", (double) registry_wall_ms ());
    cJSON_AddItemToObject (b, "workers",
                           s_workers_json (m, registry_wall_ms ()));
    cJSON *apps = cJSON_AddArrayToObject (b, "apps");
    s_add_apps (apps, registry_apps (m->reg));
    s_add_apps (apps, registry_completed (m->reg));
    cJSON *drivers = cJSON_AddArrayToObject (b, "drivers");
    s_add_drivers (drivers, registry_drivers (m->reg));
    s_add_drivers (drivers, registry_drivers_completed (m->reg));
    return b;
}

void
master_state_request (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    (void) msg;
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_MASTER_STATE_RESPONSE);
    cJSON *body = master_state_json (m);
    if (!reply || !body) {
        hearth_msg_destroy (&reply);
        cJSON_Delete (body);
        return;
    }
    cJSON_Delete (reply->body);
    reply->body = body;
    master_send (m, rid, reply);
    /* The answer's JSON tree (about 1 KiB per worker) is free again: give
       its pages back, or the master keeps megabytes it rarely needs
       (bench-master: RSS per worker 1.9 KiB before the first MASTER_STATE
       at 10,000 workers, 3.6 KiB after, without this). */
    malloc_trim (0);
}
