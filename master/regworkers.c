/*  regworkers.c - the registry's workers: registration (again, in place,
    keeping their executors), what they report using beyond the master's
    books, draining, death (their executors LOST, their drivers relaunched
    or ended), and forgetting long-dead ones; see registry.h. */
#include "config.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/registry.h"
#include "master/registry_int.h"
#include "master/regworkers.h"

/* A worker whose launches fail: the first hold, its cap, and the failures
   in a row that make it unhealthy (registry.h). */
static const int64_t s_launch_hold_ms = 500;
static const int64_t s_launch_hold_max_ms = 30000;
static const int s_unhealthy_after = 3;

bool
registry_worker_report (registry_t *self, reg_worker_t *worker,
                        int cores_foreign, int64_t memory_foreign_mb)
{
    struct reg_worker *w = registry__worker_rw (worker);
    (void) self;
    int cores_before = registry_worker_cores_used (w);
    int64_t memory_before = registry_worker_memory_used (w);
    w->cores_foreign = cores_foreign;
    w->memory_foreign_mb = memory_foreign_mb;
    return cores_before != registry_worker_cores_used (w)
           || memory_before != registry_worker_memory_used (w);
}

void
registry_worker_report_resources (registry_t *self, reg_worker_t *worker,
                                  hearth_resources_t *foreign)
{
    struct reg_worker *w = registry__worker_rw (worker);
    (void) self;
    hearth_resources_clear (&w->resources_foreign);
    w->resources_foreign = *foreign;
    *foreign = (hearth_resources_t){0};
}

void
registry_worker_shuffle_bytes (registry_t *self, reg_worker_t *worker,
                               uint64_t bytes)
{
    (void) self;
    registry__worker_rw (worker)->shuffle_bytes = bytes;
}

void
registry_worker_persisted_bytes (registry_t *self, reg_worker_t *worker,
                                 uint64_t bytes)
{
    (void) self;
    registry__worker_rw (worker)->persisted_bytes = bytes;
}

static cJSON *
s_worker_event (reg_worker_t *w, const char *what, const char *reason)
{
    cJSON *e = registry__event (what);
    if (!e)
        return NULL;
    cJSON_AddItemToObject (e, "worker",
                           registry_worker_json (w, registry_wall_ms ()));
    if (reason)
        cJSON_AddStringToObject (e, "reason", reason);
    return e;
}

/* Copy the description into w; -1 on no memory. */
static int
s_worker_fill (registry_t *self, struct reg_worker *w,
               const registry_worker_desc_t *desc)
{
    zframe_t *rid = desc->routing_id ? zframe_dup (desc->routing_id) : NULL;
    if ((desc->routing_id && !rid)
        || registry__set_str (&w->host, desc->host) < 0
        || registry__set_str (&w->version, desc->version) < 0
        || registry__set_str (&w->work_dir, desc->work_dir) < 0
        || registry__set_str (&w->work_dir_id, desc->work_dir_id) < 0
        || registry__set_str (&w->web_url, desc->web_url && desc->web_url[0]
                                               ? desc->web_url
                                               : NULL)
               < 0) {
        zframe_destroy (&rid);
        return -1;
    }
    registry__peer_unset (self, w->routing_id, w);
    zframe_destroy (&w->routing_id);
    w->routing_id = rid;
    registry__peer_set (self, rid, PEER_WORKER, w);
    w->cores = desc->cores;
    w->memory_mb = desc->memory_mb;
    snprintf (w->curve_key, sizeof w->curve_key, "%s",
              desc->curve_key ? desc->curve_key : "");
    hearth_resources_t offered = {0};
    if (desc->resources
        && hearth_resources_copy (&offered, desc->resources) < 0)
        return -1;
    hearth_resources_clear (&w->resources);
    w->resources = offered;
    cJSON *labels = desc->labels && cJSON_GetArraySize (desc->labels)
                        ? cJSON_Duplicate (desc->labels, true)
                        : NULL;
    cJSON_Delete (w->labels);
    w->labels = labels;
    return 0;
}

