/*  state.c - the master's status and MASTER_STATE's answer; see state.h.
    The JSON of each record is the registry's (regviews.c). */
#include "config.h"

#include <stdlib.h>

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

/* The completed lists are kept in the order their records ended; they
   are shown newest first, as Spark's master page and hearth-history
   show them (the one just ended on top). */
static void
s_add_apps (cJSON *list, zlistx_t *apps, bool newest_first)
{
    for (reg_app_t *a = newest_first ? zlistx_last (apps) : zlistx_first (apps);
         list && a; a = newest_first ? zlistx_prev (apps) : zlistx_next (apps))
        cJSON_AddItemToArray (list, registry_app_json (a));
}

static void
s_add_drivers (cJSON *list, zlistx_t *drivers, bool newest_first)
{
    for (reg_driver_t *d = newest_first ? zlistx_last (drivers)
                                        : zlistx_first (drivers);
         list && d;
         d = newest_first ? zlistx_prev (drivers) : zlistx_next (drivers))
        cJSON_AddItemToArray (list, registry_driver_json (d));
}

/* The document's fields before "workers". */
static cJSON *
s_head_json (master_t *m)
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
    return b;
}

/* The document's fields after "workers": apps and drivers, into b. */
static void
s_add_tail (cJSON *b, master_t *m)
{
    cJSON *apps = cJSON_AddArrayToObject (b, "apps");
    s_add_apps (apps, registry_apps (m->reg), false);
    s_add_apps (apps, registry_completed (m->reg), true);
    cJSON *drivers = cJSON_AddArrayToObject (b, "drivers");
    s_add_drivers (drivers, registry_drivers (m->reg), false);
    s_add_drivers (drivers, registry_drivers_completed (m->reg), true);
}

cJSON *
master_state_json (master_t *m)
{
    cJSON *b = s_head_json (m);
    if (!b)
        return NULL;
    cJSON_AddItemToObject (b, "workers",
                           s_workers_json (m, registry_wall_ms ()));
    s_add_tail (b, m);
    return b;
}

/* The workers' array, each printed from its record. */
static bool
s_print_workers (master_t *m, hearth_jsonbuf_t *buf)
{
    int64_t now = registry_wall_ms ();
    zlistx_t *workers = registry_workers (m->reg);
    if (!hearth_json_put (buf, "[", 1))
        return false;
    bool first = true;
    for (reg_worker_t *w = zlistx_first (workers); w;
         w = zlistx_next (workers), first = false)
        if ((!first && !hearth_json_put (buf, ",", 1))
            || !registry_worker_print (w, now, buf))
            return false;
    return hearth_json_put (buf, "]", 1);
}

/* head (without its closing brace), "workers", then tail (without its
   opening one), as hearth_json_print prints master_state_json's tree
   after hearth_msg_set_epoch: the leader's epoch last. */
static bool
s_print_state (master_t *m, cJSON *head, cJSON *tail, hearth_jsonbuf_t *buf)
{
    hearth_jsonbuf_t part;
    cJSON_DeleteItemFromObjectCaseSensitive (head, "epoch");
    if (m->epoch)
        cJSON_AddNumberToObject (tail, "epoch", (double) m->epoch);
    if (!hearth_json_put_value (buf, head))
        return false;
    buf->len--; /* its "}" */
    const char *text = hearth_json_print (tail, &part, NULL, 0);
    bool ok = text && hearth_json_put (buf, ",\"workers\":", 11)
              && s_print_workers (m, buf) && hearth_json_put (buf, ",", 1)
              && hearth_json_put (buf, text + 1, part.len - 1);
    hearth_jsonbuf_release (&part);
    return ok;
}

char *
master_state_text (master_t *m, size_t *len)
{
    cJSON *head = s_head_json (m), *tail = cJSON_CreateObject ();
    hearth_jsonbuf_t buf;
    hearth_jsonbuf_init (&buf, NULL, 0);
    if (head && tail)
        s_add_tail (tail, m);
    bool ok = head && tail && s_print_state (m, head, tail, &buf)
              && hearth_jsonbuf_finish (&buf);
    cJSON_Delete (head);
    cJSON_Delete (tail);
    if (!ok) {
        hearth_jsonbuf_release (&buf);
        return NULL;
    }
    *len = buf.len;
    return buf.heap;
}

void
master_state_request (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    (void) msg;
    size_t len;
    char *text = master_state_text (m, &len);
    if (text)
        master_send_text (m, rid, HEARTH_CMD_MASTER_STATE_RESPONSE, text, len);
}