struct reg_worker *
registry__worker_new (registry_t *self, const registry_worker_desc_t *desc)
{
    struct reg_worker *w = calloc (1, sizeof *w);
    if (!w)
        return NULL;
    snprintf (w->id, sizeof w->id, "%s", desc->id);
    w->executors = zlistx_new ();
    w->drivers = zlistx_new ();
    if (!w->executors || !w->drivers || s_worker_fill (self, w, desc) < 0) {
        registry__peer_unset (self, w->routing_id, w);
        registry__worker_destroy (&w);
        return NULL;
    }
    zhashx_insert (self->workers, w->id, w);
    w->order_handle = zlistx_add_end (self->worker_order, w);
    return w;
}

reg_worker_t *
registry_worker_register (registry_t *self, const registry_worker_desc_t *desc,
                          int64_t now_ms)
{
    struct reg_worker *w =
        registry__worker_rw (registry_worker (self, desc->id));
    bool again = w != NULL;
    if (w && s_worker_fill (self, w, desc) < 0)
        return NULL;
    if (!w && !(w = registry__worker_new (self, desc)))
        return NULL;
    if (w->dead_handle)
        zlistx_delete (self->dead, w->dead_handle);
    w->dead_handle = NULL;
    w->state = WORKER_ALIVE;
    w->dead_ms = 0;
    /* a new process, or a new connection: its health is learnt again */
    w->launch_failures = 0;
    w->launch_hold_ms = 0;
    registry__set_str (&w->unhealthy, NULL);
    registry__set_str (&w->dead_reason, NULL);
    w->registered_ms = w->last_heartbeat_ms = registry_wall_ms ();
    registry__watch_worker (self, w, now_ms);
    registry_change_t c = {.topic = "worker",
                           .worker = w,
                           .exit_status = -1,
                           .event = s_worker_event (
                               w, again ? "reregistered" : "registered", NULL)};
    registry__notify (self, &c);
    return w;
}

reg_worker_key_t
registry_worker_key (reg_worker_t *w, const char *key, bool w_key_admitted)
{
    if (!key || !key[0] || strcmp (w->curve_key, key) == 0)
        return REG_KEY_SAME;
    if (!w->curve_key[0])
        return REG_KEY_FIRST;
    return w_key_admitted ? REG_KEY_OTHER : REG_KEY_NEW;
}

/* The hold after n failures in a row. */
static int64_t
s_hold (int n)
{
    int64_t hold = s_launch_hold_ms;
    for (int i = 1; i < n && hold < s_launch_hold_max_ms; i++)
        hold *= 2;
    return hold < s_launch_hold_max_ms ? hold : s_launch_hold_max_ms;
}

static void
s_health_event (registry_t *self, reg_worker_t *w, const char *what,
                const char *reason)
{
    registry_change_t c = {.topic = "worker",
                           .worker = w,
                           .exit_status = -1,
                           .event = s_worker_event (w, what, reason)};
    registry__notify (self, &c);
}

bool
registry_worker_launch_failed (registry_t *self, reg_worker_t *worker,
                               const char *reason, int64_t now_ms)
{
    struct reg_worker *w = registry__worker_rw (worker);
    w->launch_failures++;
    w->launch_hold_ms = now_ms + s_hold (w->launch_failures);
    bool turned = !w->unhealthy && w->launch_failures >= s_unhealthy_after;
    if (w->launch_failures >= s_unhealthy_after)
        registry__set_str (&w->unhealthy,
                           reason && reason[0] ? reason : "launches fail");
    if (turned)
        s_health_event (self, w, "unhealthy", w->unhealthy);
    return turned;
}

bool
registry_worker_launch_ok (registry_t *self, reg_worker_t *worker)
{
    struct reg_worker *w = registry__worker_rw (worker);
    bool was = w->unhealthy != NULL;
    w->launch_failures = 0;
    w->launch_hold_ms = 0;
    registry__set_str (&w->unhealthy, NULL);
    if (was)
        s_health_event (self, w, "healthy", NULL);
    return was;
}

void
registry_worker_probe (registry_t *self, reg_worker_t *worker, int64_t now_ms)
{
    struct reg_worker *w = registry__worker_rw (worker);
    (void) self;
    w->launch_hold_ms = now_ms + s_hold (w->launch_failures);
}

int
registry_worker_drain (registry_t *self, reg_worker_t *worker, bool draining,
                       const char *reason)
{
    struct reg_worker *w = registry__worker_rw (worker);
    if (w->draining == draining)
        return 0;
    if (registry__set_str (&w->drain_reason, draining ? reason : NULL) < 0)
        return -1;
    w->draining = draining;
    registry_change_t c = {
        .topic = "worker",
        .worker = w,
        .exit_status = -1,
        .event = s_worker_event (w, draining ? "draining" : "resumed",
                                 draining ? reason : NULL)};
    registry__notify (self, &c);
    return 1;
}

int
registry_worker_decommission (registry_t *self, reg_worker_t *worker,
                              const char *reason, int64_t deadline_ms)
{
    struct reg_worker *w = registry__worker_rw (worker);
    bool sooner =
        deadline_ms > 0
        && (w->decom_deadline_ms == 0 || deadline_ms < w->decom_deadline_ms);
    if (w->decommissioning && !sooner)
        return 0;
    if (!w->decommissioning && registry__set_str (&w->decom_reason, reason) < 0)
        return -1;
    bool first = !w->decommissioning;
    w->decommissioning = true;
    if (sooner)
        w->decom_deadline_ms = deadline_ms;
    registry_change_t c = {
        .topic = "worker",
        .worker = w,
        .exit_status = -1,
        .event = s_worker_event (w, "decommissioning", w->decom_reason)};
    if (!first) /* journaled, not published again */
        cJSON_Delete (c.event), c.event = NULL;
    registry__notify (self, &c);
    return 1;
}

void
registry_worker_dead (registry_t *self, reg_worker_t *worker,
                      const char *reason, int64_t dead_ms)
{
    struct reg_worker *w = registry__worker_rw (worker);
    if (w->state == WORKER_DEAD)
        return;
    /* it left: its executors end saying so, and it shows why it is gone */
    const char *lost =
        w->decommissioning ? "worker decommissioned" : "worker lost";
    w->decommissioning = false;
    registry__set_str (&w->decom_reason, NULL);
    w->decom_deadline_ms = 0;
    registry__set_str (&w->dead_reason, reason);
    registry__unwatch_worker (self, w);
    w->state = WORKER_DEAD;
    w->dead_ms = dead_ms;
    w->dead_handle = zlistx_add_end (self->dead, w);
    w->cores_foreign = 0;
    w->memory_foreign_mb = 0;
    hearth_resources_clear (&w->resources_foreign);
    registry__stopping_clear (w);
    struct reg_exec *exec;
    while ((exec = zlistx_first (w->executors)))
        registry_exec_set_state (self, exec, EXEC_LOST, lost, -1, true);
    registry__drivers_worker_dead (self, w, dead_ms);
    registry_change_t c = {.topic = "worker",
                           .worker = w,
                           .exit_status = -1,
                           .event = s_worker_event (w, "dead", reason)};
    registry__notify (self, &c);
}

static void
s_worker_forget (registry_t *self, struct reg_worker *w)
{
    assert (zlistx_size (w->executors) == 0);
    assert (zlistx_size (w->drivers) == 0);
    registry__unwatch_worker (self, w);
    registry__peer_unset (self, w->routing_id, w);
    if (w->dead_handle)
        zlistx_delete (self->dead, w->dead_handle);
    zlistx_delete (self->worker_order, w->order_handle);
    registry__record_forget (self, "worker-", w->id);
    zhashx_delete (self->workers, w->id);
}

size_t
registry_reap (registry_t *self, int64_t cutoff_ms, size_t max)
{
    size_t n = 0;
    struct reg_worker *w;
    while (n < max && (w = zlistx_first (self->dead))
           && w->dead_ms < cutoff_ms) {
        s_worker_forget (self, w);
        n++;
    }
    return n;
}
